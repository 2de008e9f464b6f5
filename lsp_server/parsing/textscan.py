"""Scanning helpers shared by the hunk-patch, semantic-diff, apply-patch and unified-diff parsers.

The parsers find candidate start lines with compiled regexes over the whole response and only
walk the lines inside the blocks they find, so a multi-megabyte response is never looped over
line by line in Python. :func:`start_lines` does that search once for all four formats, in
one regex pass (about as fast as counting the response's newlines) for the markers that
begin a line: ``edit {``, ``*** Begin Patch``, ``## File``, ``--- ``, ``diff --git`` and a
json fence. They must start the line: looking for indented ones would cost every response a
second pass, and models do not indent them. :class:`LineCounter` turns match
offsets into 0-based line numbers by counting newlines (in C) between successive offsets.

The regexes start with a literal ``"\n"`` rather than ``^``: CPython's engine skips ahead to
a literal prefix but tries a ``^``-anchored pattern at every position (several times slower).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache


class LineCounter:
    """0-based line number of an offset in ``text``, counted incrementally.

    Queries normally come in increasing offset order (regex matches), so each one only counts
    the newlines since the previous query; going backwards is allowed and costs the distance.
    """

    __slots__ = ("_line", "_offset", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._offset = 0
        self._line = 0

    def seek(self, offset: int, line: int) -> None:
        """Start counting from an offset whose line is already known (a block's start from
        :func:`start_lines`), so the text between blocks is not counted again."""
        self._offset, self._line = offset, line

    def line_of(self, offset: int) -> int:
        if offset >= self._offset:
            self._line += self._text.count("\n", self._offset, offset)
        else:
            self._line -= self._text.count("\n", offset, self._offset)
        self._offset = offset
        return self._line


def line_start(text: str, pos: int) -> int:
    """Offset of the first character of the line holding ``pos``."""
    return text.rfind("\n", 0, pos) + 1


def only_indent_before(text: str, pos: int, max_spaces: int | None = None) -> bool:
    """True when just spaces/tabs stand between the start of ``pos``'s line and ``pos``.

    ``max_spaces`` limits that indentation to so many spaces (no tabs), as CommonMark does
    for headings and fences (three).
    """
    start = line_start(text, pos)
    indent = text[start:pos]
    if max_spaces is not None:
        return len(indent) <= max_spaces and indent == " " * len(indent)
    return not indent.strip(" \t")


def only_blank_from(lines: list[str], start: int) -> bool:
    """True when ``lines[start:]`` are all empty or whitespace (the response ends there).

    Stops at the first non-blank line, so it is cheap anywhere but at the very end.
    """
    return all(not lines[i].strip() for i in range(start, len(lines)))


@lru_cache(maxsize=64)
def closing_fence(char: str, length: int) -> re.Pattern[str]:
    """CommonMark closing fence for an opener of ``length`` ``char``s: up to three spaces, at
    least as many of the same character, nothing else but spaces and tabs."""
    return re.compile(
        r"^ {0,3}" + re.escape(char) + "{" + str(length) + r",}[ \t]*$", re.MULTILINE
    )


_LEADING_BACKTICKS = re.compile(r"[ \t]*(`{3,})")


def backtick_fence_for(lines: list[str]) -> str:
    """A backtick fence longer than every backtick run starting a line of ``lines``, so none
    of them can close it (CommonMark)."""
    longest = 2
    for line in lines:
        m = _LEADING_BACKTICKS.match(line)
        if m:
            longest = max(longest, len(m.group(1)))
    return "`" * (longest + 1)


_LINE_START_MARKERS = (
    r"(edit[ \t]*\{|\*\*\* Begin Patch|## File |--- |diff --git "
    r"|(?:`{3,}|~{3,})[ \t]*(?:json|JSON))"
)
# The lookahead lets most lines fail on one character check (about a quarter faster).
_MARKERS_AFTER_NEWLINE = re.compile("\n(?=[e*#\\-d`~])" + _LINE_START_MARKERS)
_MARKERS_ON_FIRST_LINE = re.compile(_LINE_START_MARKERS)


@dataclass
class StartLines:
    """Candidate start lines of the four formats, each ``(0-based line, offset of marker)``.

    Candidates only: each parser checks the rest of its grammar at the offset.
    """

    edit_calls: list[tuple[int, int]] = field(default_factory=list)  # "edit {" at line start
    json_fences: list[tuple[int, int]] = field(default_factory=list)  # ```json / ~~~json
    file_sections: list[tuple[int, int]] = field(default_factory=list)  # "## File "
    minus_lines: list[tuple[int, int]] = field(default_factory=list)  # "--- " (maybe +++ next)
    git_headers: list[tuple[int, int]] = field(default_factory=list)  # "diff --git "
    begin_patches: list[tuple[int, int]] = field(default_factory=list)  # "*** Begin Patch"


_last_scan: tuple[str, StartLines] | None = None


def start_lines(text: str) -> StartLines:
    """The candidate start lines of ``text`` (computed once per response: the four parsers
    are called one after the other on the same text)."""
    global _last_scan
    cached = _last_scan
    if cached is not None and cached[0] is text:
        return cached[1]
    starts = StartLines()
    by_first_char = {
        "e": starts.edit_calls, "#": starts.file_sections, "-": starts.minus_lines,
        "d": starts.git_headers, "`": starts.json_fences, "~": starts.json_fences,
        "*": starts.begin_patches,
    }
    counter = LineCounter(text)
    first = _MARKERS_ON_FIRST_LINE.match(text)
    if first:
        by_first_char[first.group(1)[0]].append((0, 0))
    for m in _MARKERS_AFTER_NEWLINE.finditer(text):
        offset = m.start() + 1
        by_first_char[m.group(1)[0]].append((counter.line_of(offset), offset))
    _last_scan = (text, starts)
    return starts
