"""Where a semantic-diff section's fence ends when it holds fences of its own (seed 004:
nested fences are handled "contextually"; docs/formats.md, "semantic-diff").

A Markdown file's own ```` ``` ```` fences inside a ```` ``` ```` section end it early by
CommonMark's rule (the first bare ```` ``` ```` closes). Before a ``### Hunk`` or ``#### Lines
to …`` heading the section ends at the last bare closing fence before it; before a ``## File``
line or the end of the response, where any text may follow (prose, other blocks, the closing
fence of a wrapper round the whole patch), at the first bare closing fence that closes no
fence opened inside (an opener with an info string, ```` ```python ````).

Fence-like lines are ``(start, end, run)``: the offsets of the line's first character and of
the newline ending it, and its run of backticks or tildes.
"""

from __future__ import annotations

import re

# A Hunk or Lines heading, matched from the newline before it (found by str.find first).
_PART_HEADING_RE = re.compile(r"\n#{3,6}[ \t]+(?i:hunk\b|lines[ \t]+to\b)")
_FENCE_LIKE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)$", re.MULTILINE)

FenceLine = tuple[int, int, str]


def _next_part_heading(text: str, pos: int, limit: int) -> int:
    """Offset of the newline before the first Hunk or Lines heading after ``pos`` and before
    ``limit`` (-1: none); str.find skips the text between in C."""
    found = text.find("\n###", pos, limit)
    while found >= 0 and not _PART_HEADING_RE.match(text, found):
        found = text.find("\n###", found + 1, limit)
    return found


def nested_close(text: str, opener_end: int, run: str, close: FenceLine,
                 limit: int) -> FenceLine:
    """The closing line of the fence opened by ``run`` (its opener's line ends at
    ``opener_end``) that CommonMark closes at ``close``, read as the module docstring says;
    ``limit`` is where the next ``## File`` line starts (or the end of the response)."""
    if _heading_or_end_next(text, close[1]):
        return close  # the usual case: the next part (or nothing) follows the fence
    heading = _next_part_heading(text, close[1], limit)
    bound = limit if heading < 0 else heading
    if text.find(run, close[1], bound) < 0:
        return close  # no fence-like line before the next part
    if heading >= 0:
        last = close
        for m in _FENCE_LIKE_RE.finditer(text, close[1] + 1, bound):
            if _same_run(m, run) and not m.group(2).strip():
                last = (m.start(), m.end(), m.group(1))
        return last
    if text.find(run, opener_end, close[0]) < 0:
        return close  # nothing opened inside: CommonMark's close is the first bare closer
    return _balanced_close(text, opener_end, run, bound) or close


def _heading_or_end_next(text: str, pos: int) -> bool:
    """Whether only blank lines stand between the newline at ``pos`` and a heading line or
    the end of the response (checked on the next non-blank line only: no regex pass)."""
    rest = text[pos:pos + 200].lstrip()
    return not rest or rest[0] == "#"


def _same_run(m: re.Match[str], run: str) -> bool:
    return m.group(1)[0] == run[0] and len(m.group(1)) >= len(run)


def _balanced_close(text: str, opener_end: int, run: str, bound: int) -> FenceLine | None:
    """The first bare closer after ``opener_end`` that closes no fence opened after it,
    before ``bound``."""
    depth = 0
    for m in _FENCE_LIKE_RE.finditer(text, opener_end + 1, bound):
        if not _same_run(m, run):
            continue
        if m.group(2).strip():
            depth += 1  # an opener with an info string: a fence of the file's own
        elif depth:
            depth -= 1
        else:
            return m.start(), m.end(), m.group(1)
    return None
