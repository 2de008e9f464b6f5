"""The marker lines of every format, found in one regex pass over the response.

Each format's registry entry (``lsp_server.formats``) names the marker lines its parser starts
from; :func:`scan_markers` finds them all in one pass (about as fast as splitting the response
into lines), and ``parse_response`` hands the one :class:`MarkerLines` to every parser. Whole
line markers (edit-v3, edit-v2, search-replace) are kept with their text; the others (``edit
{``, ``*** Begin Patch``, ``## File``, ``--- ``, ``diff --git``, a fence line) with the offset
where they start, and are only candidates: each parser checks the rest of its grammar there.
Markers must start their line (models do not indent them), but for fence lines, which
CommonMark lets be indented up to three spaces: code-block pairs every fence from this scan
rather than from a second pass over the response.

The regex starts with a literal ``"\\n"`` rather than ``^``: CPython's engine skips ahead to a
literal prefix but tries a ``^``-anchored pattern at every position (several times slower).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..formats import FORMATS, MarkerLine
from ..limits import DEFAULT_MAX_BLOCK_LINES


def _marker_kinds() -> list[MarkerLine]:
    """Every kind of marker line of the registry, once each, in registry order; checked: no
    capturing group, and no first character claimed by two kinds (the scan tells kinds apart
    by the first character of the line)."""
    kinds: dict[str, MarkerLine] = {}
    for fmt in FORMATS:
        for marker in fmt.markers:
            kinds.setdefault(marker.kind, marker)
    if sum(1 for kind in kinds.values() if kind.indent) > 1:
        raise ValueError("more than one kind of marker line may be indented")
    claimed: dict[str, str] = {}
    for kind in kinds.values():
        if re.compile(kind.pattern).groups:
            raise ValueError(f"marker pattern {kind.pattern!r} has a capturing group")
        for char in kind.first_chars:
            if claimed.setdefault(char, kind.kind) != kind.kind:
                raise ValueError(f"{kind.kind!r} and {claimed[char]!r} both start with {char!r}")
    return list(kinds.values())


_KINDS = _marker_kinds()
_INDENTED = next((kind for kind in _KINDS if kind.indent), None)


def _line_start_pattern(kind: MarkerLine) -> str:
    # Possessive: a line of spaces fails once, without trying fewer.
    return f" {{0,{kind.indent}}}+(?:{kind.pattern})" if kind.indent else kind.pattern


# Group 1: the whole-line markers ([^\S\n] is what str.rstrip removes, minus the newline
# itself); group 2: the markers that start a line. Two groups, not one per kind: every group
# the engine enters costs, and the first character of the line tells the kind (a space: the
# indented kind).
_ALL_MARKERS = (
    "(?:(" + "|".join(kind.pattern for kind in _KINDS if kind.whole_line) + r")[^\S\n]*$"
    "|(" + "|".join(_line_start_pattern(kind) for kind in _KINDS if not kind.whole_line) + "))"
)
_FIRST_CHARS = "".join(kind.first_chars for kind in _KINDS)
# The lookahead lets most lines fail on one character check (about a quarter faster); an
# indented line (code) fails on its spaces and the character after them.
_MARKERS_AFTER_NEWLINE = re.compile(
    "\n(?=[" + re.escape(_FIRST_CHARS) + "]"
    + ("" if _INDENTED is None else
       f"| {{1,{_INDENTED.indent}}}+[{re.escape(_INDENTED.first_chars)}]")
    + ")" + _ALL_MARKERS, re.MULTILINE)
_MARKERS_ON_FIRST_LINE = re.compile(_ALL_MARKERS, re.MULTILINE)


@dataclass(slots=True)
class MarkerLines:
    """The marker lines of one response by kind (``MarkerLine.kind``), in response order:
    ``whole_lines[kind]`` as ``(0-based line, marker text)``, ``starts[kind]`` as
    ``(0-based line, offset of the marker)``. The lists are shared by the parsers: never
    mutate them.

    ``max_block_lines`` (None: no limit) travels with them to every parser: a block whose
    lines (hunk headers included) pass it is cut short while it is read, with a warning, so a
    block of millions of tiny hunks never holds millions of objects (the planner would fail
    it anyway, by the same limit)."""

    whole_lines: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    starts: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    max_block_lines: int | None = DEFAULT_MAX_BLOCK_LINES


def scan_markers(text: str,
                 max_block_lines: int | None = DEFAULT_MAX_BLOCK_LINES) -> MarkerLines:
    """The marker lines of every registered format in ``text`` (LF line ends), from one regex
    pass; line numbers come from counting newlines (in C) between successive matches."""
    found = MarkerLines(max_block_lines=max_block_lines)
    sink_of: dict[str, list] = {}  # first character of a marker -> the list it goes to
    for kind in _KINDS:
        lists: dict = found.whole_lines if kind.whole_line else found.starts
        sink = lists.setdefault(kind.kind, [])
        sink_of.update(dict.fromkeys(kind.first_chars + (" " if kind.indent else ""), sink))
    # One string object per distinct marker text (a few dozen can match): a response of
    # 900,000 blocks kept a fresh copy of every marker line, ~270 bytes per block.
    canonical = {}.setdefault
    first = _MARKERS_ON_FIRST_LINE.match(text)
    if first:
        marker = first[1]
        sink_of[text[0]].append((0, 0) if marker is None else (0, canonical(marker, marker)))
    line = 0
    counted_to = 0
    count = text.count
    for m in _MARKERS_AFTER_NEWLINE.finditer(text):
        offset = m.start() + 1
        line += count("\n", counted_to, offset)
        counted_to = offset
        if m.lastindex == 1:
            marker = m[1]
            sink_of[text[offset]].append((line, canonical(marker, marker)))
        else:
            sink_of[text[offset]].append((line, offset))
    return found
