"""A plan's changes as one ``WorkspaceEdit`` for the client at hand.

With ``documentChanges`` (and the resource operations the client takes) when it can; else
the ``changes`` map, plus warnings naming what could not be expressed (a create, rename or
delete it cannot do, with the command that would).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ...model import FileEdit, ParseWarning, PlanResult, ResourceOp, TextEdit
from ...results import JsonObject, UriFor
from .change_annotations import EditAnnotations, annotate_operation, annotate_text_edits
from .client_features import ClientFeatures
from .positions import BOM, TextLines, client_position_json, code_units, split_lines
from .shown import shown

OK_STATUSES = frozenset({"applied", "validated"})

# The edit of a run's lines: given a changed file's path and original text, its TextLines
# (the server passes ones whose line count it keeps with the open buffer).
LinesFor = Callable[[Path, str], TextLines]


def _range_json(lines: Sequence[str], edit: TextEdit, encoding: str, shift: int) -> JsonObject:
    return {"start": client_position_json(lines, edit.start_line, edit.start_col, encoding, shift),
            "end": client_position_json(lines, edit.end_line, edit.end_col, encoding, shift)}


def _text_edits_json(
    file_edit: FileEdit, lines: TextLines, encoding: str, line0_shift: int
) -> list[JsonObject]:
    return [{"range": _range_json(lines, e, encoding, line0_shift), "newText": e.new_text}
            for e in file_edit.edits]


def _whole_text_edit_json(original: str, new_text: str, encoding: str, shift: int) -> JsonObject:
    """One edit replacing all of ``original`` (the model's text) by ``new_text``."""
    lines = split_lines(original)
    last = len(lines) - 1
    return {"range": {"start": client_position_json(lines, 0, 0, encoding, shift),
                      "end": client_position_json(lines, last, len(lines[last]), encoding, shift)},
            "newText": new_text}


def _block_line_for(plan: PlanResult, path: Path) -> int:
    """The response line of the last successful block that targets ``path`` (for warnings)."""
    lines = [b.response_line for b in plan.blocks if b.path == path and b.status in OK_STATUSES]
    return lines[-1] if lines else 0


def _resource_operation_json(op: ResourceOp, uri_for: UriFor,
                             annotations: EditAnnotations | None = None) -> JsonObject:
    if op.kind == "rename":
        assert op.new_path is not None, "a rename has a target"
        out = {"oldUri": uri_for(op.path), "newUri": uri_for(op.new_path), "kind": "rename"}
    else:
        out = {"uri": uri_for(op.path), "kind": op.kind}  # create, delete
    return annotate_operation(out, op, annotations)


def _unsent_operation_warning(op: ResourceOp, line: int, shown: Callable[[Path], str]
                              ) -> ParseWarning:
    """What the user must do by hand for a resource operation the client cannot take."""
    if op.kind == "create":
        return ParseWarning(line, (
            f"this editor cannot create files through LSP: {shown(op.path)} is "
            "sent as text for a new, unsaved buffer; save it to create the file"))
    if op.kind == "rename":
        target = shown(op.new_path) if op.new_path else "?"
        return ParseWarning(line, (
            f"this editor cannot rename files through LSP: {shown(op.path)} was not "
            f"moved to {target}; run `git mv {shown(op.path)} {target}`"))
    return ParseWarning(line, (
        f"this editor cannot delete files through LSP: {shown(op.path)} was not "
        f"deleted; run `git rm {shown(op.path)}`"))


def _shown_relative_to(root: Path | None) -> Callable[[Path], str]:
    """Paths for warnings: relative to ``root``, invisible characters escaped (a path with a
    bidi override or a zero-width character would read as another)."""
    def shown_path(path: Path) -> str:
        if root is not None:
            try:
                return shown(path.relative_to(root).as_posix())
            except ValueError:
                pass
        return shown(str(path))
    return shown_path


def workspace_edit_json(
    plan: PlanResult,
    features: ClientFeatures,
    uri_for: UriFor,
    bom_buffers: Iterable[Path] = (),
    root: Path | None = None,
    lines_for: LinesFor | None = None,
    annotations: EditAnnotations | None = None,
) -> tuple[JsonObject | None, list[ParseWarning]]:
    """The plan's changes as one WorkspaceEdit for this client (its JSON), and what it could
    not express.

    ``bom_buffers``: open buffers whose text starts with U+FEFF (the model's columns exclude
    it, the client's include it, so line-0 columns shift and no edit covers it). ``root``
    makes paths in warnings relative. ``lines_for`` gives a changed file's lines (default: a
    new :class:`TextLines` of its original text). ``annotations`` (clients taking change
    annotations, with ``documentChanges``): every text edit and resource operation gets its
    block's ``annotationId``, and the edit the ``changeAnnotations`` they name; without
    them the JSON is exactly as before. Returns ``(None, [])`` when nothing changes.

    The JSON is written out directly, as the protocol's converter writes a
    :class:`lsprotocol.types.WorkspaceEdit` (the unit tests read it back into that object):
    building thousands of attrs objects and walking them again costs more than planning
    a small run.
    """
    encoding = features.encoding
    bom_paths = set(bom_buffers)
    shift_units = code_units(BOM, encoding)
    shown = _shown_relative_to(root)
    warnings: list[ParseWarning] = []
    supported = features.resource_operations if features.document_changes else frozenset()
    document_changes: list[JsonObject] = []
    # The `changes` fallback: one entry per URI, each computed against the client's text.
    changes: dict[str, list[JsonObject]] = {}
    first_original: dict[str, tuple[str, int]] = {}

    if not features.document_changes:
        annotations = None  # `changes` cannot carry them
    for change in plan.changes:
        if isinstance(change, ResourceOp):
            if change.kind in supported:
                document_changes.append(_resource_operation_json(change, uri_for, annotations))
            else:
                warnings.append(_unsent_operation_warning(
                    change, _block_line_for(plan, change.path), shown))
            continue
        uri = uri_for(change.path)
        shift = shift_units if change.path in bom_paths else 0
        lines = (lines_for(change.path, change.original) if lines_for is not None
                 else TextLines(change.original))
        edits = _text_edits_json(change, lines, encoding, shift)
        if annotations is not None:
            annotate_text_edits(edits, annotations.text_edit_ids(change))
        if features.document_changes:
            document_changes.append({"textDocument": {"uri": uri, "version": change.version},
                                     "edits": edits})
        elif uri in changes:
            # A second edit of the same file cannot follow the first in `changes` (edits of
            # one URI all refer to the client's text): replace the whole text instead.
            original, first_shift = first_original[uri]
            changes[uri] = [_whole_text_edit_json(original, change.new_text, encoding,
                                                  first_shift)]
        else:
            first_original[uri] = (change.original, shift)
            changes[uri] = edits

    if features.document_changes:
        if not document_changes:
            return None, warnings
        if annotations is not None and annotations.used:
            return ({"documentChanges": document_changes,
                     "changeAnnotations": annotations.used}, warnings)
        return {"documentChanges": document_changes}, warnings
    return ({"changes": changes} if changes else None), warnings

