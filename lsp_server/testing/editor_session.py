"""A scripted editor talking to ``python -m lsp_server`` over stdio (tests and long runs).

:class:`EditorSession` is what the reliability tests need from an editor and nothing more:
it opens buffers and changes them (incremental ``didChange``, versions counted like an
editor), answers ``workspace/applyEdit`` the way VS Code does (refusing the whole edit if
any ``TextDocumentEdit`` names a version that is not the buffer's current one, otherwise
applying the text edits with its own position code), and can kill the server with SIGKILL.
It is built on pytest-lsp's client (pygls), which tracks diagnostics and log messages.
"""

from __future__ import annotations

import asyncio
import os
import signal
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient, make_test_lsp_client

from lsp_server.lsp.protocol.planning_hold import HELD as PLANNING_HELD
from lsp_server.lsp.protocol.planning_hold import HOLD_ENV
from lsp_server.lsp.protocol.planning_hold import RELEASE as RELEASE_PLANNING

from . import SERVER_COMMAND
from .positions import apply_text_edits, end_position


@dataclass
class ApplyRecord:
    """One ``workspace/applyEdit`` as the editor saw it."""

    versions: dict[str, int | None]  # uri → version the edit was computed against
    applied: bool
    reason: str | None = None
    texts_before: dict[str, str] = field(default_factory=dict)


