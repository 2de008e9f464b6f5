import tomllib

with open("pyproject.toml", "rb") as f:
    doc = tomllib.load(f)
assert doc["project"]["dependencies"] == ["requests>=2", "click>=8"]
assert doc["tool"]["ruff"]["line-length"] == 100
assert doc["project"]["version"] == "0.3.0"
