"""The marker lines of every format, found in one regex pass over the response.

Each format's registry entry (``lsp_server.formats``) names the marker lines its parser starts
from; :func:`scan_markers` finds them all in one pass (about as fast as splitting the response
into lines), and ``parse_response`` hands the one :class:`MarkerLines` to every parser. Whole
line markers (edit-v3, edit-v2, search-replace) are kept with their text; the others (``edit
{``, ``*** Begin Patch``, ``## File``, ``--- ``, ``diff --git``, a json fence) with the offset
where they start, and are only candidates: each parser checks the rest of its grammar there.
Markers must start their line: looking for indented ones would cost every response a second
pass, and models do not indent them.

The regex starts with a literal ``"\\n"`` rather than ``^``: CPython's engine skips ahead to a
literal prefix but tries a ``^``-anchored pattern at every position (several times slower).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..formats import FORMATS, MarkerLine


def _marker_kinds() -> list[MarkerLine]:
    """Every kind of marker line of the registry, once each, in registry order."""
    kinds: dict[str, MarkerLine] = {}
    for fmt in FORMATS:
        for marker in fmt.markers:
            kinds.setdefault(marker.kind, marker)
    return list(kinds.values())


_KINDS = _marker_kinds()
for _kind in _KINDS:
    if re.compile(_kind.pattern).groups:
        raise ValueError(f"marker pattern {_kind.pattern!r} has a capturing group")
# Group i + 1 of the scan's regex is _KINDS[i]. [^\S\n] is what str.rstrip removes, minus the
# newline itself.
_ALL_MARKERS = "(?:" + "|".join(
    f"({kind.pattern})" + (r"[^\S\n]*$" if kind.whole_line else "") for kind in _KINDS
) + ")"
_FIRST_CHARS = "".join(dict.fromkeys("".join(kind.first_chars for kind in _KINDS)))
# The lookahead lets most lines fail on one character check (about a quarter faster).
_MARKERS_AFTER_NEWLINE = re.compile(
    "\n(?=[" + re.escape(_FIRST_CHARS) + "])" + _ALL_MARKERS, re.MULTILINE)
_MARKERS_ON_FIRST_LINE = re.compile(_ALL_MARKERS, re.MULTILINE)
# Indexed by group number (group 0, the whole match, is no kind).
_WHOLE_LINE = [False] + [kind.whole_line for kind in _KINDS]


@dataclass(slots=True)
class MarkerLines:
    """The marker lines of one response by kind (``MarkerLine.kind``), in response order:
    ``whole_lines[kind]`` as ``(0-based line, marker text)``, ``starts[kind]`` as
    ``(0-based line, offset of the marker)``. The lists are shared by the parsers: never
    mutate them."""

    whole_lines: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    starts: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


def scan_markers(text: str) -> MarkerLines:
    """The marker lines of every registered format in ``text`` (LF line ends), from one regex
    pass; line numbers come from counting newlines (in C) between successive matches."""
    found = MarkerLines()
    # Per group of the regex: the list its matches go to.
    sinks: list[list] = [[]]
    for kind in _KINDS:
        lists: dict = found.whole_lines if kind.whole_line else found.starts
        sinks.append(lists.setdefault(kind.kind, []))
    # One string object per distinct marker text (a few dozen can match): a response of
    # 900,000 blocks kept a fresh copy of every marker line, ~270 bytes per block.
    canonical = {}.setdefault
    first = _MARKERS_ON_FIRST_LINE.match(text)
    if first and first.lastindex:
        group = first.lastindex
        sinks[group].append(
            (0, canonical(first[group], first[group])) if _WHOLE_LINE[group] else (0, 0))
    line = 0
    counted_to = 0
    count = text.count
    whole_line = _WHOLE_LINE
    for m in _MARKERS_AFTER_NEWLINE.finditer(text):
        offset = m.start() + 1
        line += count("\n", counted_to, offset)
        counted_to = offset
        group = m.lastindex
        if whole_line[group]:
            marker = m[group]
            sinks[group].append((line, canonical(marker, marker)))
        else:
            sinks[group].append((line, offset))
    return found