class EditorSession:
    """One editor window: a workspace folder, open buffers, one server process."""

    def __init__(self, root: Path, *, command: list[str] | None = None,
                 initialization_options: Any = None, document_changes: bool = True,
                 log_file: Path | None = None, hold_planning: bool = False,
                 answer_apply_edit: Callable[[types.ApplyWorkspaceEditParams],
                                             Awaitable[Any]] | None = None) -> None:
        self.root = root
        # The server's log (pygls logs every error response with its traceback) goes to a
        # file rather than the test's stderr.
        if log_file is None:
            fd, name = tempfile.mkstemp(prefix="llm-edits-server-", suffix=".log")
            os.close(fd)
            log_file = Path(name)
        self.log_file = log_file
        self.command = [*(command or SERVER_COMMAND), "--log-file", str(log_file)]
        self.initialization_options = initialization_options
        self.document_changes = document_changes
        self.client: LanguageClient = make_test_lsp_client()
        self.encoding = "utf-16"
        self.buffers: dict[str, tuple[str, int]] = {}  # uri → (text, version)
        self.history: dict[str, dict[int, str]] = {}  # uri → version → text (every version)
        self.applies: list[ApplyRecord] = []
        # With hold_planning, the server holds every run before planning until released
        # (lsp_server/lsp/planning_hold.py): tests act while a run is in flight, at a known
        # point, whatever the machine's speed.
        self.hold_planning = hold_planning
        self._held: asyncio.Queue[None] = asyncio.Queue()
        self.client.feature(PLANNING_HELD)(lambda params: self._held.put_nowait(None))

        def on_apply_edit(params: types.ApplyWorkspaceEditParams
                          ) -> types.ApplyWorkspaceEditResult:
            return self._on_apply_edit(params)

        async def answer_otherwise(params: types.ApplyWorkspaceEditParams) -> Any:
            assert answer_apply_edit is not None
            return await answer_apply_edit(params)

        # An editor that misbehaves (tests): ``answer_apply_edit`` answers workspace/applyEdit
        # instead (with anything: null, {}, late), and the edit is not applied.
        self.client.feature(types.WORKSPACE_APPLY_EDIT)(
            on_apply_edit if answer_apply_edit is None else answer_otherwise)

    # -- lifecycle

    async def start(self) -> types.InitializeResult:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if self.hold_planning:
            env[HOLD_ENV] = "1"
        await self.client.start_io(*self.command, env=env)
        caps = types.ClientCapabilities(
            general=types.GeneralClientCapabilities(position_encodings=["utf-16"]),
            workspace=types.WorkspaceClientCapabilities(
                apply_edit=True,
                workspace_edit=types.WorkspaceEditClientCapabilities(
                    document_changes=self.document_changes,
                    resource_operations=[types.ResourceOperationKind.Create,
                                         types.ResourceOperationKind.Rename,
                                         types.ResourceOperationKind.Delete])))
        result = await self.client.initialize_session(types.InitializeParams(
            capabilities=caps, root_uri=self.root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name="ws")],
            initialization_options=self.initialization_options))
        self.encoding = str(getattr(result.capabilities.position_encoding, "value",
                                    result.capabilities.position_encoding or "utf-16"))
        return result

    @property
    def pid(self) -> int:
        server = self.client._server
        assert server is not None, "server not started"
        return server.pid

    def alive(self) -> bool:
        server = self.client._server
        return server is not None and server.returncode is None

    async def stop(self) -> None:
        """Shut down politely if the server is alive, else just close the client."""
        if self.alive():
            try:
                await asyncio.wait_for(self.client.shutdown_session(), 30)
                return
            except Exception:
                pass
        self.client._stop_event.set()  # a dead server: no "server exited" errors
        await self.client.stop()

    async def kill(self) -> int:
        """SIGKILL the server (the editor's view: the process vanished) and reap it."""
        server = self.client._server
        assert server is not None
        self.client._stop_event.set()
        os.kill(server.pid, signal.SIGKILL)
        code = await server.wait()
        await self.client.stop()
        return code

    # -- buffers

    def uri(self, rel: str) -> str:
        return (self.root / rel).as_uri()

    def open(self, rel: str, text: str | None = None) -> str:
        """didOpen with the disk text (or ``text``), version 1."""
        uri = self.uri(rel)
        if text is None:
            path = self.root / rel
            text = path.read_bytes().decode("utf-8") if path.exists() else ""
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="plaintext", version=1,
                                                 text=text)))
        self.buffers[uri] = (text, 1)
        self.history[uri] = {1: text}
        return uri

    def change(self, rel: str, text: str) -> int:
        """Replace the whole buffer with one incremental change; returns the new version."""
        uri = self.uri(rel)
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

    def close(self, rel: str) -> None:
        uri = self.uri(rel)
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        self.buffers.pop(uri, None)

    def text(self, rel: str) -> str | None:
        uri = self.uri(rel)
        if uri in self.buffers:
            return self.buffers[uri][0]
        path = self.root / rel
        return path.read_bytes().decode("utf-8") if path.exists() else None

    # -- commands

    async def run(self, command: str, argument: Any = None, *, raw_arguments: Any = None,
                  timeout: float = 120) -> Any:
        """``workspace/executeCommand``; ``raw_arguments`` sends that list as is."""
        arguments = raw_arguments if raw_arguments is not None else (
            None if argument is None else [argument])
        return await asyncio.wait_for(
            self.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=command, arguments=arguments)), timeout)

    async def ping(self, timeout: float = 30) -> bool:
        """The server answers a cheap request (it is alive and its loop is not stuck)."""
        result = await self.run("llmEdits.instructions", {"format": "edit-v3"}, timeout=timeout)
        return bool(result and result.get("text"))

    async def planning_held(self, timeout: float = 120) -> None:
        """Wait until the server holds a run before planning (``hold_planning``)."""
        await asyncio.wait_for(self._held.get(), timeout)

    def release_planning(self) -> None:
        """Let the held run plan (sent after everything the test sent before it)."""
        self.client.protocol.notify(RELEASE_PLANNING, {})

    # -- workspace/applyEdit

    def _on_apply_edit(self, params: types.ApplyWorkspaceEditParams
                       ) -> types.ApplyWorkspaceEditResult:
        edit = params.edit
        steps: list[Any] = list(edit.document_changes or [])
        for uri, edits in (edit.changes or {}).items():
            steps.append(types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri,
                                                                            version=None),
                edits=edits))
        versions = {s.text_document.uri: s.text_document.version for s in steps
                    if isinstance(s, types.TextDocumentEdit)}
        before = {uri: self.buffers[uri][0] for uri in versions if uri in self.buffers}
        # All or nothing on stale versions, as VS Code; an edit without a version (Neovim's
        # `changes`, or a file the server read from disk) is applied to the current text.
        for uri, version in versions.items():
            current = self.buffers.get(uri)
            if current is not None and version is not None and current[1] != version:
                reason = f"{uri}: version {version} is stale (buffer is {current[1]})"
                self.applies.append(ApplyRecord(versions, False, reason, before))
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason=reason)
        for step in steps:
            self._apply_step(step)
        self.applies.append(ApplyRecord(versions, True, None, before))
        return types.ApplyWorkspaceEditResult(applied=True)

    def _apply_step(self, step: Any) -> None:
        if isinstance(step, types.CreateFile):
            Path(to_fs_path(step.uri)).parent.mkdir(parents=True, exist_ok=True)
            Path(to_fs_path(step.uri)).write_text("")
        elif isinstance(step, types.RenameFile):
            os.rename(to_fs_path(step.old_uri), to_fs_path(step.new_uri))
        elif isinstance(step, types.DeleteFile):
            os.unlink(to_fs_path(step.uri))
        else:
            uri = step.text_document.uri
            if uri in self.buffers:  # an open buffer: edit it, bump its version (unsaved)
                text, version = self.buffers[uri]
                new = apply_text_edits(text, step.edits, self.encoding)
                self.buffers[uri] = (new, version + 1)
                self.history[uri][version + 1] = new
                self.client.text_document_did_change(types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri,
                                                                        version=version + 1),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(text=new)]))
            else:  # not open: the editor edits the file on disk (UTF-8; a BOM stays hidden)
                path = Path(to_fs_path(uri))
                data = path.read_bytes() if path.exists() else b""
                bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
                text = data[len(bom):].decode("utf-8")  # strict: never guess an encoding
                path.write_bytes(bom + apply_text_edits(text, step.edits, self.encoding)
                                 .encode("utf-8"))
