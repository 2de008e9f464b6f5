"""A test editor over a pytest-lsp client: what an end-to-end test sees of the server.

:class:`Editor` opens buffers with didOpen/didChange, answers ``workspace/applyEdit`` like a
real editor (refusing an edit computed for an older buffer version, applying text edits in the
negotiated position encoding with its own code, creating, renaming and deleting files), and
keeps the texts so tests assert on what the user would see. The client is pytest-lsp's (the
``client`` fixture of a test, started with the server over stdio).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient

from .positions import apply_text_edits, end_position


class Editor:
    """A minimal editor on top of the pytest-lsp client."""

    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.client = client
        self.root = root
        self.encoding = "utf-16"
        self.buffers: dict[str, tuple[str, int]] = {}  # uri → (text, version)
        self.apply_requests: list[types.ApplyWorkspaceEditParams] = []
        self.type_during_apply: tuple[str, str] | None = None  # (rel, text) typed meanwhile

        def on_apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            return self._on_apply_edit(params)

        client.feature(types.WORKSPACE_APPLY_EDIT)(on_apply_edit)
        read_code_actions_correctly(client)

    async def start(self, capabilities: types.ClientCapabilities | None = None,
                    initialization_options: Any = None,
                    trace: types.TraceValue | None = None) -> types.InitializeResult:
        caps = capabilities or types.ClientCapabilities(
            general=types.GeneralClientCapabilities(position_encodings=["utf-16"]),
            workspace=types.WorkspaceClientCapabilities(
                apply_edit=True,
                workspace_edit=types.WorkspaceEditClientCapabilities(
                    document_changes=True,
                    resource_operations=[types.ResourceOperationKind.Create,
                                         types.ResourceOperationKind.Rename,
                                         types.ResourceOperationKind.Delete])),
            text_document=types.TextDocumentClientCapabilities(
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                    related_information=True)),
        )
        result = await self.client.initialize_session(types.InitializeParams(
            capabilities=caps, root_uri=self.root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name="ws")],
            initialization_options=initialization_options, trace=trace))
        self.encoding = str(getattr(result.capabilities.position_encoding, "value",
                                    result.capabilities.position_encoding or "utf-16"))
        return result

    def uri(self, rel: str) -> str:
        return (self.root / rel).as_uri()

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))

    def open(self, rel: str, text: str | None = None) -> str:
        """Open ``rel`` (its disk text); ``text`` becomes its unsaved buffer content."""
        uri = self.uri(rel)
        disk = (self.root / rel).read_text(encoding="utf-8") if (self.root / rel).exists() else ""
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="plaintext", version=1,
                                                 text=disk)))
        self.buffers[uri] = (disk, 1)
        if text is not None:
            self.type(rel, text)
        return uri

    def type(self, rel: str, text: str) -> None:
        """Replace the buffer's text with one incremental change (unsaved)."""
        uri = self.uri(rel)
        old, version = self.buffers[uri]
        end = end_position(old, self.encoding)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=0, character=0), end=end),
                text=text)]))
        self.buffers[uri] = (text, version + 1)

    def close(self, rel: str) -> None:
        uri = self.uri(rel)
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        del self.buffers[uri]

    def text(self, rel: str) -> str | None:
        uri = self.uri(rel)
        if uri in self.buffers:
            return self.buffers[uri][0]
        path = self.root / rel
        return path.read_text(encoding="utf-8") if path.exists() else None

    async def run(self, command: str, argument: Any = None) -> Any:
        return await self.client.workspace_execute_command_async(types.ExecuteCommandParams(
            command=command, arguments=None if argument is None else [argument]))

    def diagnostics(self, rel_or_uri: str) -> list[types.Diagnostic]:
        uri = rel_or_uri if ":" in rel_or_uri else self.uri(rel_or_uri)
        return list(self.client.diagnostics.get(uri, []))

    # -- workspace/applyEdit, as an editor answers it

    def _on_apply_edit(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        self.apply_requests.append(params)
        if self.type_during_apply is not None:  # the user typed while the server worked
            rel, text = self.type_during_apply
            self.type_during_apply = None
            self.type(rel, text)
        edit = params.edit
        steps: list[Any] = list(edit.document_changes or [])
        for uri, edits in (edit.changes or {}).items():
            steps.append(types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                edits=edits))
        for step in steps:  # all-or-nothing on stale versions, as VS Code does
            if isinstance(step, types.TextDocumentEdit):
                uri, version = step.text_document.uri, step.text_document.version
                if version is not None and self.buffers.get(uri, (None, None))[1] != version:
                    return types.ApplyWorkspaceEditResult(
                        applied=False, failure_reason=f"{uri} changed: version {version} is stale")
        for step in steps:
            self._apply_step(step)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _apply_step(self, step: Any) -> None:
        if isinstance(step, types.CreateFile):
            Path(to_fs_path(step.uri)).write_text("")
        elif isinstance(step, types.RenameFile):
            os.rename(to_fs_path(step.old_uri), to_fs_path(step.new_uri))
        elif isinstance(step, types.DeleteFile):
            os.unlink(to_fs_path(step.uri))
        else:
            uri = step.text_document.uri
            if uri in self.buffers:
                new = apply_text_edits(self.buffers[uri][0], step.edits, self.encoding)
                rel = Path(to_fs_path(uri)).relative_to(self.root).as_posix()
                self.type(rel, new)  # the editor reports its own change back
            else:
                path = Path(to_fs_path(uri))
                old = path.read_text(encoding="utf-8") if path.exists() else ""
                bom = old.startswith("\ufeff")  # editors hide a file's BOM and keep it
                new = apply_text_edits(old.removeprefix("\ufeff"), step.edits, self.encoding)
                path.write_bytes((("\ufeff" if bom else "") + new).encode("utf-8"))


def read_code_actions_correctly(client: LanguageClient) -> None:
    """lsprotocol 2025.0.0 reads any ``Command | CodeAction`` with a ``command`` key as a
    Command, turning a CodeAction whose ``command`` is an object into a Command whose
    ``command`` is that object's repr. Editors read the JSON right; so must this client."""
    converter = client.protocol._converter

    def structure(obj: Any, _: Any) -> types.Command | types.CodeAction:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)

    # typing.Union on purpose: the key lsprotocol registered its hook under.
    converter.register_structure_hook(Union[types.Command, types.CodeAction], structure)  # noqa: UP007
