"""What the server may send a client, read once from its capabilities at ``initialize``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lsprotocol import types


def encoding_name(encoding: Any) -> str:
    """``"utf-8"``/``"utf-16"``/``"utf-32"`` from pygls's negotiated value (enum or string)."""
    name = str(getattr(encoding, "value", encoding) or "utf-16")
    return name if name in ("utf-8", "utf-32") else "utf-16"


@dataclass(frozen=True)
class ClientFeatures:
    """What the server may send this client (from its capabilities at ``initialize``)."""

    encoding: str = types.PositionEncodingKind.Utf16
    document_changes: bool = False
    resource_operations: frozenset[str] = frozenset()
    related_information: bool = False
    work_done_progress: bool = False
    apply_edit: bool = True
    # workspace.workspaceEdit.changeAnnotationSupport (annotations need documentChanges).
    change_annotations: bool = False
    # workspace.codeLens.refreshSupport: lenses of response documents are refreshed.
    code_lens_refresh: bool = False


def client_features(capabilities: types.ClientCapabilities | None, encoding: str) -> ClientFeatures:
    """Read the capabilities that change what the server sends."""
    caps = capabilities or types.ClientCapabilities()
    workspace_edit_caps = caps.workspace.workspace_edit if caps.workspace else None
    publish = caps.text_document.publish_diagnostics if caps.text_document else None
    return ClientFeatures(
        encoding=encoding_name(encoding),
        document_changes=bool(workspace_edit_caps and workspace_edit_caps.document_changes),
        resource_operations=frozenset(
            str(getattr(op, "value", op))
            for op in ((workspace_edit_caps and workspace_edit_caps.resource_operations) or [])
        ),
        related_information=bool(publish and publish.related_information),
        work_done_progress=bool(caps.window and caps.window.work_done_progress),
        apply_edit=bool(caps.workspace and caps.workspace.apply_edit),
        change_annotations=bool(workspace_edit_caps and workspace_edit_caps.document_changes
                                and workspace_edit_caps.change_annotation_support is not None),
        code_lens_refresh=bool(caps.workspace and caps.workspace.code_lens
                               and caps.workspace.code_lens.refresh_support),
    )
