"""Whether a block's *kept* text places it where its new text was found (docs/formats.md
"Statuses": ``already-applied`` means the new text is where the old text would have been).

``already_applied`` locates a failed block undone (old and new swapped); that search finds
the new text, and the new text alone proves nothing about where the old text was: a
``timeout = 60`` in another function is not the ``timeout = 30`` the block meant. So the place
is accepted only when what the block keeps puts it there on its own:

- its kept lines (anchors, context, lines equal in old and new) exactly;
- within a changed line, the words the change keeps: ``y = 2`` -> ``y = 20`` keeps ``y =``, so
  it is placed by the one line of the file starting with ``y =`` (and fails when two lines
  do: ``timeout = 45`` and ``timeout = 60`` both start with ``timeout =``). Only where the
  changed run has as many new lines as old ones, paired in order;
- a hunk's ``@@`` context line right above the change.

A :data:`Pattern` is the new text's window as the block describes it without its new words:
one entry per line, the kept line itself, a :class:`Shape` (the kept leading and trailing
words of a changed line), or None (a changed line that keeps nothing). It places the change
when it holds something to match and matches at exactly one place in what is left of the
file, or, under a hunk's ``@@`` line, first after that line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from ..matching import FileMatcher, normalize_lines, strip_ws
from ..model import Block, Hunk
from .common import Item, Placement, common_ends


class Shape(NamedTuple):
    """A changed line by the words its change keeps: the line's first and last words."""

    head: tuple[str, ...]
    tail: tuple[str, ...]

    def fits(self, line: str) -> bool:
        words = _words(line)
        n, h, t = len(words), len(self.head), len(self.tail)
        return n >= h + t and tuple(words[:h]) == self.head and (
            not t or tuple(words[n - t :]) == self.tail)

    def key(self) -> str:
        """Its longest word: every line it fits contains it."""
        return max(self.head + self.tail, key=len)


Pattern = list["str | Shape | None"]

_WORD = re.compile(r"\w+|[^\w\s]")
_CANDIDATES_PER_SEARCH = 1025  # one search finds them all, or more than MAX_CANDIDATES
# Candidate places looked at before a pattern counts as too common to place a change.
MAX_CANDIDATES = 1024


def _words(line: str) -> list[str]:
    return _WORD.findall(line)


def kept_lines_place(block: Block, undone_placement: Placement, fm: FileMatcher) -> bool:
    """Each change of ``undone_placement`` (the block undone, located) is put where it is by
    what the block keeps (see the module docstring)."""
    level = undone_placement.match or "exact"
    hunks: list[Hunk | None] = list(block.hunks or [None])
    region = 0
    for (start, end, items), hunk in zip(undone_placement.replacements, hunks, strict=False):
        pattern = window_pattern(fm.lines, start, end, items)
        anchor = _anchor_above(fm.lines, hunk, region, start)
        if anchor is not None:
            placed = _places(fm, pattern, level, anchor + 1, 1) == [start]
        else:
            placed = _holds_something(pattern) and (
                _places(fm, pattern, level, region, 2) == [start])
        if not placed:
            return False
        region = end
    return True


def window_pattern(lines: list[str], start: int, end: int, items: list[Item]) -> Pattern:
    """The pattern of the file's lines [start, end) that ``items`` (the undone block's
    replacement: ints for lines it keeps, strs for the old text it would write back) turns
    into the old text."""
    pattern: Pattern = []
    at = start
    old: list[str] = []
    for item in items:
        if isinstance(item, int):
            pattern += _changed(lines[at:item], old)
            pattern.append(lines[item])
            at, old = item + 1, []
        else:
            old.append(item)
    pattern += _changed(lines[at:end], old)
    return pattern


def _changed(new: list[str], old: list[str]) -> Pattern:
    """A run of changed lines: each paired with its old line when the counts agree."""
    if len(new) != len(old):
        return [None] * len(new)
    return [_shape(o, n) for o, n in zip(old, new, strict=True)]


