import ast
import pathlib
import sys

sys.path.insert(0, ".")
import paths

tree = ast.parse(pathlib.Path("paths.py").read_text())
imports = [n for n in tree.body if isinstance(n, ast.Import)]
assert any(a.name == "os" for n in imports for a in n.names), "no top-level import os"
assert "os.path.join" in pathlib.Path("paths.py").read_text()
assert paths.config_file("/home/ada") == "/home/ada/.notes/config.ini"
