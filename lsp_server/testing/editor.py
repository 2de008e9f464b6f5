"""The test editor: what a user would see of the server, through an LSP client.

:class:`Editor` keeps buffers as an editor does (didOpen, incremental didChange with versions
counted like an editor, didClose; every version's text kept), and answers
``workspace/applyEdit`` the way VS Code does: the whole edit is refused if a
``TextDocumentEdit`` names a version that is not the document's (a document that is not open
is loaded at version 1), else every step is applied with the editor's own position code
(:mod:`~lsp_server.testing.positions`): open buffers change (and the change is reported back
with didChange), files that are not open change on disk, creates, renames and deletes happen.
Tests then assert on the texts and on what the editor was asked.

It drives a pytest-lsp client: the ``client`` fixture of an end-to-end test, or the one
:class:`~lsp_server.testing.editor_session.EditorSession` starts with its own server.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient

from .positions import apply_text_edits, end_position

_BOM = b"\xef\xbb\xbf"

AnswerApplyEdit = Callable[[types.ApplyWorkspaceEditParams], Awaitable[Any]]


@dataclass
class ApplyRecord:
    """One ``workspace/applyEdit`` as the editor saw it."""

    versions: dict[str, int | None]  # uri → version the edit was computed against
    applied: bool
    reason: str | None = None
    texts_before: dict[str, str] = field(default_factory=dict)


def editor_capabilities(document_changes: bool = True) -> types.ClientCapabilities:
    """What VS Code tells a server it can do, as far as this server asks (UTF-16 positions,
    workspace edits with versions and file operations, related information on diagnostics).
    ``document_changes=False`` is an editor that takes only the ``changes`` map (Neovim)."""
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=["utf-16"]),
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=document_changes,
                resource_operations=[types.ResourceOperationKind.Create,
                                     types.ResourceOperationKind.Rename,
                                     types.ResourceOperationKind.Delete])),
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True)))


class Editor:
    """An editor window over a pytest-lsp client: a workspace folder and its open buffers."""

    def __init__(self, client: LanguageClient, root: Path, *,
                 answer_apply_edit: AnswerApplyEdit | None = None) -> None:
        self.client = client
        self.root = root
        self.encoding = "utf-16"
        self.buffers: dict[str, tuple[str, int]] = {}  # uri → (text, version)
        self.history: dict[str, dict[int, str]] = {}  # uri → version → text (every version)
        self.applies: list[ApplyRecord] = []
        self.apply_requests: list[types.ApplyWorkspaceEditParams] = []
        self.type_during_apply: tuple[str, str] | None = None  # (rel, text) typed meanwhile

        def on_apply_edit(params: types.ApplyWorkspaceEditParams
                          ) -> types.ApplyWorkspaceEditResult:
            return self._on_apply_edit(params)

        async def answer_otherwise(params: types.ApplyWorkspaceEditParams) -> Any:
            assert answer_apply_edit is not None
            self.apply_requests.append(params)
            return await answer_apply_edit(params)

        # An editor that misbehaves (tests): ``answer_apply_edit`` answers workspace/applyEdit
        # instead (with anything: null, {}, late), and the edit is not applied.
        client.feature(types.WORKSPACE_APPLY_EDIT)(
            on_apply_edit if answer_apply_edit is None else answer_otherwise)
        read_code_actions_correctly(client)

    async def start(self, capabilities: types.ClientCapabilities | None = None,
                    initialization_options: Any = None,
                    trace: types.TraceValue | None = None) -> types.InitializeResult:
        """``initialize`` and ``initialized``, with VS Code's capabilities unless given."""
        result = await self.client.initialize_session(types.InitializeParams(
            capabilities=capabilities or editor_capabilities(), root_uri=self.root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name="ws")],
            initialization_options=initialization_options, trace=trace))
        self.encoding = str(getattr(result.capabilities.position_encoding, "value",
                                    result.capabilities.position_encoding or "utf-16"))
        return result

    # -- buffers

    def uri(self, rel: str) -> str:
        return (self.root / rel).as_uri()

    def write(self, rel: str, text: str) -> None:
        """Write ``rel`` on disk (UTF-8), as another program would."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))

    def open(self, rel: str, text: str | None = None) -> str:
        """didOpen with ``text``, else the disk text, at version 1; returns the URI."""
        uri = self.uri(rel)
        if text is None:
            text = _disk_text(self.root / rel)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="plaintext", version=1,
                                                 text=text)))
        self.buffers[uri] = (text, 1)
        self.history[uri] = {1: text}
        return uri

    def type(self, rel: str, text: str) -> int:
        """Replace the buffer's text with one incremental change (unsaved); the new version."""
        return self._replace(self.uri(rel), text)

    def close(self, rel: str) -> None:
        uri = self.uri(rel)
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        self.buffers.pop(uri, None)

    def text(self, rel: str) -> str | None:
        """The buffer's text if ``rel`` is open, else the disk text (None: no such file)."""
        uri = self.uri(rel)
        if uri in self.buffers:
            return self.buffers[uri][0]
        path = self.root / rel
        return _disk_text(path) if path.exists() else None

    def diagnostics(self, rel_or_uri: str) -> list[types.Diagnostic]:
        uri = rel_or_uri if ":" in rel_or_uri else self.uri(rel_or_uri)
        return list(self.client.diagnostics.get(uri, []))

    def _replace(self, uri: str, text: str) -> int:
        old, version = self.buffers[uri]
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=0, character=0),
                                  end=end_position(old, self.encoding)),
                text=text)]))
        self.buffers[uri] = (text, version + 1)
        self.history[uri][version + 1] = text
        return version + 1

    # -- commands

    async def run(self, command: str, argument: Any = None, *, raw_arguments: Any = None,
                  timeout: float = 120) -> Any:
        """``workspace/executeCommand``; ``raw_arguments`` sends that list as is."""
        arguments = raw_arguments if raw_arguments is not None else (
            None if argument is None else [argument])
        return await asyncio.wait_for(
            self.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=command, arguments=arguments)), timeout)

    async def code_lenses(self, uri: str) -> list[types.CodeLens]:
        """``textDocument/codeLens`` and each lens resolved (``codeLens/resolve``), as an
        editor shows them all."""
        lenses = await self.client.text_document_code_lens_async(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=uri))) or []
        return [lens if lens.command is not None
                else await self.client.code_lens_resolve_async(lens) for lens in lenses]

    # -- workspace/applyEdit

    def _on_apply_edit(self, params: types.ApplyWorkspaceEditParams
                       ) -> types.ApplyWorkspaceEditResult:
        self.apply_requests.append(params)
        if self.type_during_apply is not None:  # the user typed while the server worked
            rel, text = self.type_during_apply
            self.type_during_apply = None
            self.type(rel, text)
        steps = _steps(params.edit)
        versions = {s.text_document.uri: s.text_document.version for s in steps
                    if isinstance(s, types.TextDocumentEdit)}
        before = {uri: self.buffers[uri][0] for uri in versions if uri in self.buffers}
        reason = self._stale(versions)
        if reason is not None:  # all or nothing, as VS Code
            self.applies.append(ApplyRecord(versions, False, reason, before))
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason=reason)
        for step in steps:
            self._apply_step(step)
        self.applies.append(ApplyRecord(versions, True, None, before))
        return types.ApplyWorkspaceEditResult(applied=True)

    def _stale(self, versions: dict[str, int | None]) -> str | None:
        # An edit without a version (Neovim's `changes`, or a file the server read from disk)
        # applies to the current text; VS Code loads a document that is not open at version 1.
        for uri, version in versions.items():
            current = self.buffers[uri][1] if uri in self.buffers else 1
            if version is not None and version != current:
                return f"{uri}: version {version} is stale (buffer is {current})"
        return None

    def _apply_step(self, step: Any) -> None:
        if isinstance(step, types.CreateFile):
            Path(to_fs_path(step.uri)).parent.mkdir(parents=True, exist_ok=True)
            Path(to_fs_path(step.uri)).write_text("")
        elif isinstance(step, types.RenameFile):
            os.rename(to_fs_path(step.old_uri), to_fs_path(step.new_uri))
        elif isinstance(step, types.DeleteFile):
            os.unlink(to_fs_path(step.uri))
        elif step.text_document.uri in self.buffers:  # an open buffer: edit it (unsaved)
            uri = step.text_document.uri
            self._replace(uri, apply_text_edits(self.buffers[uri][0], step.edits, self.encoding))
        else:  # not open: the editor edits the file on disk (UTF-8; a BOM stays hidden)
            path = Path(to_fs_path(step.text_document.uri))
            data = path.read_bytes() if path.exists() else b""
            bom = _BOM if data.startswith(_BOM) else b""
            text = data[len(bom):].decode("utf-8")  # strict: never guess an encoding
            path.write_bytes(bom + apply_text_edits(text, step.edits, self.encoding)
                             .encode("utf-8"))


def _disk_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8") if path.exists() else ""


def _steps(edit: types.WorkspaceEdit) -> list[Any]:
    """The edit's steps in order; a ``changes`` map is text edits without a version."""
    steps: list[Any] = list(edit.document_changes or [])
    for uri, edits in (edit.changes or {}).items():
        steps.append(types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
            edits=edits))
    return steps


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
