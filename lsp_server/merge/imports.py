"""Imports of a snippet (docs/formats.md, `code-block`, "Imports").

An import from a module the file already imports from, in the same form (the same statement
kind and module), replaces the file's statements for that module: the first in place, the
others removed. Any other import joins the file's import block (after its last top-level
import), each once; a file with no import gets them at its top, after a shebang, a module
docstring or comment header, or a ``package`` line.
"""

from __future__ import annotations

import re

from ..matching import strip_ws
from .snippet_state import Edit, SnippetState
from .units import Unit

# Python's `from m import NAMES`, JavaScript's `import NAMES from "m"`.
_NAMES_RE = re.compile(r"^from\s+\S+\s+import\s+(.+)$|^import\s+(.+?)\s+from\s")
_SEPARATORS = str.maketrans("{}()", ",,,,")
_PREAMBLE_STARTS = ("#!", '"""', "'''", "package ", "<?php", "namespace ", "// ", "/*", "*",
                    "# ", "#-*-", "# -*-")


def import_edits(merge: SnippetState, file_units: list[Unit], imports: list[Unit]
                 ) -> list[Edit]:
    """The edits that bring the snippet's ``imports`` into the file."""
    edits: list[Edit] = []
    file_imports = [u for u in file_units if u.kind == "import"]
    joining: list[str] = []
    seen: set[str | None] = set()
    for unit in imports:
        if unit.name in seen:
            continue
        seen.add(unit.name)
        lines = merge.code_lines[unit.comment_start:unit.end]
        lines = [line[len(line) - len(line.lstrip()):] if i == 0 else line
                 for i, line in enumerate(lines)]
        same = [f for f in file_imports if f.name == unit.name]
        if same and _names(lines) >= _names(_file_lines(merge, same)):
            edits += _replacing(merge, same, lines)
            merge.placed[id(unit)] = (same[0].comment_start, same[0].end)
        elif same and _names(lines) <= _names(_file_lines(merge, same)):
            continue  # every name it imports, the file imports already
        elif not _already_there(merge, lines):
            joining += lines  # a module the file does not import, or some of its names
    if joining:
        edits.append(_into_group(merge, file_imports, joining)
                     or _joining(merge, file_imports, file_units, joining))
    return edits


def _into_group(merge: SnippetState, file_imports: list[Unit], lines: list[str]
                ) -> Edit | None:
    """Go's new imports inside the file's last ``import ( ... )`` block, at its specs'
    indentation, each path once; None when the file has no such block."""
    if not file_imports:
        return None
    block = merge.file_lines[file_imports[-1].start:file_imports[-1].end]
    if len(block) < 2 or block[0].strip() != "import (" or block[-1].strip() != ")":
        return None
    inner = [line for line in block[1:-1] if line.strip()]
    indent = inner[0][:len(inner[0]) - len(inner[0].lstrip())] if inner else "\t"
    have = {line.strip() for line in inner}
    specs: list[str] = []
    for line in lines:
        text = line.strip()
        spec = text.removeprefix("import").strip() if text.startswith("import ") else text
        if spec and spec not in ("(", ")", "import (") and spec not in have:
            have.add(spec)
            specs.append(indent + spec)
    closing = file_imports[-1].end - 1
    return Edit(closing, closing, specs)


def _file_lines(merge: SnippetState, units: list[Unit]) -> list[str]:
    return [line for u in units for line in merge.file_lines[u.start:u.end]]


def _names(lines: list[str]) -> frozenset[str]:
    """The names an import statement brings in (``from m import a, b as c``: ``a``, ``c``;
    ``import d, { e as f } from "m"``: ``d``, ``f``), read from its text; empty when it has
    no list of names (``import m``, ``#include``)."""
    text = " ".join(" ".join(lines).split())
    match = _NAMES_RE.search(text)
    if match is None:
        return frozenset()
    names = match.group(1) or match.group(2) or ""
    found = set()
    for part in names.translate(_SEPARATORS).split(","):
        words = part.split()
        if words:
            found.add(words[-1])
    return frozenset(found - {"*", "type"})


def _replacing(merge: SnippetState, same: list[Unit], lines: list[str]) -> list[Edit]:
    first = same[0]
    edits = []
    if merge.file_lines[first.start:first.end] != lines:
        edits.append(Edit(first.start, first.end, lines))
    edits += [Edit(u.comment_start, u.end, []) for u in same[1:]]
    return edits


def _already_there(merge: SnippetState, lines: list[str]) -> bool:
    wanted = [strip_ws(line) for line in lines]
    return bool(merge.matcher.find_all(wanted, "whitespace", limit=1))


def _joining(merge: SnippetState, file_imports: list[Unit], file_units: list[Unit],
             lines: list[str]) -> Edit:
    if file_imports:
        at = file_imports[-1].end
        return Edit(at, at, lines)
    at = _after_preamble(merge.file_lines, file_units)
    following = merge.file_lines[at] if at < len(merge.file_lines) else ""
    blank_before = [""] if at > 0 and merge.file_lines[at - 1].strip() else []
    blank_after = [""] if following.strip() else []
    return Edit(at, at, blank_before + lines + blank_after)


def _after_preamble(file_lines: list[str], file_units: list[Unit]) -> int:
    """The first line after the file's shebang, header comment, docstring or package line."""
    at = 0
    for unit in file_units:
        head = file_lines[unit.comment_start].strip() if unit.comment_start < len(
            file_lines) else ""
        if unit.kind == "other" and head.startswith(_PREAMBLE_STARTS):
            at = unit.end
            continue
        if unit.comment_start > at:  # a header comment above the first unit
            at = max(at, _header_comment_end(file_lines, at, unit.comment_start))
        break
    return at


def _header_comment_end(file_lines: list[str], lo: int, hi: int) -> int:
    """After a comment block that starts the file and is followed by a blank line."""
    for i in range(lo, hi):
        if not file_lines[i].strip():
            return i
    return lo
