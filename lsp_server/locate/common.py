"""What every locate policy shares: its inputs and answer, failures, and hunk helpers.

A locate policy finds where one block's text sits in a file's current lines and answers the
replacements that apply it (a :class:`Placement`), or raises :class:`BlockFailure` with a
diagnosis. It changes nothing: the planner applies the replacements.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from ..ambiguity import MAX_COUNTED, MAX_LISTED, candidate_words, places_diagnosis
from ..diagnosis import Diagnosis, diagnose
from ..matching import EXACT_ONLY, LEVELS, WHITESPACE_LADDER, FileMatcher
from ..model import Block, Hunk
from ..reindent import apply_reindent, reindent_offset

# A replacement item: an int keeps that current line (text and origin), a str is new text.
Item = int | str
Replacement = tuple[int, int, list[Item]]  # replace current lines [start, end) by items


class BlockFailure(Exception):
    """A block cannot apply: its reason, estimated line, and diagnosis extras.

    ``explain`` defers the diagnosis (window votes, fuzzy search: the costly part of a
    failure) until the failure is read: the already-applied check tries each failed block
    undone and drops that attempt's failure unread. ``ambiguous``: the text was found at
    several places (so it is in the file, and the block cannot be already applied)."""

    def __init__(
        self,
        reason: str = "",
        line: int = 0,
        *,
        hint: str | None = None,
        fixes: dict | None = None,
        context: list[tuple[int, str]] | None = None,
        explain: Callable[[], Diagnosis] | None = None,
        ambiguous: bool = False,
    ) -> None:
        super().__init__(reason)
        self._explain = explain
        self._diagnosis = Diagnosis(line, reason, hint, fixes or {}, context or [])
        self.ambiguous = ambiguous

    def diagnosis(self) -> Diagnosis:
        """The failure's diagnosis, made now if it was deferred."""
        if self._explain is not None:
            self._diagnosis, self._explain = self._explain(), None
        return self._diagnosis

    @property
    def reason(self) -> str:
        return self.diagnosis().reason

    @property
    def line(self) -> int:
        return self.diagnosis().line

    @property
    def hint(self) -> str | None:
        return self.diagnosis().hint

    @property
    def fixes(self) -> dict:
        return self.diagnosis().fixes

    @property
    def context(self) -> list[tuple[int, str]]:
        return self.diagnosis().context

    def __str__(self) -> str:
        return self.reason


class ChosenPlace(int):
    """A ``force_at`` line chosen among the places an ambiguous block matches (the ``at``
    quick fix), unlike a plain forced line (the closest-match fix: placed whatever the
    content): the block is placed there only while the line is still the ``nth`` (0-based)
    of those places, found as its diagnosis found them, so an edit that moved the places
    (lines added above) cannot slide the block onto another copy of its text. A line
    block's whole text; in a hunk format, hunk ``hunk`` (its ``@@`` anchor or context line
    if it has one, else its old lines), the hunks before it located as usual and the ones
    after it from there on. A plain int subclass so that ``plan_edits(force_at=...)``
    carries it unchanged."""

    nth: int
    hunk: int | None

    def __new__(cls, line: int, nth: int, hunk: int | None = None) -> ChosenPlace:
        place = super().__new__(cls, line)
        place.nth = nth
        place.hunk = hunk
        return place

    def __repr__(self) -> str:
        return f"ChosenPlace({int(self)}, nth={self.nth}, hunk={self.hunk})"


class LocateOptions:
    """How the caller asked blocks to be located, the same for every block of a plan.

    ``tolerant``: the whitespace tolerance level is allowed (``matching: "whitespace"``).
    ``force_at``: block index -> the 0-based line the "Apply at closest match" quick fix
    places that block at, or a :class:`ChosenPlace` (the ``at`` quick fix).
    """

    __slots__ = ("force_at", "levels", "tolerant")

    def __init__(self, tolerant: bool = False, force_at: Mapping[int, int] | None = None) -> None:
        self.tolerant = tolerant
        self.levels: tuple[str, ...] = WHITESPACE_LADDER if tolerant else EXACT_ONLY
        self.force_at: Mapping[int, int] = force_at or {}

    def forced_line(self, block: Block) -> int | None:
        """The line to place the block at whatever the content (not a chosen place)."""
        line = self.force_at.get(block.index)
        return None if isinstance(line, ChosenPlace) else line

    def chosen_place(self, block: Block) -> ChosenPlace | None:
        line = self.force_at.get(block.index)
        return line if isinstance(line, ChosenPlace) else None

    def chosen_for_hunk(self, block: Block, index: int) -> ChosenPlace | None:
        """The chosen place of hunk ``index`` of the block, if that hunk is the chosen one."""
        chosen = self.chosen_place(block)
        return chosen if chosen is not None and chosen.hunk == index else None


