"""Locate apply-patch (Codex) hunks: in order, each after the previous one, with Codex's
ladder of levels (exact, trailing whitespace, whitespace, unicode punctuation) and its
``@@ context line`` and ``*** End of File`` rules (docs/formats.md "apply-patch")."""

from __future__ import annotations

from itertools import pairwise

from ..matching import CODEX_LADDER, FileMatcher
from ..model import Block, Hunk
from .common import (
    NO_TEXT_CHANGE,
    BlockFailure,
    ForcedHunk,
    LocateOptions,
    PlacedHunks,
    Placement,
    Replacement,
    hunk_failure,
    hunk_items,
)


def locate_apply_patch(block: Block, fm: FileMatcher, options: LocateOptions) -> Placement:
    if not block.hunks:
        return NO_TEXT_CHANGE
    placed = PlacedHunks()
    line_index = 0
    forced = ForcedHunk(options.forced_line(block))
    for i, hunk in enumerate(block.hunks):
        anchored = bool(hunk.anchor and hunk.anchor.strip())
        if anchored:
            context_line, level = _context_line(fm, block, i, hunk, line_index)
            placed.note(context_line, level)
            line_index = context_line + 1
        hunk_lines = list(hunk.lines)
        old = [t for k, t in hunk_lines if k != "+"]
        if not old:
            pos = len(fm.lines) if hunk.end_of_file or not anchored else line_index
            placed.add(pos, pos, hunk_items(pos, hunk_lines, None))
            continue
        found, hunk_lines, old = _find_lines(fm, hunk, hunk_lines, old, line_index)
        if found is None:
            s, level = forced.take(fm, old, line_index), None
            if s is None:
                raise hunk_failure(fm, block, i, "Failed to find expected lines", old)
        else:
            s, level = found
        placed.add(s, s + len(old), hunk_items(s, hunk_lines, None), level)
        line_index = s + len(old)
    _check_overlap(placed.replacements)
    return placed.placement()


def _context_line(fm: FileMatcher, block: Block, index: int, hunk: Hunk,
                  start: int) -> tuple[int, str]:
    """The ``@@ context line`` at or after ``start``, and the level it matched at."""
    assert hunk.anchor is not None
    found = fm.seek([hunk.anchor], start, CODEX_LADDER)
    if found is None:
        raise hunk_failure(
            fm, block, index, f"Failed to find context {hunk.anchor.strip()!r}",
            [hunk.anchor, *hunk.old], placeable=False)
    return found


def _find_lines(fm: FileMatcher, hunk: Hunk, hunk_lines: list[tuple[str, str]],
                old: list[str], start: int,
                ) -> tuple[tuple[int, str] | None, list[tuple[str, str]], list[str]]:
    """The hunk's old lines at or after ``start``: where and at which level, with the hunk's
    lines as they matched."""
    found = fm.seek(old, start, CODEX_LADDER, eof=hunk.end_of_file)
    if found is None and hunk_lines and hunk_lines[-1] == (" ", ""):
        # Codex: a trailing empty context line may stand for the final newline.
        trimmed = hunk_lines[:-1]
        trimmed_old = [t for k, t in trimmed if k != "+"]
        if trimmed_old:
            found = fm.seek(trimmed_old, start, CODEX_LADDER, eof=hunk.end_of_file)
            if found is not None:
                return found, trimmed, trimmed_old
    return found, hunk_lines, old


def _check_overlap(reps: list[Replacement]) -> None:
    spans = sorted((s, e) for s, e, _ in reps)
    for (_s1, e1), (s2, _e2) in pairwise(spans):
        if s2 < e1:
            raise BlockFailure(f"Hunks overlap at line {s2 + 1}", s2)
