"""What every locate policy shares: its inputs and answer, failures, and hunk helpers.

A locate policy finds where one block's text sits in a file's current lines and answers the
replacements that apply it (a :class:`Placement`), or raises :class:`BlockFailure` with a
diagnosis. It changes nothing: the planner applies the replacements.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

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

    @classmethod
    def from_diagnosis(cls, d: Diagnosis) -> BlockFailure:
        return cls(d.reason, d.line, hint=d.hint, fixes=d.fixes, context=d.context)

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


class LocateOptions:
    """How the caller asked blocks to be located, the same for every block of a plan.

    ``tolerant``: the whitespace tolerance level is allowed (``matching: "whitespace"``).
    ``force_at``: block index -> the 0-based line the "Apply at closest match" quick fix
    places that block at.
    """

    __slots__ = ("force_at", "levels", "tolerant")

    def __init__(self, tolerant: bool = False, force_at: Mapping[int, int] | None = None) -> None:
        self.tolerant = tolerant
        self.levels: tuple[str, ...] = WHITESPACE_LADDER if tolerant else EXACT_ONLY
        self.force_at: Mapping[int, int] = force_at or {}

    def forced_line(self, block: Block) -> int | None:
        return self.force_at.get(block.index)


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


def ambiguous_reason(starts: list[int]) -> str:
    return f"Edit location is ambiguous (matches at lines {starts[0] + 1} and {starts[1] + 1})"


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


def hunk_failure(fm: FileMatcher, block: Block, index: int, reason: str,
                 needle: list[str], *, hint_line: int | None = None,
                 ambiguous: list[int] | None = None,
                 find_tolerant: Callable[[], int | None] | None = None,
                 placeable: bool = True, offer_first: bool = False) -> BlockFailure:
    """A failed hunk, diagnosed when the failure is read. ``ambiguous``: the places the hunk
    matched (``offer_first``: the quick fix may place it at the first, as Codex would);
    ``find_tolerant``: the one place it matches ignoring surrounding whitespace, if any
    (asked only then); ``placeable``: the hunk's old lines could not be found (so
    ``force_at`` can place them: offer ``closestLine``); False for an ``@@`` anchor or
    context line that is missing."""
    count = len(block.hunks or [])
    if count > 1:
        reason = f"{reason} (hunk {index + 1} of {count})"
    if ambiguous:
        starts = ambiguous

        def explain_ambiguous() -> Diagnosis:
            diagnosis = diagnose(fm, needle, reason, ambiguous_start=starts[0])
            if offer_first:
                diagnosis.fixes = {"closestLine": starts[0]}
            return diagnosis

        return BlockFailure(reason, starts[0], ambiguous=True, explain=explain_ambiguous)

    def explain() -> Diagnosis:
        tolerant_start = find_tolerant() if find_tolerant is not None else None
        return diagnose(fm, needle, reason, hint_line=hint_line, tolerant_start=tolerant_start,
                        allow_closest=placeable)

    return BlockFailure(reason, explain=explain)


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
