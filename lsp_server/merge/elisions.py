"""Elision lines (docs/formats.md, `code-block`): the lines a snippet writes instead of the
file's lines it leaves out, such as ``# ... existing code ...`` or ``// rest of the class``.

An elision is a line that is only a comment (``#``, ``//``, ``/* */``, ``<!-- -->``,
``{/* */}``, ``--``) or only ``...``/``…``, and says ``...``, ``…``, ``existing``,
``unchanged``, ``rest of``, ``omitted`` or ``same as before``. The comment forms are matched
one by one with patterns free of nested quantifiers (a long line of spaces must not backtrack).
"""

from __future__ import annotations

import re

from ..matching import strip_ws

_ELLIPSES = ("...", "…")
# (opening, closing) of the comment forms an elision may take.
_COMMENT_FORMS: tuple[tuple[str, str], ...] = (
    ("{/*", "*/}"),
    ("<!--", "-->"),
    ("/*", "*/"),
    ("//", ""),
    ("#", ""),
    ("--", ""),
)
_SAYS_ELIDED = re.compile(
    r"\.\.\.|…|\bexisting\b|\bunchanged\b|\brest\s+of\b|\bomitted\b|\bsame\s+as\s+before\b",
    re.IGNORECASE,
)
# A comment longer than this is prose that happens to use one of the words, not a marker.
_MAX_ELISION_CHARS = 160


def is_elision_line(line: str) -> bool:
    """Whether ``line`` is an elision line (see the module docstring)."""
    text = strip_ws(line)
    if text in _ELLIPSES:
        return True
    if len(text) > _MAX_ELISION_CHARS:
        return False
    body = _comment_body(text)
    return body is not None and _SAYS_ELIDED.search(body) is not None


def _comment_body(text: str) -> str | None:
    """The text inside ``text`` when it is only a comment, else None."""
    for opening, closing in _COMMENT_FORMS:
        if text.startswith(opening) and text.endswith(closing) and (
            len(text) >= len(opening) + len(closing)
        ):
            return text[len(opening) : len(text) - len(closing)]
    return None


def elision_indexes(code_lines: list[str], file_lines: list[str] | None = None) -> list[int]:
    """Indexes of the elision lines of ``code_lines``. A line that looks like one but that
    the file holds (ignoring surrounding whitespace) is the file's own comment, hence code."""
    found = [i for i, line in enumerate(code_lines) if is_elision_line(line)]
    if not found or not file_lines:
        return found
    # One search of the file's text per distinct elision (C speed), then the few lines
    # holding it compared whole: reading every file line here cost more than the merge.
    file_text = "\n".join(file_lines)
    in_file = {text for text in {strip_ws(code_lines[i]) for i in found}
               if text in file_text and _a_line_is(file_lines, file_text, text)}
    return [i for i in found if strip_ws(code_lines[i]) not in in_file]


def _a_line_is(file_lines: list[str], file_text: str, text: str) -> bool:
    """Whether a line of the file is ``text`` ignoring surrounding whitespace."""
    at = file_text.find(text)
    while at >= 0:
        line_start = file_text.rfind("\n", 0, at) + 1
        line_end = file_text.find("\n", at)
        if strip_ws(file_text[line_start:line_end if line_end >= 0 else None]) == text:
            return True
        at = file_text.find(text, at + 1)
    return False


def split_runs(code_lines: list[str], elided: list[int]) -> list[tuple[int, int]]:
    """The runs of shown lines between elisions, as ``[start, end)`` of ``code_lines`` with
    their leading and trailing blank lines left out; runs with no non-blank line are dropped."""
    runs: list[tuple[int, int]] = []
    start = 0
    for cut in [*elided, len(code_lines)]:
        lo, hi = start, cut
        while lo < hi and not strip_ws(code_lines[lo]):
            lo += 1
        while hi > lo and not strip_ws(code_lines[hi - 1]):
            hi -= 1
        if lo < hi:
            runs.append((lo, hi))
        start = cut + 1
    return runs
