"""A file or a snippet parsed into units (units.py), with its first syntax error.

A snippet is parsed as the model wrote it, with two kinds of help (and never more):
- its elision lines become a harmless stand-in of the language (``pass`` in Python, a comment
  elsewhere), so ``class A:`` followed only by ``# ...`` is still a class;
- it is parsed dedented, and when it still has an error and the language has a member
  wrapper, wrapped in a class (a JavaScript method pasted alone is a call followed by a block
  at the top level; inside ``class __Snippet__ { }`` it is the method it is).
Line numbers of the units are always the snippet's own lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..reindent import leading_ws
from .grammars import parser_for
from .tables import TABLES
from .units import Node, Unit, read_units, unit_starting_at


@dataclass
class Parsed:
    units: list[Unit]
    error_line: int | None  # the first line with a syntax error, None when it parses
    # A definition (or a statement of a node type) starting on a line, at any depth (file)
    unit_at: Callable[[int, str | None], Unit | None] = lambda line, node_type: None


def parse_file(language: str, lines: list[str]) -> Parsed:
    return _parse(language, lines, frozenset(), 0)  # with unit_at


def parse_snippet(language: str, lines: list[str], elided: list[int]) -> Parsed:
    """The snippet's units; with ``error_line`` set when no reading of it parses."""
    table = TABLES[language]
    skip = frozenset(elided)
    base = _common_indent(lines) if table.dedent else ""
    stand_ins = _with_stand_ins(lines, elided, table.elision_stand_in)
    text_lines = [line[len(base):] if line.startswith(base) else line for line in stand_ins]
    if table.repair is not None:  # a comma before an elision stand-in is no syntax error
        text_lines = table.repair(text_lines)
    prefix = table.source_prefix
    if prefix and any(line.lstrip().startswith(prefix) for line in lines[:3]):
        prefix = ""  # the snippet has its own
    parsed = _parse(language, [prefix, *text_lines] if prefix else text_lines, skip,
                    1 if prefix else 0)
    if parsed.error_line is None or table.member_wrapper is None:
        return parsed
    return _parse_as_members(language, text_lines, skip, prefix) or parsed


def _parse_as_members(language: str, text_lines: list[str], skip: frozenset[int],
                      prefix: str) -> Parsed | None:
    """The snippet parsed inside the language's member wrapper (a class), its members as
    the snippet's units; None when that does not parse either."""
    opening, closing = TABLES[language].member_wrapper or ("", "")
    body = [*([prefix] if prefix else []), opening, *text_lines, closing]
    wrapped = _parse(language, body, skip, len(body) - len(text_lines) - 1)
    if wrapped.error_line is not None or len(wrapped.units) != 1:
        return None
    return Parsed(wrapped.units[0].members, None)


def _parse(language: str, lines: list[str], skip: frozenset[int], shift: int) -> Parsed:
    parser = parser_for(language)
    tree = parser.parse(("\n".join(lines) + "\n").encode("utf-8"))
    root = tree.root_node
    shifted_skip = frozenset(i + shift for i in skip)
    units = read_units(language, root, lines, shifted_skip)
    if shift:
        for unit in units:
            _shift(unit, -shift)
        units = [u for u in units if u.end > 0]  # the lines added before the snippet
    error = _first_error_line(root) if root.has_error else None
    return Parsed(units, None if error is None else max(error - shift, 0),
                  lambda line, node_type: unit_starting_at(language, root, lines, line,
                                                           node_type))


def _shift(unit: Unit, delta: int) -> None:
    unit.start += delta
    unit.def_start += delta
    unit.end += delta
    unit.elided_end += delta
    unit.comment_start += delta
    if unit.inner is not None:
        unit.inner = (unit.inner[0] + delta, unit.inner[1] + delta)
    for member in unit.members:
        _shift(member, delta)


def _first_error_line(root: Node) -> int | None:
    """The line of the first ERROR or MISSING node (descending only into erroneous nodes)."""
    node = root
    while True:
        if node.is_error or node.is_missing:
            return node.start_point[0]
        child = next((c for c in node.children if c.has_error or c.is_missing), None)
        if child is None:
            return node.start_point[0]
        node = child


def _common_indent(lines: list[str]) -> str:
    indents = [leading_ws(line) for line in lines if line.strip()]
    if not indents:
        return ""
    common = min(indents, key=len)
    while common and not all(ws.startswith(common) for ws in indents):
        common = common[:-1]
    return common


def _with_stand_ins(lines: list[str], elided: list[int], stand_in: str) -> list[str]:
    """``lines`` with each elision line replaced by ``stand_in`` at an indentation the
    language accepts there (for Python's ``pass``: inside a block opened just above)."""
    out = list(lines)
    for i in elided:
        ws = leading_ws(lines[i])
        if stand_in == "pass":
            ws = _python_block_indent(lines, elided, i, ws)
        out[i] = ws + stand_in
    return out


def _python_block_indent(lines: list[str], elided: list[int], i: int, ws: str) -> str:
    """Under a line ending in ``:``, one level deeper than it (the next shown line's
    indentation when that is deeper): ``class A:`` then ``# ...`` is a class body."""
    previous = next((lines[j] for j in range(i - 1, -1, -1)
                     if lines[j].strip() and j not in elided), "")
    if not previous.rstrip().endswith(":"):
        return ws
    opened = leading_ws(previous)
    following = next((leading_ws(lines[j]) for j in range(i + 1, len(lines))
                      if lines[j].strip() and j not in elided), None)
    if following is not None and len(following) > len(opened):
        return following
    return ws if len(ws) > len(opened) else opened + "    "
