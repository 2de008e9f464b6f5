"""Locate unified-diff hunks: each at the match nearest its header's line (shifted by how far
the previous hunk moved), after the previous hunk (docs/formats.md "unified-diff")."""

from __future__ import annotations

from ..ambiguity import MAX_COUNTED
from ..matching import EXACT_ONLY, FileMatcher, Located, normalize_lines
from ..model import Block, Hunk
from .common import (
    NO_TEXT_CHANGE,
    ChosenPlace,
    ForcedHunk,
    LocateOptions,
    PlacedHunks,
    Placement,
    Places,
    ambiguous_hunk,
    hunk_failure,
    hunk_items,
    hunk_reindent,
    take_chosen,
)

# nearest: how many matches before the hint are enumerated before one reverse search of the
# level's index finds the last (that index costs a join of a changed file).
_FORWARD_BEFORE_HINT = 8


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
        chosen = options.chosen_for_hunk(block, i)  # the at fix's line is this hunk's
        if chosen is not None:
            s, level = _take_chosen(fm, block, i, old, hint, prev_end, options, chosen)
        else:
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
    loc, tie = nearest(fm, old, hint, options.levels, start=start)
    if tie:
        near = f", equally near the header's line {hint + 1}" if hint is not None else ""
        places = _places(fm, old, hint, start, loc, tie)
        raise ambiguous_hunk(
            fm, block, index, lambda words: f"Edit location is ambiguous (matches at {words})"
            f"{near}", places(2), lambda: places(MAX_COUNTED + 1), len(old))
    if loc.starts:
        return loc.starts[0], loc.level
    s = forced.take(fm, old, start)
    if s is None:
        raise hunk_failure(fm, block, index, "Hunk does not match the file", old,
                           hint_line=hint,
                           find_tolerant=lambda: _nearest_tolerant(fm, options, old, hint, start))
    return s, None


def _places(fm: FileMatcher, old: list[str], hint: int | None, start: int, loc: Located,
            tie: bool) -> Places:
    """The hunk's candidate places, as :func:`nearest` found them: with a header's line,
    the two equally near it (or the one nearest); without one, every place."""
    level = loc.level
    if level is None:
        return lambda limit: []
    if hint is None:
        return lambda limit: fm.find_all(old, level, start, None, limit)
    near = sorted(loc.starts[:2]) if tie else loc.starts[:1]
    return lambda limit: near[:limit]


def _take_chosen(fm: FileMatcher, block: Block, index: int, old: list[str], hint: int | None,
                 start: int, options: LocateOptions,
                 chosen: ChosenPlace) -> tuple[int, str | None]:
    """The at fix's line, if it is still the place it was among the hunk's candidates."""
    loc, tie = nearest(fm, old, hint, options.levels, start=start)
    line = take_chosen(fm, block, index, chosen, old, _places(fm, old, hint, start, loc, tie))
    return line, loc.level


def _nearest_tolerant(fm: FileMatcher, options: LocateOptions, old: list[str],
                      hint: int | None, start: int) -> int | None:
    """In exact mode: the match ignoring whitespace nearest the header's line, if one is."""
    if options.tolerant:
        return None
    tol, tie = nearest(fm, old, hint, ("whitespace",), start=start)
    return tol.starts[0] if tol.starts and not tie else None


def nearest(
    fm: FileMatcher,
    needle: list[str],
    hint: int | None,
    levels: tuple[str, ...] = EXACT_ONLY,
    start: int = 0,
) -> tuple[Located, bool]:
    """Unified-diff location: the match at or after ``start`` nearest ``hint``, at the
    first level finding any. Returns ``(Located, tie)``: ``Located`` holds the winner
    first (then the nearest on the other side of ``hint``, if any), ``tie`` is True when
    two matches are equally near (or there are several and no hint).

    The work is bounded whatever the number of matches: the first match at or after the
    hint and the last one before it are searched for, never every match (a ``-U0`` diff
    removing one blank line per hunk enumerated up to 10,000 blank lines per hunk)."""
    for level in levels:
        if hint is None or hint <= start:
            starts = fm.find_all(needle, level, start, None, 2)
            if starts:
                return Located(starts, level), hint is None and len(starts) > 1
            continue
        after = fm.find_all(needle, level, hint, None, 1)
        before = _last_before(fm, needle, level, start, hint, after)
        ranked = sorted([*before, *after], key=lambda s: (abs(s - hint), s))
        if ranked:
            tie = len(ranked) == 2 and abs(ranked[0] - hint) == abs(ranked[1] - hint)
            return Located(ranked, level), tie
    return Located([], None), False


def _last_before(fm: FileMatcher, needle: list[str], level: str, start: int, hint: int,
                 after: list[int]) -> list[int]:
    """The last match starting in [start, hint) no farther from ``hint`` than the match
    after it (``after``), as a list of at most one. A few matches are enumerated forward
    (usually none: the window ends at the hint); past that, one reverse search."""
    lo = max(start, 2 * hint - after[0]) if after else start
    end = hint + len(needle) - 1
    found = fm.find_all(needle, level, lo, end, _FORWARD_BEFORE_HINT)
    if len(found) < _FORWARD_BEFORE_HINT:
        return found[-1:]
    last = fm.index(level).find_last(normalize_lines(needle, level), lo, end)
    return [last] if last is not None else []
