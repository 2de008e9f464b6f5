"""Change annotations: every text edit and resource operation of a run names its block.

For clients advertising ``workspace.workspaceEdit.changeAnnotationSupport`` (and
``documentChanges``, the only form that carries them). Each block (or group of blocks whose
changes ended up in one edit) has one annotation: ``label`` "Block 3 · src/app.py ·
edit-v3" (numbered from 1, as users see blocks), ``description`` where the block is in the
response and how it matched, and ``needsConfirmation`` with ``options.confirm`` (VS Code then
opens its refactor preview, a checkbox per block). Ids are ``block-<index>`` (0-based, the
result's ``index``), ``blocks-<i>-<j>…`` for a group.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...block_spans import BlockSpans, operation_blocks
from ...model import BlockResult, FileEdit, PlanResult, ResourceOp
from ...results import JsonObject
from .client_features import ClientFeatures


def block_spans_for(features: ClientFeatures) -> BlockSpans | None:
    """A recorder of which block made which change, for clients that take annotations."""
    return BlockSpans() if features.change_annotations else None


def edit_annotations(plan: PlanResult, spans: BlockSpans | None,
                     *, confirm: bool) -> EditAnnotations | None:
    """The annotations of a plan recorded with ``spans`` (None when nothing was recorded)."""
    return None if spans is None else EditAnnotations(plan, spans, confirm=confirm)


class EditAnnotations:
    """The annotation ids of one plan's changes, and the annotations they name."""

    def __init__(self, plan: PlanResult, spans: BlockSpans, *, confirm: bool) -> None:
        self._spans = spans
        self._confirm = confirm
        self._blocks = {b.index: b for b in plan.blocks}
        self._operations = operation_blocks(plan)
        self.used: dict[str, JsonObject] = {}  # id -> ChangeAnnotation JSON, first use order

    def text_edit_ids(self, change: FileEdit) -> list[str | None]:
        """One id per text edit of ``change`` (None: no block is known for it)."""
        return [self._annotation(owners) for owners in self._spans.edit_blocks(change)]

    def operation_id(self, op: ResourceOp) -> str | None:
        owner = self._operations.get(id(op))
        return None if owner is None else self._annotation((owner,))

    def _annotation(self, owners: tuple[int, ...]) -> str | None:
        blocks = [self._blocks[i] for i in owners if i in self._blocks]
        if not blocks:
            return None
        ident = (f"block-{blocks[0].index}" if len(blocks) == 1
                 else "blocks-" + "-".join(str(b.index) for b in blocks))
        if ident not in self.used:
            self.used[ident] = annotation_json(blocks, confirm=self._confirm)
        return ident


def annotate_text_edits(edits: list[JsonObject], ids: list[str | None]) -> None:
    """Text edits' JSON become AnnotatedTextEdits (those a block is known for)."""
    for edit, ident in zip(edits, ids, strict=True):
        if ident is not None:
            edit["annotationId"] = ident


def annotate_operation(op_json: JsonObject, op: ResourceOp,
                       annotations: EditAnnotations | None) -> JsonObject:
    """A resource operation's JSON with its block's ``annotationId`` (when annotating)."""
    if annotations is not None:
        ident = annotations.operation_id(op)
        if ident is not None:
            op_json["annotationId"] = ident
    return op_json


def annotation_json(blocks: list[BlockResult], *, confirm: bool) -> JsonObject:
    """The ``ChangeAnnotation`` of one block, or of blocks whose changes share an edit."""
    numbers = ", ".join(str(b.index + 1) for b in blocks)
    files = _distinct(b.file for b in blocks)
    formats = _distinct(b.format for b in blocks)
    noun = "Block" if len(blocks) == 1 else "Blocks"
    annotation: JsonObject = {
        "label": f"{noun} {numbers} · {files} · {formats}",
        "description": "; ".join(_where(b) for b in blocks),
    }
    if confirm:
        annotation["needsConfirmation"] = True
    return annotation


def _where(block: BlockResult) -> str:
    where = f"response line {block.response_line + 1}"
    return f"{where}, {block.match} match" if block.match else where


def _distinct(values: Iterable[str]) -> str:
    return ", ".join(dict.fromkeys(values))


__all__ = ["EditAnnotations", "annotate_operation", "annotate_text_edits", "annotation_json",
           "block_spans_for", "edit_annotations"]
