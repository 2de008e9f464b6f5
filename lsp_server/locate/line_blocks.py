"""Locate line blocks (edit-v3, edit-v2, search-replace, semantic-diff).

``anchor + old + trailing`` must match the file's lines at exactly one place (docs/formats.md
"Locating"); it becomes ``anchor + new + trailing``. Lines equal in old and new are kept, so
the edit sent to the editor is as small as the change.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from ..ambiguity import ambiguous_diagnosis, candidate_words
from ..diagnosis import Diagnosis, diagnose, line_block_reason
from ..matching import EXACT_ONLY, WHITESPACE_LADDER, FileMatcher
from ..model import Block
from ..reindent import apply_reindent, reindent_offset
from .common import (
    BlockFailure,
    Item,
    LocateOptions,
    Placement,
    common_ends,
    take_chosen_lines,
)

# Beyond this many old×new lines, a replaced region is not aligned line by line (difflib is
# quadratic); it is then replaced as one range, which is still correct, just less minimal.
_MAX_ALIGN_CELLS = 250_000


def locate_line_block(block: Block, fm: FileMatcher, options: LocateOptions) -> Placement:
    """edit-v3, edit-v2, search-replace: exact, or whitespace-tolerant when asked (then
    the new lines take the file's indentation)."""
    return _locate(block, fm, options, options.levels, reindent=True)


def locate_semantic_block(block: Block, fm: FileMatcher, options: LocateOptions) -> Placement:
    """semantic-diff: always whitespace-tolerant, and its new lines are written as given."""
    return _locate(block, fm, options, WHITESPACE_LADDER, reindent=False)


def _locate(block: Block, fm: FileMatcher, options: LocateOptions, levels: tuple[str, ...],
            *, reindent: bool) -> Placement:
    anchor, old, trailing, new = block.anchor, block.old, block.trailing, block.new
    needle = anchor + old + trailing
    if not needle:
        if not fm.lines:  # nothing to find in an empty file: fill it
            return Placement([(0, 0, list(new))], 0, "exact")
        raise BlockFailure(
            "Block has nothing to locate: its anchor and old lines are empty "
            "(use a create block for a new file)", 0)
    k = len(needle)
    forced = options.forced_line(block)
    chosen = options.chosen_place(block)
    if forced is not None:
        start, match = _forced_start(forced, k, len(fm.lines)), None
    elif chosen is not None:  # the at fix: one of the places it matches, if still one
        start, match = take_chosen_lines(fm, block, None, chosen, needle, levels)
    else:
        start, match = _find_needle(fm, block, needle, levels)
    offset = None
    if reindent and match == "whitespace":
        offset = reindent_offset(needle, fm.lines[start : start + k])
    old_start = start + len(anchor)
    items: list[Item] = list(range(start, old_start))
    items += _align(old_start, old, new, offset)
    items += list(range(old_start + len(old), start + k))
    return Placement([(start, start + k, items)], start, match)


def _forced_start(forced: int, k: int, line_count: int) -> int:
    """The quick fix's line, if the block's ``k`` lines fit there."""
    if not 0 <= forced <= line_count - k:
        raise BlockFailure(
            f"Cannot apply at line {forced + 1}: the block's {k} lines do not fit "
            "there", max(0, min(forced, line_count - 1)))
    return forced


def _find_needle(fm: FileMatcher, block: Block, needle: list[str],
                 levels: tuple[str, ...]) -> tuple[int, str | None]:
    """The one place the needle matches and at which level, or a failure (diagnosed when
    it is read)."""
    loc = fm.locate(needle, levels)
    starts = loc.starts
    if len(starts) >= 2:
        # Every place is named once the failure is read.
        reason = f"Edit location is ambiguous (matches at {candidate_words(starts, 2)})"
        raise BlockFailure(reason, starts[0], ambiguous=True,
                           explain=lambda: ambiguous_diagnosis(fm, needle, loc.level))
    if not starts:
        raise BlockFailure("Old lines not found in file",
                           explain=lambda: _not_found(fm, block, needle, levels))
    return starts[0], loc.level


def _not_found(fm: FileMatcher, block: Block, needle: list[str],
               levels: tuple[str, ...]) -> Diagnosis:
    """Which part of the block is missing, and where the block was probably meant to go."""
    reason = line_block_reason(fm, block.anchor, block.old, block.trailing, levels)
    tolerant_start = None
    if levels == EXACT_ONLY:
        tol = fm.find_all(needle, "whitespace", limit=2)
        if len(tol) == 1:
            tolerant_start = tol[0]
    return diagnose(fm, needle, reason, tolerant_start=tolerant_start)


def _align(start: int, old: list[str], new: list[str],
           reindent: tuple[str, str] | None) -> list[Item]:
    """Items for replacing file lines [start, start+len(old)) (matched by ``old``) with
    ``new``: lines equal in old and new are kept (the file's text), the rest is new text
    (re-indented when an offset is given)."""
    p, s = common_ends(old, new)
    items: list[Item] = list(range(start, start + p))
    items += _middle_items(start + p, old[p : len(old) - s], new[p : len(new) - s], reindent)
    items.extend(range(start + len(old) - s, start + len(old)))
    return items


def _middle_items(start: int, mid_old: list[str], mid_new: list[str],
                  reindent: tuple[str, str] | None) -> list[Item]:
    """Items for the differing middle (file lines from ``start``), aligned line by line."""
    # One line for one line needs no alignment: the trimming above already compared them.
    if (
        not mid_old
        or not mid_new
        or len(mid_old) + len(mid_new) <= 2
        or len(mid_old) * len(mid_new) > _MAX_ALIGN_CELLS
    ):
        return [apply_reindent(t, reindent) for t in mid_new]
    items: list[Item] = []
    matcher = SequenceMatcher(None, mid_old, mid_new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            items.extend(range(start + i1, start + i2))
        else:
            items.extend(apply_reindent(t, reindent) for t in mid_new[j1:j2])
    return items