def _shape(old: str, new: str) -> Shape | None:
    a, b = _words(old), _words(new)
    p, s = common_ends(a, b)
    if not p and not s:
        return None
    return Shape(tuple(b[:p]), tuple(b[len(b) - s :]))


def _holds_something(pattern: Pattern) -> bool:
    return any(isinstance(e, Shape) or (e is not None and e.strip()) for e in pattern)


def _anchor_above(lines: list[str], hunk: Hunk | None, region: int, start: int) -> int | None:
    """The line of the hunk's ``@@`` context line: the last one above ``start`` (the policy
    found it unique there and the hunk after it)."""
    anchor = strip_ws(hunk.anchor) if hunk is not None and hunk.anchor else ""
    if not anchor:
        return None
    for j in range(start - 1, region - 1, -1):
        if strip_ws(lines[j]) == anchor:
            return j
    return None


def _places(fm: FileMatcher, pattern: Pattern, level: str, start: int,
            limit: int) -> list[int]:
    """Up to ``limit`` starts, from ``start`` on, where ``pattern`` fits (kept lines at
    ``level``, shapes by their words, None anything). Past :data:`MAX_CANDIDATES` candidate
    places the pattern is too common to place anything: every place is reported unplaced
    (``[-1] * limit``), so the block is not counted as applied (never a wrong "applied")."""
    found: list[int] = []
    fits = _fitter(fm.lines, pattern, level)
    for tried, pos in enumerate(_candidates(fm, pattern, level, start)):
        if tried >= MAX_CANDIDATES:
            return [-1] * limit
        if pos >= start and fits(pos):
            found.append(pos)
            if len(found) >= limit:
                break
    return found


def _candidates(fm: FileMatcher, pattern: Pattern, level: str, start: int) -> Iterator[int]:
    """Starts worth checking, in order: where the pattern's longest run of kept lines
    matches, else where its first shape's key occurs, else every line."""
    run_at, run = _longest_kept_run(pattern)
    if run:
        search_from = start + run_at
        while True:
            hits = fm.find_all(run, level, search_from, None, _CANDIDATES_PER_SEARCH)
            yield from (hit - run_at for hit in hits)
            if len(hits) < _CANDIDATES_PER_SEARCH:
                return
            search_from = hits[-1] + 1
    shape_at = next((i for i, e in enumerate(pattern) if isinstance(e, Shape)), None)
    if shape_at is None:
        yield from range(start, len(fm.lines) - len(pattern) + 1)
        return
    shape = pattern[shape_at]
    assert isinstance(shape, Shape)
    yield from (line - shape_at for line in fm.lines_containing(shape.key(), start + shape_at))


def _longest_kept_run(pattern: Pattern) -> tuple[int, list[str]]:
    best_at, best, at = 0, 0, 0
    while at < len(pattern):
        if not isinstance(pattern[at], str):
            at += 1
            continue
        end = at
        while end < len(pattern) and isinstance(pattern[end], str):
            end += 1
        if end - at > best:
            best_at, best = at, end - at
        at = end
    return best_at, [e for e in pattern[best_at : best_at + best] if isinstance(e, str)]


def _fitter(lines: list[str], pattern: Pattern, level: str) -> Callable[[int], bool]:
    """A test of whether ``pattern`` fits ``lines`` at a start: kept lines first (compared at
    ``level``), then shapes, which split lines into words."""
    n = len(pattern)
    kept = [(i, normalize_lines([e], level)[0]) for i, e in enumerate(pattern)
            if isinstance(e, str)]
    shapes = [(i, e) for i, e in enumerate(pattern) if isinstance(e, Shape)]
    exact = level == "exact"

    def fits(pos: int) -> bool:
        if pos < 0 or pos + n > len(lines):
            return False
        for i, text in kept:
            line = lines[pos + i]
            if (line if exact else normalize_lines([line], level)[0]) != text:
                return False
        return all(shape.fits(lines[pos + i]) for i, shape in shapes)

    return fits
