"""Reading a response's text, shared by the parsers: line numbers of offsets, indentation,
blank tails and Markdown fences.

The parsers start from the marker lines found for them (``marker_scan``) and only walk the
lines inside the blocks they find, so a multi-megabyte response is never looped over line by
line in Python. :class:`LineCounter` turns match offsets into 0-based line numbers by counting
newlines (in C) between successive offsets.
"""

from __future__ import annotations

import re
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
        the marker scan), so the text between blocks is not counted again."""
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


def only_blank_from(lines: list[str], start: int) -> bool:
    """True when ``lines[start:]`` are all empty or whitespace (the response ends there).

    Stops at the first non-blank line, so it is cheap anywhere but at the very end.
    """
    n = len(lines)
    while start < n:  # a plain loop: a generator costs more than the one line it mostly reads
        if lines[start].strip():
            return False
        start += 1
    return True


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
