"""Which block made which part of a plan's changes: for change annotations (the editor shows,
and may let the user untick, each block's edits).

A file's :class:`~lsp_server.model.FileEdit` is composed once, at the end of a plan, from
everything every block did to the file, as minimal edits against the original text
(``planning``). To say which block made an edit, :class:`BlockSpans` is told each block's
replacements as the planner makes them (``plan_edits(on_change=spans.record)``) and keeps
the stretch of *original* lines each one changed: between the last original line kept before
it and the first kept after it. A final edit belongs to the blocks whose stretches it
overlaps (two blocks whose changes touch end up in one edit, annotated with both).
Resource operations (create, rename, delete) are matched to the blocks that made them in
order. Nothing is recorded unless the caller asks (only for clients that take annotations).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING

from .model import OK_STATUSES, BlockResult, FileEdit, PlanResult, ResourceOp, TextEdit

if TYPE_CHECKING:
    from .locate import Replacement
    from .virtual_file import VFile

Pieces = list[tuple[int | None, int]]  # LineOrigins.pieces: (original start | None, length)


class BlockSpans:
    """Original-line stretches each block changed, by the path its edits address."""

    def __init__(self) -> None:
        self.spans: dict[Path, list[tuple[int, int, int]]] = {}  # path -> (start, end, block)

    def record(self, index: int, vf: VFile, replacements: list[Replacement]) -> None:
        """Block ``index`` replaces ``replacements`` (current lines, before the change) in
        ``vf``: remember the original lines each changes."""
        pieces = vf.origins.pieces
        count = len(vf.doc.lines) if vf.doc is not None else 0
        starts = list(accumulate(map(itemgetter(1), pieces), initial=0))
        spans = self.spans.setdefault(vf.edit_path, [])
        for start, end, items in replacements:
            changed = changed_lines(start, end, items)
            if changed is not None:
                spans.append((*original_bounds(pieces, starts, *changed, count), index))

    def edit_blocks(self, file_edit: FileEdit) -> list[tuple[int, ...]]:
        """For each text edit of ``file_edit``, the blocks that made it (sorted; may be
        empty when none was recorded)."""
        regions = [original_region(edit) for edit in file_edit.edits]
        owners: list[set[int]] = [set() for _ in regions]
        ends = [b for _, b in regions]  # edits are disjoint and in order: ends increase
        for p, q, index in self.spans.get(file_edit.path, []):
            i = bisect_left(ends, p)
            while i < len(regions) and regions[i][0] <= q:
                owners[i].add(index)
                i += 1
        return [tuple(sorted(found)) for found in owners]


def changed_lines(start: int, end: int, items: list) -> tuple[int, int] | None:
    """The current lines ``[start, end)`` really changed by a replacement, without the kept
    lines it starts and ends with (anchors, context); None when it changes nothing."""
    lead = 0
    while lead < len(items) and lead < end - start and items[lead] == start + lead:
        lead += 1
    trail = 0
    while (trail < len(items) - lead and trail < end - start - lead
           and items[-1 - trail] == end - 1 - trail):
        trail += 1
    if lead + trail == len(items) == end - start:
        return None
    return start + lead, end - trail


def original_bounds(pieces: Pieces, starts: list[int], lo: int, hi: int,
                    count: int) -> tuple[int, int]:
    """Original lines ``[p, q)`` around current lines ``[lo, hi)``: ``p`` follows the last
    kept original line before ``lo``, ``q`` is the first kept at or after ``hi``."""
    p = 0
    k = bisect_right(starts, lo - 1) - 1 if lo > 0 else -1
    while k >= 0:
        orig = pieces[k][0]
        if orig is not None and starts[k] < lo:
            p = orig + min(lo, starts[k + 1]) - starts[k]
            break
        k -= 1
    q = count
    k = bisect_right(starts, hi) - 1
    while 0 <= k < len(pieces):
        orig = pieces[k][0]
        if orig is not None and starts[k + 1] > hi:
            q = orig + max(hi, starts[k]) - starts[k]
            break
        k += 1
    return p, q


def original_region(edit: TextEdit) -> tuple[int, int]:
    """The original lines ``[a, b)`` a whole-line edit replaces. At the end of a file
    without a final newline an edit starts or ends at the end of a line
    (``file_text.segment_edit``): that line is not part of the region."""
    a = edit.start_line + (1 if edit.start_col else 0)
    b = edit.end_line + (1 if edit.end_col else 0)
    return a, max(a, b)


def operation_blocks(plan: PlanResult) -> dict[int, int]:
    """``id(op)`` of each resource operation of the plan → the block that made it: the
    planner adds them in block order, each from a block that applied, for that block's
    path."""
    owners: dict[int, int] = {}
    applied = [b for b in plan.blocks if b.status in OK_STATUSES and b.path is not None]
    position = 0
    for change in plan.changes:
        if not isinstance(change, ResourceOp):
            continue
        found = _next_for_path(applied, position, change.path)
        if found is not None:
            owners[id(change)] = applied[found].index
            position = found + 1
    return owners


def _next_for_path(blocks: list[BlockResult], position: int, path: Path) -> int | None:
    for i in range(position, len(blocks)):
        if blocks[i].path == path:
            return i
    return None


__all__ = ["BlockSpans", "changed_lines", "operation_blocks", "original_bounds",
           "original_region"]