class Placement(NamedTuple):
    """Where a block applies: its replacements, its first line, how it matched (the worst
    level any of its parts needed; None when forced) and, for a unified diff, how many lines
    away from its header it applied."""

    replacements: list[Replacement]
    line: int
    match: str | None
    offset: int | None = None


LocatePolicy = Callable[[Block, FileMatcher, LocateOptions], Placement]


class PlacedHunks:
    """A hunk block's replacements as its hunks are placed in order: the block's line is
    where its first hunk (or ``@@`` context line) was placed, its match the worst level any
    of them needed."""

    __slots__ = ("first_line", "match", "replacements")

    def __init__(self) -> None:
        self.replacements: list[Replacement] = []
        self.first_line: int | None = None
        self.match: str | None = "exact"

    def note(self, line: int, level: str | None = None) -> None:
        """Something of the block was found at ``line`` (at ``level``; None: placed)."""
        if self.first_line is None:
            self.first_line = line
        if level:
            self.match = worst_level(self.match, level)

    def add(self, start: int, end: int, items: list[Item], level: str | None = None,
            *, line: int | None = None) -> None:
        """Replace ``[start, end)`` by ``items``; the hunk's line is ``start`` unless given."""
        self.replacements.append((start, end, items))
        self.note(start if line is None else line, level)

    def placement(self, offset: int | None = None) -> Placement:
        return Placement(self.replacements, self.first_line or 0, self.match, offset)

# A hunk-format block without hunks (a pure move) changes no text.
NO_TEXT_CHANGE = Placement([], 0, None, None)


def changes_no_line(placement: Placement, lines: list[str]) -> bool:
    """Applying the placement to ``lines`` leaves every line as it is (a block whose old and
    new text are the same). Stops at the first line it changes, usually the first few."""
    for start, end, items in placement.replacements:
        if len(items) != end - start:
            return False
        for at, item in enumerate(items, start):
            if item != at if isinstance(item, int) else item != lines[at]:
                return False
    return True


def common_ends(old: list[str], new: list[str]) -> tuple[int, int]:
    """How many leading and trailing lines old and new share (not overlapping)."""
    p = 0
    while p < len(old) and p < len(new) and old[p] == new[p]:
        p += 1
    s = 0
    while s < len(old) - p and s < len(new) - p and old[-1 - s] == new[-1 - s]:
        s += 1
    return p, s


def worst_level(a: str | None, b: str | None) -> str | None:
    """The looser of two match levels (None: not known yet)."""
    if a is None:
        return b
    if b is None:
        return a
    return a if LEVELS.index(a) >= LEVELS.index(b) else b


def hunk_items(start: int, hunk_lines: list[tuple[str, str]],
               reindent: tuple[str, str] | None) -> list[Item]:
    """Items for one located hunk: context kept (file text), ``-`` dropped, ``+`` written."""
    items: list[Item] = []
    p = start
    for kind, text in hunk_lines:
        if kind == "+":
            items.append(apply_reindent(text, reindent))
        else:
            if kind == " ":
                items.append(p)
            p += 1
    return items


def hunk_reindent(level: str | None, hunk: Hunk, fm: FileMatcher,
                  start: int) -> tuple[str, str] | None:
    """A hunk matched at the whitespace level writes its added lines at the file's indent."""
    if level != "whitespace":
        return None
    old = hunk.old
    return reindent_offset(old, fm.lines[start : start + len(old)])


def hunk_suffix(block: Block, index: int) -> str:
    """`` (hunk 2 of 3)`` for a block of several hunks, else nothing."""
    count = len(block.hunks or [])
    return f" (hunk {index + 1} of {count})" if count > 1 else ""


def hunk_failure(fm: FileMatcher, block: Block, index: int, reason: str,
                 needle: list[str], *, hint_line: int | None = None,
                 find_tolerant: Callable[[], int | None] | None = None,
                 placeable: bool = True) -> BlockFailure:
    """A failed hunk, diagnosed when the failure is read. ``find_tolerant``: the one place
    it matches ignoring surrounding whitespace, if any (asked only then); ``placeable``: the
    hunk's old lines could not be found (so ``force_at`` can place them: offer
    ``closestLine``); False for an ``@@`` anchor or context line that is missing."""
    reason += hunk_suffix(block, index)

    def explain() -> Diagnosis:
        tolerant_start = find_tolerant() if find_tolerant is not None else None
        return diagnose(fm, needle, reason, hint_line=hint_line, tolerant_start=tolerant_start,
                        allow_closest=placeable)

    return BlockFailure(reason, explain=explain)


