"""Whole file or snippet (docs/formats.md, `code-block`).

A code block is the whole file when it holds no elision line and its own first and last
non-blank lines equal the file's (ignoring surrounding whitespace), or when the file is empty.
A line of closing brackets alone (``}``, ``});``, ``end``) says nothing about where a block
ends (every function of a C-like file ends so), so the comparison goes on inward past such
lines to the first line that says something, on both sides.
A whole file is refused when it would remove more than half of the file's non-blank lines,
whatever it adds: the whole-file policy's rule, ``lsp_server.removed_lines``.
"""

from __future__ import annotations

from ..matching import strip_ws

_CLOSING_CHARS = "})];,>"
_CLOSING_WORDS = frozenset({"end", "fi", "done", "esac", "end;", "?>", "endif"})
_MAX_CLOSERS = 4  # closing lines compared at most before the comparison stops


def is_whole_file(file_lines: list[str], code_lines: list[str], has_elision: bool) -> bool:
    """Whether the code block reproduces the file's first and last lines (with no elision)."""
    if has_elision:
        return False
    file_first = _first_non_blank(file_lines)
    if file_first is None:
        return True
    code_first = _first_non_blank(code_lines)
    return code_first == file_first and (
        _ending(_last_non_blank(code_lines)) == _ending(_last_non_blank(file_lines)))


def _first_non_blank(lines: list[str]) -> str | None:
    return next((s for s in map(strip_ws, lines) if s), None)


def _last_non_blank(lines: list[str]) -> list[str]:
    """The last few non-blank lines, stripped, in order (all that ``_ending`` reads)."""
    found: list[str] = []
    for line in reversed(lines):
        text = strip_ws(line)
        if text:
            found.append(text)
            if len(found) > _MAX_CLOSERS:
                break
    return found[::-1]


def _ending(text: list[str]) -> list[str]:
    """The last non-blank lines up to and including the last that is not only closers."""
    for i in range(len(text) - 1, max(len(text) - 1 - _MAX_CLOSERS, -1), -1):
        if not is_closer(text[i]):
            return text[i:]
    return text[max(len(text) - 1 - _MAX_CLOSERS, 0):]


def is_closer(stripped: str) -> bool:
    """Whether a stripped line is only closing brackets or a closing word (``end``)."""
    return stripped in _CLOSING_WORDS or not stripped.strip(_CLOSING_CHARS)


def first_difference(old: list[str], new: list[str]) -> int:
    """The first line where ``new`` differs from ``old`` (0 when they are equal)."""
    for i, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return i
    return min(len(old), len(new)) if len(old) != len(new) else 0
