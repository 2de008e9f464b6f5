import pathlib

text = pathlib.Path("README.md").read_text()
assert "pip install notes-cli==2.0" in text and "==1.2" not in text
usage = text.split("## Usage", 1)[1].split("## License", 1)[0]
lines = [line for line in usage.splitlines() if line.strip()]
assert lines == ["```sh", 'notes add "buy milk"', "notes list", "notes remove 1", "```"], lines
assert text.count("```") == 4
assert text.rstrip().endswith("MIT")
