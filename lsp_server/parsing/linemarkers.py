"""Shared machinery for formats delimited by whole-line markers (edit-v3, edit-v2, search-replace).

Two jobs, both sized for multi-megabyte responses:

- :func:`family_markers` finds the marker lines of the three formats with one compiled regex
  over the whole text and maps each match to its 0-based line number incrementally, so no
  Python loop ever runs over ordinary response lines. The regex is anchored on a literal
  ``"\\n"`` rather than ``^`` because CPython's regex engine can skip ahead to a literal
  prefix but tries a ``^``-anchored pattern at every position (about ten times slower).
- :func:`nest_frames` pairs start markers with the rest of their block while honouring
  nesting. Every start marker opens a :class:`Frame` (a format's small state machine); the
  innermost open frame consumes the markers that follow until it closes itself. A frame that
  closes swallows every block it contained (they were content: "nested blocks — outer block
  parsed, inner markers are content"). A frame still open at the end of the response was
  unclosed (truncated, or its end marker was mistyped): it is reported, and the blocks that
  closed inside it are promoted to real blocks. That is the same as restarting the parse at
  the first start marker after the unclosed one, so a truncated block never swallows the
  complete blocks after it — computed in one pass, without re-scanning.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar

# The markers of the "««« EDIT" family (edit-v3 and edit-v2) and of search-replace. In the
# pattern, search-replace markers take 5 to 9 characters, written as a literal run of 5 plus up
# to 4 more: a branch that starts with a literal is rejected by the regex engine before it is
# entered. A marker starts its line; trailing whitespace is allowed ([^\S\n] is what
# str.rstrip removes, minus the newline itself).
GUILLEMET_MARKERS = ("««« EDIT", "═══════ REPL", "»»» EDIT END", "───────", "═══════", "»»»")
_MARKERS = (
    "(««« EDIT|═══════(?: REPL)?|»»»(?: EDIT END)?|───────)"  # group 1: guillemets
    "|(<<<<<<{0,4} SEARCH>?|======{0,4}|>>>>>>{0,4} REPLACE)"  # group 2: search-replace
)
_AFTER_NEWLINE = re.compile("\n(?:" + _MARKERS + r")[^\S\n]*$", re.MULTILINE)
_ON_FIRST_LINE = re.compile("(?:" + _MARKERS + r")[^\S\n]*$", re.MULTILINE)

# One-entry memo: the three parsers run on the same text object in a row. Identity, not
# equality, is the key; the strong reference keeps that identity valid. The lists are never
# mutated by their users.
_memo: tuple[str, dict[str, list[tuple[int, str]]]] | None = None


def family_markers(text: str, family: str) -> list[tuple[int, str]]:
    """``[(0-based line, marker text)]`` of one family in ``text``, in order.

    ``family`` is "guillemets" (edit-v3/edit-v2) or "search-replace". One regex pass finds
    both families; line numbers come from counting newlines between consecutive matches.
    """
    global _memo
    memo = _memo
    if memo is not None and memo[0] is text:
        return memo[1][family]
    guillemets: list[tuple[int, str]] = []
    search_replace: list[tuple[int, str]] = []
    if "««« EDIT" in text or "SEARCH" in text:
        first = _ON_FIRST_LINE.match(text)
        if first:
            group = first.lastindex or 1
            (guillemets if group == 1 else search_replace).append((0, first.group(group)))
        line = 0
        counted_to = 0
        count = text.count
        for m in _AFTER_NEWLINE.finditer(text):
            line_start = m.start() + 1
            line += count("\n", counted_to, line_start)
            counted_to = line_start
            if m.lastindex == 1:
                guillemets.append((line, m.group(1)))
            else:
                search_replace.append((line, m.group(2)))
    _memo = (text, {"guillemets": guillemets, "search-replace": search_replace})
    return _memo[1][family]


class Frame(Protocol):
    """One block being read: a format's state machine, opened at a start marker."""

    start: int  # 0-based line of the start marker
    floor: int  # first line a path line may be taken from (just after the previous marker)
    children: list | None  # blocks that closed inside this one (None: none yet)

    def step(self, marker: str, line: int) -> bool:
        """Consume a non-start marker; return True when it closed the frame."""
        ...


F = TypeVar("F", bound=Frame)


def nest_frames(
    markers: Iterable[tuple[int, str]],
    start_char: str,
    open_frame: Callable[[int, int, str], F],
) -> list[tuple[F, bool]]:
    """Run the frames of a whole response; ``[(frame, closed)]`` in response order.

    A start marker is the one whose first character is ``start_char`` (no other marker of the
    family starts with it). ``open_frame(line, floor, marker)`` creates its frame; ``floor``
    is the line after the previous marker (a path line is never looked for above it). Closed frames
    are complete (possibly malformed: the frame knows); unclosed ones reached the end of the
    response and are followed by the blocks that closed inside them.
    """
    out: list[tuple[F, bool]] = []
    stack: list[F] = []
    previous_marker_line = -1
    for line, marker in markers:
        if marker[0] == start_char:
            stack.append(open_frame(line, previous_marker_line + 1, marker))
        elif stack:
            top = stack[-1]
            if top.step(marker, line):
                stack.pop()
                if not stack:
                    out.append((top, True))
                elif stack[-1].children is None:
                    stack[-1].children = [(top, True)]
                else:
                    stack[-1].children.append((top, True))
        # A marker outside any frame (a stray end marker, a divider in prose) is text.
        previous_marker_line = line
    for frame in stack:  # bottom (outermost) first: response order
        out.append((frame, False))
        out.extend(frame.children or ())
    return out
