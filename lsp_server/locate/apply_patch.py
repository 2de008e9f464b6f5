"""Locate apply-patch (Codex) hunks: in order, each after the previous one, with Codex's
ladder of levels (exact, trailing whitespace, whitespace, unicode punctuation) and its
``@@ context line`` and ``*** End of File`` rules (FORMATS.md "apply-patch").

Unlike Codex, nothing is taken from the first of several matches: an ``@@ context line``
must be unique in what is left of the file, and so must a hunk under a bare ``@@`` (a hunk
under a context line is the first match after it, as in hunk-patch).
"""

from __future__ import annotations

from itertools import pairwise

from ..ambiguity import ambiguous_places
from ..matching import CODEX_LADDER, WHITESPACE, FileMatcher, Located, strip_ws
from ..model import Block, Hunk
from .common import (
    NO_TEXT_CHANGE,
    BlockFailure,
    ChosenPlace,
    ForcedHunk,
    LocateOptions,
    PlacedHunks,
    Placement,
    Replacement,
    ambiguous_hunk,
    chosen_failure,
    hunk_failure,
    hunk_items,
    take_chosen,
    take_chosen_lines,
)
from .hunk_search import HunkSearch

HunkLines = list[tuple[str, str]]


def locate_apply_patch(block: Block, fm: FileMatcher, options: LocateOptions) -> Placement:
    if not block.hunks:
        if block.move_to is None:
            raise BlockFailure("Empty update: '*** Update File' has no hunk, so it changes "
                               "nothing (write the changes as @@ hunks)", 0)
        return NO_TEXT_CHANGE
    placed = PlacedHunks()
    line_index = 0
    forced = ForcedHunk(options.forced_line(block))
    search = HunkSearch(fm, block.hunks)  # uniqueness checks without a scan per hunk
    for i, hunk in enumerate(block.hunks):
        anchored = bool(hunk.anchor and hunk.anchor.strip(WHITESPACE))
        chosen = options.chosen_for_hunk(block, i)  # the at fix's line is this hunk's
        if anchored:
            context_line, level = _context_line(fm, search, block, i, hunk, line_index,
                                                chosen)
            placed.note(context_line, level)
            line_index = context_line + 1
        hunk_lines = list(hunk.lines)
        old = [t for k, t in hunk_lines if k != "+"]
        if not old:
            pos = len(fm.lines) if hunk.end_of_file or not anchored else line_index
            placed.add(pos, pos, hunk_items(pos, hunk_lines, None))
            continue
        found, hunk_lines, old = _find_lines(fm, search, hunk, hunk_lines, old, line_index,
                                             unique=not anchored)
        if chosen is not None and not anchored:
            s, level = _take_chosen(fm, block, i, found, old, line_index, chosen)
        else:
            s, level = _take(fm, block, i, found, old, line_index, forced)
        placed.add(s, s + len(old), hunk_items(s, hunk_lines, None), level)
        line_index = s + len(old)
    _check_overlap(placed.replacements)
    return placed.placement()


def _context_line(fm: FileMatcher, search: HunkSearch, block: Block, index: int, hunk: Hunk,
                  start: int, chosen: ChosenPlace | None) -> tuple[int, str | None]:
    """The ``@@ context line``, unique at or after ``start`` (or at the at fix's line, if it
    is one of its places), and the level it matched at."""
    assert hunk.anchor is not None
    anchor = hunk.anchor
    if chosen is not None:
        return take_chosen_lines(fm, block, index, chosen, [anchor], CODEX_LADDER, start)
    context = strip_ws(anchor)
    found = search.locate([anchor], CODEX_LADDER, start)
    if len(found.starts) >= 2:
        level = found.level
        raise ambiguous_hunk(
            fm, block, index, lambda words: f"Found multiple matches for context {context!r} "
            f"({words}): it must occur once after the previous hunk", found.starts,
            lambda: ambiguous_places(fm, [anchor], level, start), 1)
    if not found.starts or found.level is None:
        raise hunk_failure(
            fm, block, index, f"Failed to find context {context!r}",
            [hunk.anchor, *hunk.old], placeable=False)
    return found.starts[0], found.level


def _find_lines(fm: FileMatcher, search: HunkSearch, hunk: Hunk, hunk_lines: HunkLines,
                old: list[str], start: int, *,
                unique: bool) -> tuple[Located, HunkLines, list[str]]:
    """The hunk's old lines at or after ``start`` (the first match, or every match when
    they must be ``unique``), with the hunk's lines as they matched."""
    found = _search(fm, search, old, start, hunk.end_of_file, unique)
    if not found.starts and hunk_lines and hunk_lines[-1] == (" ", ""):
        # Codex: a trailing empty context line may stand for the final newline.
        trimmed = hunk_lines[:-1]
        trimmed_old = [t for k, t in trimmed if k != "+"]
        if trimmed_old:
            retried = _search(fm, search, trimmed_old, start, hunk.end_of_file, unique)
            if retried.starts:
                return retried, trimmed, trimmed_old
    return found, hunk_lines, old


def _search(fm: FileMatcher, search: HunkSearch, old: list[str], start: int, eof: bool,
            unique: bool) -> Located:
    """``*** End of File`` first looks at the end of the file; then the first level that
    finds the lines decides (Codex's ladder)."""
    if eof:
        at_end = fm.at_end(old, start, CODEX_LADDER)
        if at_end is not None:
            return Located([at_end[0]], at_end[1])
    if unique:
        return search.locate(old, CODEX_LADDER, start)
    first = fm.seek(old, start, CODEX_LADDER)
    return Located([first[0]], first[1]) if first is not None else Located([], None)


def _take(fm: FileMatcher, block: Block, index: int, found: Located, old: list[str],
          start: int, forced: ForcedHunk) -> tuple[int, str | None]:
    """Where the hunk goes: its one match, else the quick fix's line, else a failure."""
    if found.unique:
        return found.starts[0], found.level
    s = forced.take(fm, old, start)
    if s is not None:
        return s, None
    if found.starts:
        level = found.level
        raise ambiguous_hunk(
            fm, block, index, lambda words: f"Found multiple matches ({words}): under a "
            "bare @@ the hunk must occur once after the previous hunk; add an @@ context "
            "line or more context", found.starts,
            lambda: ambiguous_places(fm, old, level, start), len(old))
    raise hunk_failure(fm, block, index, "Failed to find expected lines", old)


def _take_chosen(fm: FileMatcher, block: Block, index: int, found: Located, old: list[str],
                 start: int, chosen: ChosenPlace) -> tuple[int, str | None]:
    """The at fix's line, if the hunk's lines (as they matched) are at it, at the level
    that found them."""
    level = found.level
    if level is None:
        raise chosen_failure(fm, block, index, chosen, old, [])
    return take_chosen(fm, block, index, chosen, old,
                       lambda limit: fm.find_all(old, level, start, None, limit)), level


def _check_overlap(reps: list[Replacement]) -> None:
    spans = sorted((s, e) for s, e, _ in reps)
    for (_s1, e1), (s2, _e2) in pairwise(spans):
        if s2 < e1:
            raise BlockFailure(f"Hunks overlap at line {s2 + 1}", s2)
