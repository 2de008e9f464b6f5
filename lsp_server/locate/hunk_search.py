"""Uniqueness checks of one block's bare hunks without a scan of the file per hunk.

A hunk under a bare ``@@`` (apply-patch, hunk-patch) must match once in what is left of the
file after the previous hunk, so once its first match is found the search for a second one
runs to the end of the file: a block of 1,500 such hunks over a 10 MB file scanned the file
about 750 times over (``str.find``, most of the block's time).

:class:`HunkSearch` answers exactly what ``FileMatcher.locate`` answers. Its exact-level
searches scan the file (as ``FileMatcher`` does) until the block's searches have scanned it
:data:`SCANS_BEFORE_INDEX` times over; then it makes, once, the list of the lines where each
of the block's hunk lines occurs in the file (one pass, and only the block's own lines), and
a search takes the rarest of the needle's lines, the places it occurs at or after the start,
and compares the needle with the file there. A needle made of lines occurring very often
(more than :data:`MAX_INDEXED_CANDIDATES` places of its rarest line) is scanned for as before.
Other levels always scan. The index lives for one policy call over one version of the
file's lines, which nothing changes meanwhile: no state outlives the block.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from itertools import islice

from ..matching import FileMatcher, Located
from ..model import Hunk

SCANS_BEFORE_INDEX = 4  # the index costs about as much as a few scans of the file
MAX_INDEXED_CANDIDATES = 256  # places of the rarest line compared before scanning instead


class HunkSearch:
    """``FileMatcher.locate`` (two places at most) for the hunks of one block."""

    __slots__ = ("_fm", "_hunks", "_positions", "_scanned")

    def __init__(self, fm: FileMatcher, hunks: Iterable[Hunk]) -> None:
        self._fm = fm  # the file's lines as they are for the whole block
        self._hunks = hunks
        self._scanned = 0  # lines the exact searches scanned (at most), before the index
        self._positions: dict[str, list[int]] | None = None  # hunk line -> file lines

    @property
    def fm(self) -> FileMatcher:
        return self._fm

    def locate(self, needle: list[str], levels: tuple[str, ...], start: int = 0) -> Located:
        """The first level of ``levels`` finding ``needle`` at or after ``start`` decides:
        its first two places (one: unique), as ``FileMatcher.locate``."""
        fm = self._fm
        for level in levels:
            if level == "exact":
                starts = self._exact(needle, start)
            else:
                starts = fm.find_all(needle, level, start, None, 2)
            if starts:
                return Located(starts, level)
        return Located([], None)

    def _exact(self, needle: list[str], start: int) -> list[int]:
        fm = self._fm
        n = len(fm.lines)
        if self._positions is None:
            self._scanned += max(0, n - start)
            if self._scanned > SCANS_BEFORE_INDEX * n:
                self._positions = self._index()
        if self._positions is not None:
            found = self._from_index(self._positions, needle, start)
            if found is not None:
                return found
        return fm.find_all(needle, "exact", start, None, 2)

    def _index(self) -> dict[str, list[int]]:
        """Where each line of the block's hunks (context and removed lines, apply-patch's
        ``@@`` context lines) occurs in the file."""
        wanted = _searched_lines(self._hunks)
        positions: dict[str, list[int]] = {text: [] for text in wanted}
        for i, line in enumerate(self._fm.lines):
            if line in wanted:
                positions[line].append(i)
        return positions

    def _from_index(self, positions: dict[str, list[int]], needle: list[str],
                    start: int) -> list[int] | None:
        """The first two places of ``needle`` at or after ``start``, from the index; None
        when the index cannot tell cheaply (a line it does not hold, or a needle whose
        rarest line occurs too often)."""
        rarest = _rarest_line(positions, needle)
        if rarest is None:
            return None
        offset, places = rarest
        first = bisect_left(places, start + offset)
        if len(places) - first > MAX_INDEXED_CANDIDATES:
            return None
        lines = self._fm.lines
        k = len(needle)
        found: list[int] = []
        for place in islice(places, first, None):
            s = place - offset
            if s + k > len(lines):
                break
            if lines[s : s + k] == needle:
                found.append(s)
                if len(found) == 2:
                    break
        return found


def _searched_lines(hunks: Iterable[Hunk]) -> set[str]:
    """The lines a block's hunks look for. One holding a newline would match across file
    lines in a scan: never indexed (its needles are scanned for)."""
    wanted: set[str] = set()
    for hunk in hunks:
        wanted.update(text for kind, text in hunk.lines if kind != "+")
        if hunk.anchor is not None:
            wanted.add(hunk.anchor)
    return {text for text in wanted if "\n" not in text}


def _rarest_line(positions: dict[str, list[int]],
                 needle: list[str]) -> tuple[int, list[int]] | None:
    """The needle's line with the fewest places (its index in the needle, its places), or
    None when a line is not in the index (or the needle is empty)."""
    rarest: tuple[int, list[int]] | None = None
    for i, text in enumerate(needle):
        places = positions.get(text)
        if places is None:
            return None
        if rarest is None or len(places) < len(rarest[1]):
            rarest = (i, places)
    return rarest


__all__ = ["MAX_INDEXED_CANDIDATES", "SCANS_BEFORE_INDEX", "HunkSearch"]
