"""The "did you mean" hint of a failed block: where its lines first differ from the file's.

``diagnosis`` estimates the window of the file a block was meant for. The block's lines are
then aligned with the file's lines around that window (whole lines, difflib), so that a
block that leaves out a middle line, or has one the file lacks, is explained at that line;
comparing line i of the block with line i of the window would blame the block's first line,
which is correct in the file. The first difference is one of:

- a changed line: the file's line and the block's, cut around the first column where they
  differ (not from the start: a late difference stays visible), with a caret under it;
- a file line the block leaves out;
- a block line the file does not have there.

Without a non-blank line in common to align on (a one-line block, every line edited), the
lines are compared from the window's start.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from .matching import strip_ws

_ALIGN_SLACK = 20  # file lines looked at on either side of the window, at most
_MAX_ALIGN_LINES = 400  # longer blocks are compared line by line (difflib is quadratic)
_BEFORE_COLUMN = 30  # characters shown before the column where two lines differ
_SHOWN_CHARS = 72  # characters of a line shown
_QUOTE_CHARS = 80  # characters of a line quoted whole

Opcodes = list[tuple[str, int, int, int, int]]


@dataclass(frozen=True)
class Difference:
    """Where the block first differs from the file: ``kind`` is "changed" (the two lines
    differ), "missing" (the file line the block leaves out), "extra" (a block line the file
    does not have before ``file_line``) or "past-end" (the window runs past the file)."""

    kind: str
    file_line: int  # 0-based
    block_line: int  # 0-based index into the block's lines


def first_difference(lines: list[str], needle: list[str], best: int) -> Difference | None:
    """The first difference between ``needle`` and the file around the window at ``best``."""
    alignment = _alignment(lines, needle, best)
    if alignment is None:
        return _positional_difference(lines, needle, best)
    lo, opcodes = alignment
    return _aligned_difference(opcodes, lo, len(needle))


def _alignment(lines: list[str], needle: list[str], best: int) -> tuple[int, Opcodes] | None:
    """The needle aligned with the file lines around the window: the region's first line
    and difflib's opcodes, or None when no non-blank line is in common."""
    k = len(needle)
    if k > _MAX_ALIGN_LINES:
        return None
    slack = min(max(k, 3), _ALIGN_SLACK)
    lo, hi = max(0, best - slack), min(len(lines), best + k + slack)
    opcodes = SequenceMatcher(None, needle, lines[lo:hi], autojunk=False).get_opcodes()
    if not any(tag == "equal" and _any_text(needle[i1:i2]) for tag, i1, i2, _, _ in opcodes):
        return None
    return lo, opcodes


def _aligned_difference(opcodes: Opcodes, lo: int, k: int) -> Difference | None:
    seen_equal = False
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            seen_equal = True
        elif tag == "insert":
            if 0 < i1 < k:  # not the file lines before or after the block
                return Difference("missing", lo + j1, i1)
        elif tag == "delete":
            return Difference("extra", lo + j1, i1)
        else:  # replace: before anything matched, the changed lines end where it begins
            j = j1 if seen_equal else max(j1, j2 - (i2 - i1))
            return Difference("changed", lo + j, i1)
    return None


def _positional_difference(lines: list[str], needle: list[str], best: int) -> Difference | None:
    for i, block_line in enumerate(needle):
        p = best + i
        if not 0 <= p < len(lines):
            return Difference("past-end", p, i)
        if lines[p] != block_line:
            return Difference("changed", p, i)
    return None


def difference_hint(lines: list[str], needle: list[str], best: int,
                    difference: Difference) -> str:
    """The hint for a difference, in words a model (or a person) can act on."""
    p, i = difference.file_line, difference.block_line
    if difference.kind == "changed":
        return changed_line_hint(lines[p], needle[i], p, i)
    if difference.kind == "missing":
        return (f"the block leaves out line {p + 1} of the file, {quote(lines[p])}, which "
                f"comes after the block's line {i}")
    if difference.kind == "extra":
        where = f"between lines {p} and {p + 1}" if 0 < p < len(lines) else (
            "before line 1" if p == 0 else f"after line {len(lines)}, the file's last")
        return f"the block's line {i + 1}, {quote(needle[i])}, is not in the file {where}"
    return f"the closest match starts at line {best + 1} but runs past the file's end"


def changed_line_hint(file_line: str, block_line: str, line: int, block_index: int) -> str:
    """``did you mean line N?`` with both lines cut around the first differing column and a
    caret under it."""
    column = _first_differing_column(file_line, block_line)
    start = max(0, column - _BEFORE_COLUMN)
    shown_file, caret = _cut(file_line, start, column)
    shown_block, _ = _cut(block_line, start, column)
    labels = ("  file:  ", "  block: ")
    return (f"did you mean line {line + 1}? The block's line {block_index + 1} differs from it "
            f"at column {column + 1}:\n"
            f"{labels[0]}{shown_file}\n{labels[1]}{shown_block}\n"
            f"{' ' * (len(labels[0]) + caret)}^")


def _first_differing_column(a: str, b: str) -> int:
    for column, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return column
    return min(len(a), len(b))


def _cut(line: str, start: int, column: int) -> tuple[str, int]:
    """``line`` from ``start``, quoted and made visible (escapes for tabs and the like), at
    most :data:`_SHOWN_CHARS` characters; and where ``column`` falls in the result."""
    end = min(len(line), start + _SHOWN_CHARS)
    head = "'" + ("…" if start else "")
    shown = head + _visible(line[start:end]) + ("…" if end < len(line) else "") + "'"
    return shown, len(head) + len(_visible(line[start:column]))


def _visible(text: str) -> str:
    return "".join(ch if ch.isprintable() and ch != "\\" else repr(ch)[1:-1] for ch in text)


def quote(line: str, limit: int = _QUOTE_CHARS) -> str:
    return repr(line if len(line) <= limit else line[:limit] + "…")


def _any_text(lines: list[str]) -> bool:
    return any(strip_ws(line) for line in lines)
