"""Re-indenting a block matched with whitespace tolerance (docs/formats.md "Tolerance is
opt-in and visible"): the consistent indentation change between the block's lines and the file
lines they matched, and applying it to the lines the block inserts."""

from __future__ import annotations

from .matching import WHITESPACE, strip_ws


def leading_ws(line: str) -> str:
    return line[: len(line) - len(line.lstrip(WHITESPACE))]


def reindent_offset(block_lines: list[str], file_lines: list[str]) -> tuple[str, str] | None:
    """The consistent indentation change between a block's lines and the file lines they
    matched (docs/formats.md re-indent rule), read from the non-blank pairs.

    Returns ``("add", s)`` when every file line's indentation is the block line's with
    ``s`` prepended, ``("remove", s)`` when it is the block line's with ``s`` removed, or
    None when the pairs disagree (or nothing differs: the empty offset)."""
    pairs = [
        (leading_ws(b), leading_ws(f))
        for b, f in zip(block_lines, file_lines, strict=False)
        if strip_ws(b) and strip_ws(f)
    ]
    if not pairs:
        return None
    for kind in ("add", "remove"):
        offset = _common_extra(pairs if kind == "add" else [(f, b) for b, f in pairs])
        if offset:
            return kind, offset
    return None


def _common_extra(pairs: list[tuple[str, str]]) -> str | None:
    """The one string every second indentation has prepended to the first, or None."""
    offset: str | None = None
    for shorter, longer in pairs:
        if not longer.endswith(shorter):
            return None
        extra = longer[: len(longer) - len(shorter)]
        if offset is None:
            offset = extra
        elif extra != offset:
            return None
    return offset


def apply_reindent(line: str, offset: tuple[str, str] | None) -> str:
    """Re-indent one inserted line; blank lines stay as written."""
    if offset is None or not strip_ws(line):
        return line
    kind, ws = offset
    if kind == "add":
        return ws + line
    return line[len(ws) :] if line.startswith(ws) else line
