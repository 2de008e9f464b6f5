"""Scanning helpers shared by the parsers.

The parsers find candidate start lines with compiled regexes over the whole response and only
walk the lines inside the blocks they find, so a multi-megabyte response is never looped over
line by line in Python. :func:`marker_lines` does that search once for all seven formats, in
one regex pass (about as fast as splitting the response into lines): the whole-line markers
of edit-v3, edit-v2 and search-replace, and the markers that begin a line for the others
(``edit {``, ``*** Begin Patch``, ``## File``, ``--- ``, ``diff --git`` and a json fence).
:class:`LineCounter` turns match offsets into 0-based line numbers by counting newlines (in C)
between successive offsets.

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


# Every marker line the seven formats start from, in one alternation; the groups say which
# family matched (their first characters differ, so at most one family matches a line):
# 1: the "««« EDIT" family (edit-v3, edit-v2), a whole line (trailing whitespace allowed:
#    [^\S\n] is what str.rstrip removes, minus the newline itself);
# 2: search-replace, a whole line; its markers take 5 to 9 characters, written as a literal
#    run of 5 plus up to 4 more (a branch that starts with a literal is rejected before it is
#    entered);
# 3: the start lines of the hunk formats and semantic-diff (``edit {``, ``*** Begin Patch``,
#    ``## File``, ``--- ``, ``diff --git``, a json fence); only their start counts. They must
#    start the line: looking for indented ones would cost every response a second pass, and
#    models do not indent them.
_WHOLE_LINE_MARKERS = (
    "(««« EDIT|═══════(?: REPL)?|»»»(?: EDIT END)?|───────)[^\\S\\n]*$"
    "|(<<<<<<{0,4} SEARCH>?|======{0,4}|>>>>>>{0,4} REPLACE)[^\\S\\n]*$"
)
_LINE_START_MARKERS = (
    r"(edit[ \t]*\{|\*\*\* Begin Patch|## File |--- |diff --git "
    r"|(?:`{3,}|~{3,})[ \t]*(?:json|JSON))"
)
_ALL_MARKERS = "(?:" + _WHOLE_LINE_MARKERS + "|" + _LINE_START_MARKERS + ")"
# The lookahead lets most lines fail on one character check (about a quarter faster).
_MARKERS_AFTER_NEWLINE = re.compile("\n(?=[«═»─<=>e*#\\-d`~])" + _ALL_MARKERS, re.MULTILINE)
_MARKERS_ON_FIRST_LINE = re.compile(_ALL_MARKERS, re.MULTILINE)


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


@dataclass
class MarkerLines:
    """Every marker line of one response, per family (see :func:`marker_lines`)."""

    # ``(0-based line, marker text)`` of the whole-line markers, in order.
    guillemets: list[tuple[int, str]] = field(default_factory=list)
    search_replace: list[tuple[int, str]] = field(default_factory=list)
    starts: StartLines = field(default_factory=StartLines)


_last_scan: tuple[str, MarkerLines] | None = None
# One string object per distinct marker text (a few dozen can match: the family-1 markers and
# the 5-to-9-character search-replace ones): a response of 900,000 blocks kept a fresh copy
# of every marker line, ~270 bytes per block.
_canonical: dict[str, str] = {}


def marker_lines(text: str) -> MarkerLines:
    """The marker lines of all seven formats in ``text``, from one regex pass (computed once
    per response: the parsers are called one after the other on the same text object;
    identity, not equality, is the memo's key, and its strong reference keeps that identity
    valid). Line numbers come from counting newlines (in C) between successive matches."""
    global _last_scan
    cached = _last_scan
    if cached is not None and cached[0] is text:
        return cached[1]
    found = MarkerLines()
    starts = found.starts
    guillemets, search_replace = found.guillemets, found.search_replace
    by_first_char = {
        "e": starts.edit_calls, "#": starts.file_sections, "-": starts.minus_lines,
        "d": starts.git_headers, "`": starts.json_fences, "~": starts.json_fences,
        "*": starts.begin_patches,
    }
    canonical = _canonical.setdefault
    first = _MARKERS_ON_FIRST_LINE.match(text)
    if first:
        group = first.lastindex or 1
        if group == 3:
            by_first_char[text[0]].append((0, 0))
        else:
            marker = first[group]
            (guillemets if group == 1 else search_replace).append((0, canonical(marker, marker)))
    line = 0
    counted_to = 0
    count = text.count
    for m in _MARKERS_AFTER_NEWLINE.finditer(text):
        offset = m.start() + 1
        line += count("\n", counted_to, offset)
        counted_to = offset
        group = m.lastindex
        if group == 3:
            by_first_char[text[offset]].append((line, offset))
        elif group == 1:
            marker = m[1]
            guillemets.append((line, canonical(marker, marker)))
        else:
            marker = m[2]
            search_replace.append((line, canonical(marker, marker)))
    _last_scan = (text, found)
    return found


def forget_scan() -> None:
    """Drop the memo: called when a parse ends, so the response's text and marker lists are
    not kept alive after it (and the next parse of the same text object scans again, as a
    new request would)."""
    global _last_scan
    _last_scan = None


def start_lines(text: str) -> StartLines:
    """The candidate start lines of the hunk formats and semantic-diff in ``text``."""
    return marker_lines(text).starts
