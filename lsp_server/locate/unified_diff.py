"""Locate unified-diff hunks: each at the match nearest its header's line (shifted by how far
the previous hunk moved), after the previous hunk (docs/formats.md "unified-diff")."""

from __future__ import annotations

from ..matching import FileMatcher
from ..model import Block, Hunk
from .common import (
    NO_TEXT_CHANGE,
    ForcedHunk,
    LocateOptions,
    PlacedHunks,
    Placement,
    ambiguous_reason,
    hunk_failure,
    hunk_items,
    hunk_reindent,
)


def locate_unified_diff(block: Block, fm: FileMatcher, options: LocateOptions) -> Placement:
    if not block.hunks:
        return NO_TEXT_CHANGE
    placed = PlacedHunks()
    prev_end = 0
    prev_offset = 0
    block_offset: int | None = None
    forced = ForcedHunk(options.forced_line(block))
    for i, hunk in enumerate(block.hunks):
        old = hunk.old
        if not old:
            pos = _insertion_point(hunk, prev_offset, prev_end, len(fm.lines))
            placed.add(pos, pos, hunk_items(pos, hunk.lines, None))
            continue
        header = hunk.old_start - 1 if hunk.old_start is not None else None
        hint = header + prev_offset if header is not None else None
        s, level = _find_nearest(fm, block, i, old, hint, prev_end, options, forced)
        placed.add(s, s + len(old), hunk_items(s, hunk.lines, hunk_reindent(level, hunk, fm, s)),
                   level)
        if header is not None:
            prev_offset = s - header
            if prev_offset and block_offset is None:
                block_offset = prev_offset
        prev_end = s + len(old)
    return placed.placement(block_offset)


def _insertion_point(hunk: Hunk, prev_offset: int, prev_end: int, line_count: int) -> int:
    """``-l,0``: insert after old line l (1-based), shifted like the others."""
    pos = (hunk.old_start + prev_offset) if hunk.old_start is not None else line_count
    return max(prev_end, min(pos, line_count))


def _find_nearest(fm: FileMatcher, block: Block, index: int, old: list[str],
                  hint: int | None, start: int, options: LocateOptions,
                  forced: ForcedHunk) -> tuple[int, str | None]:
    """The match nearest the header's line at or after ``start``; a tie is ambiguous."""
    loc, tie = fm.nearest(old, hint, options.levels, start=start)
    if tie:
        near = f", equally near the header's line {hint + 1}" if hint is not None else ""
        raise hunk_failure(fm, block, index, ambiguous_reason(loc.starts) + near, old,
                           ambiguous=loc.starts)
    if loc.starts:
        return loc.starts[0], loc.level
    s = forced.take(fm, old, start)
    if s is None:
        raise hunk_failure(fm, block, index, "Hunk does not match the file", old,
                           hint_line=hint,
                           find_tolerant=lambda: _nearest_tolerant(fm, options, old, hint, start))
    return s, None


def _nearest_tolerant(fm: FileMatcher, options: LocateOptions, old: list[str],
                      hint: int | None, start: int) -> int | None:
    """In exact mode: the match ignoring whitespace nearest the header's line, if one is."""
    if options.tolerant:
        return None
    tol, tie = fm.nearest(old, hint, ("whitespace",), start=start)
    return tol.starts[0] if tol.starts and not tie else None
