import json

with open("package.json") as f:
    doc = json.load(f)
assert doc["version"] == "1.5.0"
assert doc["scripts"] == {"build": "tsc", "test": "jest", "lint": "eslint src"}
assert doc["dependencies"] == {"lodash": "^4.17.21"}
assert doc["name"] == "widget"
