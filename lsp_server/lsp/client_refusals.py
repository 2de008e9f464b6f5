"""Blocks the server refuses after planning, for this client and these buffers.

The engine plans as if every change could be carried out; two kinds of change cannot be,
faithfully, here:

- **a delete of a file whose open buffer has unsaved changes**: the editor would discard the
  unsaved text with the file (VS Code does, without asking). Refused unless the buffer holds
  the text of the file on disk.
- **a path deleted or moved away and then written again**, for a client that cannot delete
  or rename files through LSP (the ``changes`` map, e.g. Neovim): the delete or move is not
  sent (a warning says to do it by hand), so the path still holds the old file when the new
  text arrives as an edit of it: the created file's text lands in the old file (delete then
  create concatenates them; a move then a create leaves the moved code nowhere).

The blocks involved fail with the reason, and the run is planned again without them, so
nothing they did is in the edit and the blocks after them see the files as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..model import Block, BlockResult, ParseResult, PlanResult, ResourceOp
from ..planning import plan_edits
from ..workspace import read_disk_file
from .file_reader import FileReader
from .protocol.client_features import ClientFeatures
from .protocol.positions import BOM
from .protocol.shown import shown

OK_STATUSES = frozenset({"validated", "applied"})

Refusals = dict[int, str]  # block index -> reason


def dirty_deletes(parsed: ParseResult, plan: PlanResult, reader: FileReader) -> Refusals:
    """Delete blocks whose file is open with text other than the file on disk."""
    deleted = {c.path for c in plan.changes if isinstance(c, ResourceOp) and c.kind == "delete"}
    refused: Refusals = {}
    for result, block in _ok_blocks(parsed, plan):
        if block.op != "delete" or result.path not in deleted:
            continue
        buffer = reader.buffer(result.path)
        if buffer is None:
            continue
        disk = read_disk_file(result.path, reader.max_file_bytes)
        if disk.text is None or disk.text.removeprefix(BOM) != buffer.text.removeprefix(BOM):
            refused[result.index] = (
                f"{shown(block.file)} has unsaved changes in the editor; deleting it would "
                "lose them: save or revert the buffer, then apply again")
    return refused


def written_after_leaving(parsed: ParseResult, plan: PlanResult,
                          features: ClientFeatures) -> Refusals:
    """For a client without the delete or rename operation: a block that deletes a path or
    moves it away (which is not sent) and every later block writing that path again."""
    sent = features.resource_operations if features.document_changes else frozenset()
    left: dict[Path, tuple[int, str]] = {}  # path -> (the block that left it, how)
    refused: Refusals = {}
    for result, block in _ok_blocks(parsed, plan):
        path = result.path
        if path in left:
            first, how = left[path]
            reason = (f"{shown(block.file)} is {how} by block {first + 1} and written again "
                      f"by block {result.index + 1}, but this editor cannot "
                      f"{'delete' if how == 'deleted' else 'rename'} files through LSP: the "
                      "new text would land in the old file. Do the "
                      f"{'delete' if how == 'deleted' else 'move'} by hand first, then apply "
                      "again")
            refused.setdefault(first, reason)
            refused[result.index] = reason
        elif block.op == "delete" and "delete" not in sent:
            left[path] = (result.index, "deleted")
        elif block.move_to and "rename" not in sent and _moves(plan, path):
            left[path] = (result.index, "moved away")
    return refused


def _moves(plan: PlanResult, path: Path) -> bool:
    return any(isinstance(c, ResourceOp) and c.kind == "rename" and c.path == path
               for c in plan.changes)


def _ok_blocks(parsed: ParseResult, plan: PlanResult) -> Iterable[tuple[BlockResult, Block]]:
    """The blocks that changed something, with their parsed blocks, in response order."""
    by_index = {block.index: block for block in parsed.blocks}
    for result in sorted(plan.blocks, key=lambda r: r.index):
        block = by_index.get(result.index)
        if block is not None and result.path is not None and result.status in OK_STATUSES:
            yield result, block


def refused_blocks(parsed: ParseResult, plan: PlanResult, reader: FileReader,
                   features: ClientFeatures) -> Refusals:
    """Every block :mod:`this module <lsp_server.lsp.client_refusals>` refuses in ``plan``."""
    if not any(isinstance(change, ResourceOp) for change in plan.changes):
        return {}  # the common case: nothing to look at
    refused = written_after_leaving(parsed, plan, features)
    for index, reason in dirty_deletes(parsed, plan, reader).items():
        refused.setdefault(index, reason)
    return refused


def _failed(result: BlockResult, reason: str) -> BlockResult:
    return BlockResult(result.index, result.file, result.format, "failed", reason=reason,
                       line=result.line or 0, response_line=result.response_line,
                       path=result.path, anchor_preview=result.anchor_preview,
                       old_preview=result.old_preview, new_preview=result.new_preview)


def plan_for_client(parsed: ParseResult, reader: FileReader, roots: list[Path],
                    features: ClientFeatures, *,
                    before_replanning: Callable[[], None] | None = None,
                    **planning: Any) -> PlanResult:
    """``plan_edits`` (a dry run), with the blocks :func:`refused_blocks` names failed and
    the rest planned again without them (until nothing more is refused). With ``atomic``
    nothing is applied then, as for any failed block. ``before_replanning`` is called
    before each new plan (a recorder of the first plan's changes starts again)."""
    plan = plan_edits(parsed, reader, roots, dry_run=True, **planning)
    refused = refused_blocks(parsed, plan, reader, features)
    if not refused:
        return plan
    results = {result.index: result for result in plan.blocks}
    only = planning.pop("only", None)
    wanted = set(only) if only is not None else {block.index for block in parsed.blocks}
    total: Refusals = {}
    while refused:
        total.update(refused)
        failed = {i: _failed(results[i], reason) for i, reason in total.items()}
        if planning.get("atomic"):
            plan.changes, plan.files_modified = [], []
            plan.blocks = [failed.get(r.index, r) for r in plan.blocks]
            return plan
        wanted -= set(refused)
        if before_replanning is not None:
            before_replanning()
        plan = plan_edits(parsed, reader, roots, dry_run=True, only=wanted, **planning)
        results.update({result.index: result for result in plan.blocks})
        plan.blocks = sorted([*plan.blocks, *failed.values()], key=lambda r: r.index)
        refused = {i: reason for i, reason in
                   refused_blocks(parsed, plan, reader, features).items() if i not in total}
    return plan


__all__ = ["dirty_deletes", "plan_for_client", "refused_blocks", "written_after_leaving"]
