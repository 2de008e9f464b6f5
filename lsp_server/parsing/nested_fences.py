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

# The structure line after a fence that ends the search: a Hunk or Lines heading (group 1),
# or a "## File" line.
_NEXT_PART_RE = re.compile(
    r"\n {0,3}(?:(#{3,6}[ \t]+(?i:hunk\b|lines[ \t]+to\b))|## File[ \t])")
_FENCE_LIKE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)$", re.MULTILINE)

FenceLine = tuple[int, int, str]


def nested_close(text: str, opener_end: int, run: str, close: FenceLine) -> FenceLine:
    """The closing line of the fence opened by ``run`` (its opener's line ends at
    ``opener_end``) that CommonMark closes at ``close``, read as the module docstring says."""
    following = _NEXT_PART_RE.search(text, close[1])
    bound = following.start() if following else len(text)
    if bound == close[1] or text.find(run, close[1], bound) < 0:
        return close  # the usual case: no fence-like line before the next part
    if following is not None and following.group(1):
        last = close
        for m in _FENCE_LIKE_RE.finditer(text, close[1] + 1, bound):
            if _same_run(m, run) and not m.group(2).strip():
                last = (m.start(), m.end(), m.group(1))
        return last
    return _balanced_close(text, opener_end, run, bound) or close


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
