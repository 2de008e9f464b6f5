"""Locate hunk-patch blocks: hunks in order, each found after the previous one, an
``@@ ANCHOR`` line narrowing where its hunk is looked for (docs/formats.md "hunk-patch")."""

from __future__ import annotations

from ..ambiguity import MAX_COUNTED
from ..matching import FileMatcher, strip_ws
from ..model import Block, Hunk
from .common import (
    NO_TEXT_CHANGE,
    ChosenPlace,
    ForcedHunk,
    LocateOptions,
    PlacedHunks,
    Placement,
    ambiguous_hunk,
    hunk_failure,
    hunk_items,
    hunk_reindent,
    take_chosen,
    take_chosen_lines,
    tolerant_unique,
)
from .hunk_search import HunkSearch


def locate_hunk_patch(block: Block, fm: FileMatcher, options: LocateOptions) -> Placement:
    if not block.hunks:
        return NO_TEXT_CHANGE
    placed = PlacedHunks()
    prev_end = 0
    forced = ForcedHunk(options.forced_line(block))
    search = HunkSearch(fm, block.hunks)  # uniqueness checks without a scan per hunk
    for i, hunk in enumerate(block.hunks):
        if not any(kind in "+-" for kind, _ in hunk.lines):
            raise hunk_failure(fm, block, i, "Hunk has no + or - line",
                               hunk.old or [hunk.anchor or ""], placeable=False)
        old = hunk.old
        chosen = options.chosen_for_hunk(block, i)  # the at fix's line is this hunk's
        anchor_line = None
        if hunk.anchor and hunk.anchor.strip():
            anchor_line = _anchor_line(fm, block, i, hunk.anchor, old, chosen)
        if not old:
            pos = _insertion_point(fm, block, i, hunk, anchor_line, prev_end)
            placed.add(pos, pos, hunk_items(pos, hunk.lines, None), line=anchor_line)
            continue
        if anchor_line is not None:
            s, level = _find_after_anchor(fm, block, i, old, max(anchor_line, prev_end),
                                          anchor_line, options, forced)
        elif chosen is not None:
            s, level = take_chosen_lines(fm, block, i, chosen, old, options.levels, prev_end)
        else:
            s, level = _find_unique(search, block, i, old, prev_end, options, forced)
        placed.add(s, s + len(old), hunk_items(s, hunk.lines, hunk_reindent(level, hunk, fm, s)),
                   level)
        prev_end = s + len(old)
    return placed.placement()


def _insertion_point(fm: FileMatcher, block: Block, index: int, hunk: Hunk,
                     anchor_line: int | None, prev_end: int) -> int:
    """A hunk of only ``+`` lines goes after its anchor line, or at the end of the file."""
    pos = anchor_line + 1 if anchor_line is not None else len(fm.lines)
    if pos < prev_end:
        raise hunk_failure(
            fm, block, index, "No match found: the insertion point lies before the "
            "previous hunk", [hunk.anchor or ""], placeable=False)
    return pos


def _find_after_anchor(fm: FileMatcher, block: Block, index: int, old: list[str], start: int,
                       anchor_line: int, options: LocateOptions,
                       forced: ForcedHunk) -> tuple[int, str | None]:
    """The first match at or after the anchor line (and the previous hunk's end)."""
    found = fm.seek(old, start, options.levels)
    if found is not None:
        return found
    s = forced.take(fm, old, start)
    if s is None:
        raise hunk_failure(fm, block, index, "No match found", old, hint_line=anchor_line,
                           find_tolerant=lambda: _first_tolerant(fm, options, old, start))
    return s, None


def _first_tolerant(fm: FileMatcher, options: LocateOptions, old: list[str],
                    start: int) -> int | None:
    """In exact mode: the first place after the anchor matching ignoring whitespace."""
    if options.tolerant:
        return None
    first = fm.find_all(old, "whitespace", start=start, limit=1)
    return first[0] if first else None


def _find_unique(search: HunkSearch, block: Block, index: int, old: list[str], start: int,
                 options: LocateOptions, forced: ForcedHunk) -> tuple[int, str | None]:
    """Without an anchor, the hunk must match at exactly one place after the previous one."""
    fm = search.fm
    loc = search.locate(old, options.levels, start)
    if len(loc.starts) >= 2:
        level = loc.level
        raise ambiguous_hunk(
            fm, block, index, lambda words: f"Found multiple matches ({words})", loc.starts,
            lambda: fm.find_all(old, level or "exact", start, None, MAX_COUNTED + 1), len(old))
    if loc.starts:
        return loc.starts[0], loc.level
    s = forced.take(fm, old, start)
    if s is None:
        raise hunk_failure(fm, block, index, "No match found", old,
                           find_tolerant=lambda: tolerant_unique(fm, options, old, start))
    return s, None


def _anchor_line(fm: FileMatcher, block: Block, index: int, anchor: str, needle: list[str],
                 chosen: ChosenPlace | None) -> int:
    """``@@ ANCHOR``: the one line equal to it ignoring surrounding whitespace, else the one
    line containing it (``chosen``: the at fix's line, if it is one of those)."""
    stripped = strip_ws(anchor)
    if chosen is not None:
        return take_chosen(fm, block, index, chosen, [anchor],
                           lambda limit: _anchor_places(fm, stripped, limit))
    equal = _anchor_places(fm, stripped, 2)
    if len(equal) == 1:
        return equal[0]
    if len(equal) >= 2:
        raise ambiguous_hunk(
            fm, block, index,
            lambda words: f"Found multiple matches for anchor {stripped!r} ({words})", equal,
            lambda: _anchor_places(fm, stripped, MAX_COUNTED + 1), 1)
    raise hunk_failure(fm, block, index, f"No match found for anchor {stripped!r}",
                       needle or [anchor], placeable=False)


def _anchor_places(fm: FileMatcher, stripped: str, limit: int) -> list[int]:
    """Up to ``limit`` lines equal to the anchor ignoring surrounding whitespace or, when
    there are none, containing it."""
    equal = fm.find_all([stripped], "whitespace", limit=limit)
    if equal:
        return equal
    containing: list[int] = []
    for line in fm.lines_containing(stripped):
        containing.append(line)
        if len(containing) == limit:
            break
    return containing
