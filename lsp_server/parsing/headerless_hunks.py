"""``@@`` hunks in a fence with no ``---``/``+++`` file headers (docs/formats.md
"unified-diff"): they name no file, so they apply nowhere; a warning says so and what to
add, instead of nothing. Read by the unified-diff parser.

A fence counts when it opens right above an ``@@`` line (blank lines between allowed), holds
only hunk lines (`` ``, ``-``, ``+``, ``@@``, ``\\``, blank), none of them a ``---``/``+++``
header, closes, and its first ``@@`` line is a unified-style ``@@ -l,n +l,n @@`` header or the
fence is a ``diff``/``patch`` one. The ``@@`` lines are found by a C search, and each fence is
read once, up to its close or its first line of another kind.
"""

from __future__ import annotations

import re

from ..model import ParseWarning
from .parsed_span import ParsedSpan
from .response_text import LineCounter, closing_fence

HEADERLESS = ("unified-diff hunks with no '--- a/<file>' and '+++ b/<file>' lines above them "
              "name no file; skipped (write the two header lines above the first '@@')")

_DIFF_INFO = ("diff", "patch", "udiff")
# A unified diff's hunk header (as unified_diff reads one).
_HUNK_HEADER_RE = re.compile(r"@@ *-\d+(?:,\d+)? \+\d+(?:,\d+)? *@@")
_FENCE_OPENER = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*([^`\n]*)$")
_HUNK_LINE_STARTS = (" ", "-", "+", "@@", "\\")
_FILE_HEADERS = ("--- ", "+++ ")


def headerless_hunks(text: str, lines: list[str]) -> list[ParsedSpan]:
    """A warning span (from the first ``@@`` line to the closing fence: a path-named fence
    holding a diff is no code block) for each such fence of the response."""
    out: list[ParsedSpan] = []
    found = 0 if text.startswith("@@") else text.find("\n@@") + 1
    if not found and not text.startswith("@@"):
        return out
    counter = LineCounter(text)
    skip_until = 0
    while True:
        line = counter.line_of(found)
        span = _fenced_headerless(lines, line) if line >= skip_until else None
        if span is not None:
            out.append(span)
            skip_until = span.end
        found = text.find("\n@@", found) + 1
        if not found:
            return out


def _fenced_headerless(lines: list[str], first: int) -> ParsedSpan | None:
    """The warning span for the ``@@`` line ``first``, if it is the first of such a fence."""
    opener = _opener_above(lines, first)
    if opener is None:
        return None
    end = _close_after_hunk_lines(lines, first, opener.group(1))
    if end is None or any(lines[k].startswith(_FILE_HEADERS) for k in range(first, end)):
        return None  # still open, prose or another format inside, or a diff with its headers
    info = opener.group(2).strip().lower().split()
    if _HUNK_HEADER_RE.match(lines[first]) or (info[:1] and info[0] in _DIFF_INFO):
        return ParsedSpan(first, end + 1, [], [ParseWarning(first, HEADERLESS)])
    return None


def _opener_above(lines: list[str], first: int) -> re.Match[str] | None:
    """The fence opener on the nearest non-blank line above ``first``, if it is one."""
    above = first - 1
    while above >= 0 and not lines[above].strip():
        above -= 1
    return _FENCE_OPENER.match(lines[above]) if above >= 0 else None


def _close_after_hunk_lines(lines: list[str], first: int, run: str) -> int | None:
    """The line closing the fence of ``run`` after ``first``, when only hunk lines stand
    between (None: a line of another kind, or no close yet: the response may be arriving)."""
    close = closing_fence(run[0], len(run))
    for end in range(first + 1, len(lines)):
        line = lines[end]
        if close.match(line):
            return end
        if line and not line.startswith(_HUNK_LINE_STARTS):
            return None
    return None
