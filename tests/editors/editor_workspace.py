"""The workspace and LLM responses the real-editor tests (Neovim, Emacs) share.

Every file and response is small and chosen so that a wrong behaviour shows in the resulting
text: a block that matches only the unsaved buffer, an edit at the end of a file without a final
newline right after an emoji (its column differs between UTF-8, UTF-16 and code points), a
failing block with one clear near match, and a file for the stale-edit case.
"""

from __future__ import annotations

from pathlib import Path

EMOJI = "\N{GRINNING FACE}"  # outside the BMP: 4 UTF-8 bytes, 2 UTF-16 units, 1 code point

A_PY = f'''"""Module a."""
label = "{EMOJI} one"
value = 1


def compute(x):
    return x + 1
'''
# No final newline, and the edited last line has an emoji before the changed text: the end of
# the replaced range is a column whose value depends on the position encoding.
B_PY = f'import sys\nprint("{EMOJI} start")\nprint("{EMOJI} done")'

# The raw scenario: a.py's first block matches only the unsaved buffer text; the last block
# fails (a.py has "x + 1"), its near match is "def compute(x):".
RAW_RESPONSE = f"""Here are the changes.

a.py
```python
<<<<<<< SEARCH
label = "{EMOJI} one (unsaved)"
value = 1
=======
label = "{EMOJI} two {EMOJI}"
value = 2
>>>>>>> REPLACE
```

b.py
```python
<<<<<<< SEARCH
print("{EMOJI} done")
=======
print("{EMOJI} finished")
>>>>>>> REPLACE
```

a.py
```python
<<<<<<< SEARCH
def compute(x):
    return x * 2
=======
def compute(x):
    return x * 3
>>>>>>> REPLACE
```
"""

C_PY = 'def greet(name):\n    return "hi " + name\n'
D_PY = "x = 1\ny = 2\nz = 3\n"
S_PY = "s = 1\n"

REGISTER_RESPONSE = """c.py
<<<<<<< SEARCH
    return "hi " + name
=======
    return "hello " + name
>>>>>>> REPLACE

n.py
<<<<<<< SEARCH
=======
CREATED = True
>>>>>>> REPLACE

c.py
<<<<<<< SEARCH
def greet(name, greeting):
=======
def greet(name, greeting="hi"):
>>>>>>> REPLACE
"""
PREVIEW_RESPONSE = """d.py
<<<<<<< SEARCH
y = 2
=======
y = 20
>>>>>>> REPLACE
"""
STALE_RESPONSE = """s.py
<<<<<<< SEARCH
s = 1
=======
s = 2
>>>>>>> REPLACE
"""
FAILING_RESPONSE = """d.py
<<<<<<< SEARCH
y = 200
=======
y = 300
>>>>>>> REPLACE
"""
# Unclosed: no ">>>>>>> REPLACE" (the response was cut off).
MALFORMED_RESPONSE = """Here is the fix:

d.py
<<<<<<< SEARCH
z = 3
=======
z = 30
"""

WORKSPACE_FILES = {"a.py": A_PY, "b.py": B_PY, "c.py": C_PY, "d.py": D_PY, "s.py": S_PY}
RESPONSES = {
    "main": RAW_RESPONSE,
    "register": REGISTER_RESPONSE,
    "preview": PREVIEW_RESPONSE,
    "stale": STALE_RESPONSE,
    "failing": FAILING_RESPONSE,
    "malformed": MALFORMED_RESPONSE,
}


def make_workspace(root: Path) -> Path:
    """Write the workspace files under ``root``/ws (with a .git directory) and return it."""
    workspace = root / "ws"
    workspace.mkdir(parents=True)
    (workspace / ".git").mkdir()
    for name, text in WORKSPACE_FILES.items():
        (workspace / name).write_bytes(text.encode("utf-8"))
    return workspace
