"""Scanning helpers shared by the hunk-patch, semantic-diff, apply-patch and unified-diff parsers.

The parsers find candidate start lines with compiled regexes over the whole response and only
walk the lines inside the blocks they find, so a multi-megabyte response is never looped over
line by line in Python. :class:`LineCounter` turns the offsets of those regex matches into
0-based line numbers by counting newlines (in C) between successive offsets.
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