def ambiguous_hunk(fm: FileMatcher, block: Block, index: int, reason_at: Callable[[str], str],
                   first: list[int], places: Callable[[], list[int]],
                   length: int) -> BlockFailure:
    """Hunk ``index`` (``length`` lines looked for) matches at several places: ``first``
    holds the first two found; ``places`` finds every one (asked when the failure is read);
    ``reason_at`` words the reason around "lines 6, 12 and 20". The diagnosis offers them
    all as ``candidateLines`` of this hunk (``candidateHunk``)."""
    suffix = hunk_suffix(block, index)

    def explain() -> Diagnosis:
        return places_diagnosis(fm, places(), length, lambda words: reason_at(words) + suffix,
                                hunk=index)

    reason = reason_at(candidate_words(first[:MAX_LISTED], len(first))) + suffix
    return BlockFailure(reason, first[0], ambiguous=True, explain=explain)


def chosen_failure(fm: FileMatcher, block: Block, index: int | None, chosen: int,
                   needle: list[str], places: list[int]) -> BlockFailure:
    """The ``at`` fix's line is not the chosen place of the block's text (hunk ``index``'s,
    or the whole block's when None) any more: the file changed since the preview. Nothing
    is placed; the places it matches now, if any, are offered again."""
    suffix = "" if index is None else hunk_suffix(block, index)
    if not places:
        return BlockFailure(f"Line {chosen + 1} was chosen, but this block's text is no longer "
                            f"found; nothing was applied{suffix}", chosen)

    def reason_at(words: str) -> str:
        return (f"Line {chosen + 1} is no longer the place chosen: the places this block's "
                f"text matches moved (now {words}); nothing was applied, choose "
                f"again{suffix}")

    return BlockFailure(reason_at(candidate_words(places[:MAX_LISTED], len(places))),
                        places[0], ambiguous=True,
                        explain=lambda: places_diagnosis(fm, places, len(needle), reason_at,
                                                         hunk=index))


# Places of what a block looks for, in file order: (limit) -> up to that many.
Places = Callable[[int], list[int]]


def take_chosen(fm: FileMatcher, block: Block, index: int | None, chosen: ChosenPlace,
                needle: list[str], places: Places) -> int:
    """The chosen line, if it is still the ``chosen.nth`` of ``places`` (the places of
    ``needle``, hunk ``index``'s or the whole block's); else :func:`chosen_failure`."""
    found = places(chosen.nth + 1)
    if len(found) > chosen.nth and found[chosen.nth] == chosen:
        return chosen
    raise chosen_failure(fm, block, index, chosen, needle, places(MAX_COUNTED + 1))


def take_chosen_lines(fm: FileMatcher, block: Block, index: int | None, chosen: ChosenPlace,
                      needle: list[str], levels: tuple[str, ...],
                      start: int = 0) -> tuple[int, str | None]:
    """``needle`` at the chosen line among its places from ``start`` on, at the first level
    of ``levels`` that finds it at all (as its ambiguity was found), and that level."""
    level = fm.locate(needle, levels, start=start, limit=1).level
    if level is None:
        raise chosen_failure(fm, block, index, chosen, needle, [])
    line = take_chosen(fm, block, index, chosen, needle,
                       lambda limit: fm.find_all(needle, level, start, None, limit))
    return line, level


def tolerant_unique(fm: FileMatcher, options: LocateOptions, needle: list[str],
                    start: int) -> int | None:
    """In exact mode: the one place the needle matches ignoring surrounding whitespace."""
    if options.tolerant:
        return None
    found = fm.find_all(needle, "whitespace", start=start, limit=2)
    return found[0] if len(found) == 1 else None


class ForcedHunk:
    """``force_at`` for hunk formats: the first hunk of the block that cannot be located is
    placed at the given line, if that is at or after where its search began and it fits."""

    __slots__ = ("line", "used")

    def __init__(self, line: int | None) -> None:
        self.line = line
        self.used = False

    def take(self, fm: FileMatcher, old: list[str], start: int) -> int | None:
        forced = self.line
        if forced is None or self.used:
            return None
        if forced < start or forced + len(old) > len(fm.lines):
            return None
        self.used = True
        return forced
