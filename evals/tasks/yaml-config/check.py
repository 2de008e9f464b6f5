import pathlib


def parse(lines, indent=0):
    """The YAML subset this file uses: mappings, lists of mappings, plain scalars."""
    result = None
    while lines:
        raw = lines[0]
        depth = len(raw) - len(raw.lstrip(" "))
        if depth < indent:
            break
        text = raw.strip()
        if text.startswith("- "):
            result = [] if result is None else result
            lines[0] = " " * (depth + 2) + text[2:]
            result.append(parse(lines, depth + 2))
            continue
        lines.pop(0)
        key, _, value = text.partition(":")
        result = {} if result is None else result
        value = value.strip().strip('"')
        result[key.strip()] = value if value else parse(lines, depth + 1)
    return result


lines = [line for line in pathlib.Path("deploy.yaml").read_text().splitlines()
         if line.strip() and not line.lstrip().startswith("#")]
doc = parse(lines)
service = doc["service"]
assert service["replicas"] == "3", service
env = {entry["name"]: entry["value"] for entry in service["env"]}
assert env == {"LOG_LEVEL": "info", "REGION": "eu-west-1", "TIMEOUT": "30"}, env
assert [entry["name"] for entry in service["env"]][-1] == "TIMEOUT"
assert doc["database"] == {"host": "db.internal", "port": "5432"}, doc["database"]
assert service["name"] == "api"
