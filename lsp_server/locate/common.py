"""What every locate policy shares: its inputs and answer, failures, and hunk helpers.

A locate policy finds where one block's text sits in a file's current lines and answers the
replacements that apply it (a :class:`Placement`), or raises :class:`BlockFailure` with a
diagnosis. It changes nothing: the planner applies the replacements.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from ..diagnosis import Diagnosis, diagnose
from ..matching import (
    EXACT_ONLY,
    LEVELS,
    WHITESPACE_LADDER,
    FileMatcher,
    apply_reindent,
    reindent_offset,
)
from ..model import Block, Hunk

# A replacement item: an int keeps that current line (text and origin), a str is new text.
Item = int | str
Replacement = tuple[int, int, list[Item]]  # replace current lines [start, end) by items


class BlockFailure(Exception):
    """A block cannot apply: its reason, estimated line, and diagnosis extras."""

    def __init__(
        self,
        reason: str,
        line: int | None = 0,
        *,
        hint: str | None = None,
        fixes: dict | None = None,
        context: list[tuple[int, str]] | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.hint = hint
        self.fixes = fixes or {}
        self.context = context or []

    @classmethod
    def from_diagnosis(cls, d: Diagnosis) -> BlockFailure:
        return cls(d.reason, d.line, hint=d.hint, fixes=d.fixes, context=d.context)


@dataclass(frozen=True, slots=True)
class LocateOptions:
    """How the caller asked blocks to be located.

    ``tolerant``: the whitespace tolerance level is allowed (``matching: "whitespace"``).
    ``forced_line``: the "Apply at closest match" quick fix's 0-based line for this block.
    """

    tolerant: bool = False
    forced_line: int | None = None

    @property
    def levels(self) -> tuple[str, ...]:
        return WHITESPACE_LADDER if self.tolerant else EXACT_ONLY


class Placement(NamedTuple):
    """Where a block applies: its replacements, its first line, how it matched (the worst
    level any of its parts needed; None when forced) and, for a unified diff, how many lines
    away from its header it applied."""

    replacements: list[Replacement]
    line: int
    match: str | None
    offset: int | None = None


LocatePolicy = Callable[[Block, FileMatcher, LocateOptions], Placement]

# A hunk-format block without hunks (a pure move) changes no text.
NO_TEXT_CHANGE = Placement([], 0, None, None)


def ambiguous_reason(starts: list[int]) -> str:
    return f"Edit location is ambiguous (matches at lines {starts[0] + 1} and {starts[1] + 1})"


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
                 tolerant_start: int | None = None,
                 placeable: bool = True) -> BlockFailure:
    """A failed hunk, diagnosed. ``placeable``: the hunk's old lines could not be found
    (so ``force_at`` can place them: offer ``closestLine``); False for an ``@@`` anchor
    or context line that is missing."""
    count = len(block.hunks or [])
    if count > 1:
        reason = f"{reason} (hunk {index + 1} of {count})"
    if ambiguous:
        return BlockFailure.from_diagnosis(
            diagnose(fm, needle, reason, ambiguous_start=ambiguous[0]))
    return BlockFailure.from_diagnosis(
        diagnose(fm, needle, reason, hint_line=hint_line, tolerant_start=tolerant_start,
                 allow_closest=placeable))


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
