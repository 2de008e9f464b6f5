"""End to end: the language server over stdio, driven by pytest-lsp as an editor would drive it.

The test editor (:class:`Editor`) opens buffers with didOpen/didChange, answers
``workspace/applyEdit`` like a real editor (refusing an edit computed for an older buffer
version, applying text edits in the negotiated position encoding with its own code, creating,
renaming and deleting files), and keeps the texts so tests assert on what the user would see.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Union

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the fuzz/ package

from fuzz.lsp_session import apply_text_edits, end_position

SERVER = [sys.executable, "-m", "lsp_server"]
COMMANDS = {
    "llmEdits.parse", "llmEdits.preview", "llmEdits.apply", "llmEdits.feedback",
    "llmEdits.instructions", "llmEdits.clear", "llmEdits.applyFix", "llmEdits.copyFeedback",
    "llmEdits.watch", "llmEdits.unwatch",
}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    yield
    if lsp_client.capabilities is None and lsp_client._server is not None:
        # Never initialized (setup failed): pytest-lsp would wait forever for it to exit.
        lsp_client._server.terminate()
        return
    await lsp_client.shutdown_session()


# ------------------------------------------------------------------ the test editor

# The editor's reading of positions and edits is the one the fuzz sessions use
# (fuzz/lsp_session.py: offset_of, end_position, apply_text_edits).


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
        _read_code_actions_correctly(client)

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
        from pygls.uris import to_fs_path

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


def _read_code_actions_correctly(client: LanguageClient) -> None:
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


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws.resolve()


@pytest.fixture
def editor(client: LanguageClient, root: Path) -> Editor:
    return Editor(client, root)


def edit_v3(path: str, old: str, new: str) -> str:
    return f"{path}\n««« EDIT\n{old}═══════ REPL\n{new}»»» EDIT END\n"


APP = "def greet(name):\n    return 'hi ' + name\n\n\ndef main():\n    print(greet('x'))\n"


# ------------------------------------------------------------------ initialize


async def test_initialize_advertises_sync_commands_and_quick_fixes(editor: Editor) -> None:
    result = await editor.start()
    caps = result.capabilities
    sync = caps.text_document_sync
    assert sync.open_close is True
    assert sync.change == types.TextDocumentSyncKind.Incremental
    assert set(caps.execute_command_provider.commands) == COMMANDS
    assert types.CodeActionKind.QuickFix in caps.code_action_provider.code_action_kinds
    assert result.server_info.name == "llm-edits"


async def test_command_summaries_are_logged_while_the_client_traces(editor: Editor) -> None:
    # A line per command is logged only when the client asked for a trace (at initialize or
    # with $/setTrace); errors and warnings always are (see the tests of failures below).
    await editor.start(trace=types.TraceValue.Messages)
    editor.write("app.py", APP)
    editor.open("app.py")
    response = edit_v3("app.py", "    return 'hi ' + name\n", "    return 'yo ' + name\n")

    async def summaries() -> list[str]:
        editor.client.log_messages.clear()
        await editor.run("llmEdits.preview", {"response": response})
        await editor.run("llmEdits.parse", {"response": response})
        return [m.message for m in editor.client.log_messages
                if m.type == types.MessageType.Info and m.message.startswith("llmEdits.")]

    traced = await summaries()
    assert len(traced) == 2
    assert traced[0].startswith("llmEdits.preview: 1 block(s): 1 validated; run ")
    assert traced[1] == "llmEdits.parse: 1 block, 0 warnings"
    editor.client.set_trace(types.SetTraceParams(value=types.TraceValue.Off))
    assert await summaries() == []
    editor.client.set_trace(types.SetTraceParams(value=types.TraceValue.Verbose))
    assert len(await summaries()) == 2


# ------------------------------------------------------------------ parse / preview / apply


async def test_parse_returns_blocks_with_their_text(editor: Editor) -> None:
    await editor.start()
    response = "Here:\n\n" + edit_v3("app.py", "a\nb\n", "a\nc\n")
    result = await editor.run("llmEdits.parse", {"response": response})
    (block,) = result["blocks"]
    assert block["file"] == "app.py" and block["format"] == "edit-v3"
    assert (block["anchor"], block["old"], block["new"]) == ("a\n", "b\n", "c\n")
    assert block["responseLine"] == 2 and block["op"] == "update"
    assert result["warnings"] == []


async def test_preview_uses_the_unsaved_buffer_and_changes_nothing(editor: Editor) -> None:
    await editor.start()
    editor.write("app.py", APP)
    buffer = APP.replace("'hi '", "'hello '")  # unsaved change: only the buffer has it
    editor.open("app.py", buffer)
    response = edit_v3("app.py", "    return 'hello ' + name\n", "    return 'hello, ' + name\n")
    result = await editor.run("llmEdits.preview", {"response": response})
    (block,) = result["blocks"]
    assert block["status"] == "validated" and block["line"] == 1 and block["match"] == "exact"
    assert block["uri"] == editor.uri("app.py")
    (doc_edit,) = result["edit"]["documentChanges"]
    assert doc_edit["textDocument"] == {"uri": editor.uri("app.py"), "version": 2}
    assert editor.apply_requests == []
    assert editor.text("app.py") == buffer
    assert (editor.root / "app.py").read_text() == APP
    assert isinstance(result["runId"], str)


async def test_apply_sends_one_labelled_edit_and_reports_applied(editor: Editor) -> None:
    await editor.start()
    editor.write("app.py", APP)
    editor.write("util.py", "X = 1\n")
    editor.open("app.py")
    response = (edit_v3("app.py", "    return 'hi ' + name\n", "    return 'hey ' + name\n")
                + "\n" + edit_v3("util.py", "X = 1\n", "X = 2\n"))
    result = await editor.run("llmEdits.apply", {"response": response})
    assert result["applied"] is True and "failureReason" not in result
    assert [b["status"] for b in result["blocks"]] == ["applied", "applied"]
    (request,) = editor.apply_requests
    assert request.label == "LLM edits: 2 blocks from response"
    sent = editor.client.protocol._converter.unstructure(request.edit)
    assert sent == result["edit"]
    versions = {c["textDocument"]["uri"]: c["textDocument"]["version"]
                for c in result["edit"]["documentChanges"]}
    assert versions == {editor.uri("app.py"): 1, editor.uri("util.py"): None}
    assert editor.text("app.py") == APP.replace("'hi '", "'hey '")
    assert editor.text("util.py") == "X = 2\n"


async def test_a_cancel_reaching_a_running_apply_leaves_it_to_finish(editor: Editor) -> None:
    # $/cancelRequest while the apply awaits the editor's answer to workspace/applyEdit:
    # stopping there would leave the edit applied but neither reported nor kept as a run.
    await editor.start()
    editor.write("util.py", "X = 1\n")
    editor.open("util.py")
    apply_edit = editor._on_apply_edit

    def cancel_then_apply(params: types.ApplyWorkspaceEditParams) -> Any:
        for msg_id in list(editor.client.protocol._request_futures):  # the executeCommand
            editor.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
        return apply_edit(params)

    editor._on_apply_edit = cancel_then_apply  # type: ignore[method-assign]
    result = await editor.run("llmEdits.apply", {"response": edit_v3("util.py", "X = 1\n",
                                                                     "X = 2\n")})
    assert result["applied"] is True and editor.text("util.py") == "X = 2\n"
    editor._on_apply_edit = apply_edit  # type: ignore[method-assign]
    kept = await editor.run("llmEdits.copyFeedback", {"runId": result["runId"]})  # a known run
    assert isinstance(kept["text"], str)


async def test_apply_with_nothing_to_apply_sends_nothing(editor: Editor) -> None:
    await editor.start()
    editor.write("app.py", APP)
    response = (edit_v3("app.py", "    return 'hi ' + name\n", "    return 'yo ' + name\n")
                + "\n" + edit_v3("app.py", "not in the file\n", "x\n"))
    result = await editor.run("llmEdits.apply", {"response": response,
                                                 "options": {"atomic": True}})
    assert result["edit"] is None and result["applied"] is False
    assert [b["status"] for b in result["blocks"]] == ["validated", "failed"]
    assert editor.apply_requests == []
    assert editor.text("app.py") == APP


async def test_stale_buffer_version_is_refused_and_reported(editor: Editor) -> None:
    await editor.start()
    editor.write("app.py", APP)
    editor.open("app.py")
    editor.type_during_apply = ("app.py", APP + "# typed meanwhile\n")
    response = edit_v3("app.py", "    return 'hi ' + name\n", "    return 'hey ' + name\n")
    result = await editor.run("llmEdits.apply", {"response": response})
    assert result["applied"] is False
    assert "stale" in result["failureReason"]
    assert [b["status"] for b in result["blocks"]] == ["validated"]
    assert editor.text("app.py") == APP + "# typed meanwhile\n"
    assert any("not applied" in m.message for m in editor.client.log_messages)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
async def test_positions_in_negotiated_encoding_with_non_bmp_characters(
    client: LanguageClient, root: Path, encoding: str
) -> None:
    editor = Editor(client, root)
    caps = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=[encoding]),
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)))
    result = await editor.start(caps)
    assert editor.encoding == encoding
    text = "x = '😀😀'; y = 1  # 😀\nz = '😀'\n"
    editor.write("emoji.py", text)
    editor.open("emoji.py", text + "w = 0\n")  # buffer differs: it must win
    response = (edit_v3("emoji.py", "x = '😀😀'; y = 1  # 😀\n", "x = '😀😀'; y = 2  # 😀\n")
                + edit_v3("emoji.py", "z = '😀'\n", "z = '😀!'\n"))
    result = await editor.run("llmEdits.apply", {"response": response})
    assert result["applied"] is True
    assert editor.text("emoji.py") == "x = '😀😀'; y = 2  # 😀\nz = '😀!'\nw = 0\n"


async def test_bom_in_an_open_buffer_is_never_covered_by_an_edit(editor: Editor) -> None:
    await editor.start()
    editor.write("bom.py", "first = 1\nsecond = 2\n")
    editor.open("bom.py", "\ufefffirst = 1\nsecond = 2\n")
    response = edit_v3("bom.py", "first = 1\n", "first = 100\n")
    result = await editor.run("llmEdits.apply", {"response": response})
    assert result["blocks"][0]["line"] == 0
    edits = result["edit"]["documentChanges"][0]["edits"]
    assert all(e["range"]["start"]["character"] >= 1 for e in edits
               if e["range"]["start"]["line"] == 0)
    assert editor.text("bom.py") == "\ufefffirst = 100\nsecond = 2\n"


async def test_bom_of_a_disk_file_is_hidden_and_kept(editor: Editor) -> None:
    await editor.start()
    (editor.root / "bom.txt").write_bytes("\ufeffa\nb\n".encode())
    result = await editor.run("llmEdits.apply", {"response": edit_v3("bom.txt", "a\n", "A\n")})
    assert result["applied"] is True
    assert (editor.root / "bom.txt").read_bytes() == "\ufeffA\nb\n".encode()


async def test_workspace_reached_through_a_symlink_keeps_the_editors_uris(
    client: LanguageClient, tmp_path: Path
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    editor = Editor(client, link)  # the editor opened the folder by its symlinked path
    await editor.start()
    editor.write("util.py", "X = 1\n")
    editor.write("app.py", APP)
    editor.open("app.py")
    response = (edit_v3("util.py", "X = 1\n", "X = 2\n")
                + edit_v3("app.py", "    return 'hi ' + name\n", "    return 'yo ' + name\n"))
    result = await editor.run("llmEdits.apply", {"response": response})
    uris = {c["textDocument"]["uri"]: c["textDocument"]["version"]
            for c in result["edit"]["documentChanges"]}
    assert uris == {editor.uri("util.py"): None, editor.uri("app.py"): 1}
    assert editor.text("util.py") == "X = 2\n"


# ------------------------------------------------------------------ client kinds


CREATE_RENAME = (
    "new.py\n```\n««« EDIT\n═══════ REPL\nprint('new')\n»»» EDIT END\n```\n"
)


async def test_vscode_client_gets_document_changes_with_resource_operations(
    editor: Editor,
) -> None:
    await editor.start(pytest_lsp.client_capabilities("visual-studio-code@v1.65.2"))
    editor.write("app.py", APP)
    response = CREATE_RENAME + edit_v3("app.py", "    return 'hi ' + name\n",
                                       "    return 'hey ' + name\n")
    result = await editor.run("llmEdits.apply", {"response": response})
    changes = result["edit"]["documentChanges"]
    kinds = [c.get("kind", "edit") for c in changes]
    assert sorted(kinds) == ["create", "edit", "edit"]
    filled = next(i for i, c in enumerate(changes)
                  if c.get("textDocument", {}).get("uri") == editor.uri("new.py"))
    assert kinds.index("create") < filled  # the file exists before its text arrives
    assert result["warnings"] == []
    assert editor.text("new.py") == "print('new')\n"


async def test_neovim_client_gets_changes_and_a_warning_for_the_create(editor: Editor) -> None:
    await editor.start(pytest_lsp.client_capabilities("neovim@v0.7.0"))
    editor.write("app.py", APP)
    editor.open("app.py")
    response = CREATE_RENAME + edit_v3("app.py", "    return 'hi ' + name\n",
                                       "    return 'hey ' + name\n")
    result = await editor.run("llmEdits.apply", {"response": response})
    assert "documentChanges" not in result["edit"]
    assert set(result["edit"]["changes"]) == {editor.uri("new.py"), editor.uri("app.py")}
    (warning,) = result["warnings"]
    assert "cannot create files" in warning["message"] and "new.py" in warning["message"]
    assert warning["responseLine"] == 0
    assert editor.text("app.py") == APP.replace("'hi '", "'hey '")


# ------------------------------------------------------------------ diagnostics


NUMBERS = "".join(f"line_{i} = {i}\n" for i in range(12))


async def test_failed_block_diagnostic_at_estimated_line_then_cleared(editor: Editor) -> None:
    await editor.start()
    editor.write("nums.py", NUMBERS)
    bad = edit_v3("nums.py", "line_5 = 5\nline_6 = six\n", "line_5 = 50\nline_6 = six\n")
    result = await editor.run("llmEdits.preview", {"response": bad})
    (block,) = result["blocks"]
    assert block["status"] == "failed" and block["line"] == 5 and block["reason"]
    (diag,) = editor.diagnostics("nums.py")
    assert diag.range.start.line == 5 and diag.range.start.character == 0
    assert diag.range.end.character == len("line_5 = 5")
    assert diag.severity == types.DiagnosticSeverity.Error
    assert diag.source == "llm-edits" and diag.code == "failed"
    assert diag.data == {"runId": result["runId"], "index": 0}
    assert diag.message.startswith(block["reason"])
    assert diag.related_information is None  # the response was not a document

    good = edit_v3("nums.py", "line_5 = 5\n", "line_5 = 55\n")
    await editor.run("llmEdits.preview", {"response": good})
    assert editor.diagnostics("nums.py") == []

    await editor.run("llmEdits.preview", {"response": bad})
    assert len(editor.diagnostics("nums.py")) == 1
    assert await editor.run("llmEdits.clear", {}) is None
    assert editor.diagnostics("nums.py") == []


async def test_response_document_related_information_and_malformed_blocks(
    editor: Editor,
) -> None:
    await editor.start()
    editor.write("nums.py", NUMBERS)
    editor.write("chat.md", "")
    response = ("Intro\n\n" + edit_v3("nums.py", "line_3 = three\n", "line_3 = 33\n")
                + "\nnums.py\n««« EDIT\nline_1 = 1\n")  # the second block never closes
    response_uri = editor.open("chat.md", response)
    result = await editor.run("llmEdits.preview", {"responseUri": response_uri})
    assert result["blocks"][0]["status"] == "failed"
    assert result["warnings"] and result["warnings"][0]["responseLine"] >= 8
    (diag,) = editor.diagnostics("nums.py")
    (related,) = diag.related_information
    assert related.location.uri == response_uri
    assert related.location.range.start.line == 2  # the block's path line in the response
    on_response = editor.diagnostics(response_uri)
    assert [d.code for d in on_response] == ["malformed-block"] * len(result["warnings"])
    assert on_response[0].range.start.line == result["warnings"][0]["responseLine"]


async def test_whitespace_match_warning_and_initialization_defaults(editor: Editor) -> None:
    await editor.start(initialization_options={"matching": "whitespace"})
    editor.write("cls.py", "class A:\n    def f(self):\n        return 1\n")
    response = edit_v3("cls.py", "def f(self):\n    return 1\n", "def f(self):\n    return 2\n")
    result = await editor.run("llmEdits.apply", {"response": response})
    (block,) = result["blocks"]
    assert block["status"] == "applied" and block["match"] == "whitespace"
    assert editor.text("cls.py") == "class A:\n    def f(self):\n        return 2\n"
    (diag,) = editor.diagnostics("cls.py")
    assert diag.code == "whitespace-match" and diag.severity == types.DiagnosticSeverity.Warning
    # The command's own option wins over the default.
    result = await editor.run("llmEdits.preview", {
        "response": edit_v3("cls.py", "def f(self):\n    return 2\n", "x\n"),
        "options": {"matching": "exact"}})
    assert result["blocks"][0]["status"] == "failed"


# ------------------------------------------------------------------ code actions and fixes


async def _code_actions(editor: Editor, rel: str, line: int) -> list[types.CodeAction]:
    actions = await editor.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=editor.uri(rel)),
        range=types.Range(start=types.Position(line=line, character=0),
                          end=types.Position(line=line, character=0)),
        context=types.CodeActionContext(diagnostics=editor.diagnostics(rel))))
    return list(actions or [])


async def test_whitespace_quick_fix_reapplies_against_current_buffer(editor: Editor) -> None:
    await editor.start()
    editor.write("cls.py", "class A:\n    def f(self):\n        return 1\n")
    editor.open("cls.py")
    response = edit_v3("cls.py", "def f(self):\n    return 1\n", "def f(self):\n    return 2\n")
    result = await editor.run("llmEdits.preview", {"response": response})
    (block,) = result["blocks"]
    assert block["status"] == "failed" and block["fixes"].get("matching") == "whitespace"
    (diag,) = editor.diagnostics("cls.py")
    actions = await _code_actions(editor, "cls.py", diag.range.start.line)
    titles = [a.title for a in actions]
    assert "Apply with whitespace tolerance" in titles
    assert "Copy retry feedback for the model" in titles
    # The user edits the buffer above the block before taking the fix: it re-plans.
    editor.type("cls.py", "# header\nclass A:\n    def f(self):\n        return 1\n")
    fix = next(a for a in actions if a.title == "Apply with whitespace tolerance")
    fixed = await editor.run(fix.command.command, fix.command.arguments[0])
    assert fixed["applied"] is True and fixed["runId"] == result["runId"]
    assert editor.text("cls.py") == "# header\nclass A:\n    def f(self):\n        return 2\n"
    assert editor.diagnostics("cls.py") == []
    assert editor.apply_requests[-1].label == "LLM edits: fix block 1 from response"


async def test_copy_feedback_and_feedback_name_the_failure(editor: Editor) -> None:
    await editor.start()
    editor.write("nums.py", NUMBERS)
    bad = edit_v3("nums.py", "line_5 = 5\nline_6 = six\n", "line_5 = 50\nline_6 = six\n")
    result = await editor.run("llmEdits.preview", {"response": bad})
    (diag,) = editor.diagnostics("nums.py")
    actions = await _code_actions(editor, "nums.py", diag.range.start.line)
    copy = next(a for a in actions if a.title == "Copy retry feedback for the model")
    assert list(copy.command.arguments) == [{"runId": result["runId"], "index": 0}]
    copied = await editor.run("llmEdits.copyFeedback", copy.command.arguments[0])
    assert "nums.py" in copied["text"] and "line_6 = 6" in copied["text"]
    whole = await editor.run("llmEdits.feedback", {"response": bad})
    assert "nums.py" in whole["text"] and result["blocks"][0]["reason"] in whole["text"]
    assert editor.diagnostics("nums.py") == [diag]  # feedback publishes nothing new


async def test_closest_match_quick_fix(editor: Editor) -> None:
    await editor.start()
    editor.write("nums.py", NUMBERS)
    bad = edit_v3("nums.py", "line_5 = 5\nline_6 = 66\n", "line_5 = 5\nline_6 = 600\n")
    result = await editor.run("llmEdits.preview", {"response": bad})
    (block,) = result["blocks"]
    closest = block["fixes"]["closestLine"]
    assert closest == 5
    actions = await _code_actions(editor, "nums.py", block["line"])
    action = next(a for a in actions if a.title.startswith("Apply at closest match"))
    assert action.title == f"Apply at closest match (line {closest + 1})"
    fixed = await editor.run(action.command.command, action.command.arguments[0])
    assert fixed["applied"] is True
    assert editor.text("nums.py") == NUMBERS.replace("line_6 = 6\n", "line_6 = 600\n")
    assert editor.diagnostics("nums.py") == []


async def test_closest_match_quick_fix_is_refused_once_the_near_match_moved(
        editor: Editor) -> None:
    # The fix names the line of the near match at preview time. Lines added above move the
    # near match down: placing the block at the old line would replace unrelated lines.
    await editor.start()
    editor.write("nums.py", NUMBERS)
    editor.open("nums.py")
    bad = edit_v3("nums.py", "line_5 = 5\nline_6 = 66\n", "line_5 = 5\nline_6 = 600\n")
    result = await editor.run("llmEdits.preview", {"response": bad})
    assert result["blocks"][0]["fixes"]["closestLine"] == 5
    actions = await _code_actions(editor, "nums.py", 5)
    action = next(a for a in actions if a.title.startswith("Apply at closest match"))
    moved = "# one\n# two\n# three\n" + NUMBERS
    editor.type("nums.py", moved)
    fixed = await editor.run(action.command.command, action.command.arguments[0])
    (block,) = fixed["blocks"]
    assert fixed["applied"] is False and block["status"] == "failed", block
    assert block["reason"].startswith("The closest match is no longer at line 6 (it is at "
                                      "line 9 now")
    assert block["fixes"]["closestLine"] == 8  # offered again where it is now
    assert editor.text("nums.py") == moved and len(editor.apply_requests) == 0
    (diag,) = editor.diagnostics("nums.py")  # the renewed failure, at the new place
    assert diag.range.start.line == 8
    again = next(a for a in await _code_actions(editor, "nums.py", 8)
                 if a.title.startswith("Apply at closest match"))
    assert again.title == "Apply at closest match (line 9)"
    fixed = await editor.run(again.command.command, again.command.arguments[0])
    assert fixed["applied"] is True
    assert editor.text("nums.py") == moved.replace("line_6 = 6\n", "line_6 = 600\n")


async def test_closest_match_quick_fix_applies_as_matched_once_the_block_fits(
        editor: Editor) -> None:
    await editor.start()
    editor.write("nums.py", NUMBERS)
    editor.open("nums.py")
    bad = edit_v3("nums.py", "line_5 = 5\nline_6 = 66\n", "line_5 = 50\nline_6 = 66\n")
    await editor.run("llmEdits.preview", {"response": bad})
    action = next(a for a in await _code_actions(editor, "nums.py", 5)
                  if a.title.startswith("Apply at closest match"))
    fitting = "# header\n" + NUMBERS.replace("line_6 = 6\n", "line_6 = 66\n")
    editor.type("nums.py", fitting)  # the user made the block's old text true, lower down
    fixed = await editor.run(action.command.command, action.command.arguments[0])
    assert fixed["applied"] is True and fixed["blocks"][0]["line"] == 6
    assert editor.text("nums.py") == fitting.replace("line_5 = 5\n", "line_5 = 50\n")


# ------------------------------------------------------------------ other commands


async def test_instructions(editor: Editor) -> None:
    await editor.start()
    one = await editor.run("llmEdits.instructions", {"format": "edit-v3"})
    assert one["formats"] == ["edit-v3"] and "««« EDIT" in one["text"]
    every = await editor.run("llmEdits.instructions")
    assert len(every["formats"]) == 7 and len(every["text"]) > len(one["text"])
    with pytest.raises(JsonRpcException, match="unknown format"):
        await editor.run("llmEdits.instructions", {"format": "nope"})


async def test_include_text_returns_before_and_after(editor: Editor) -> None:
    await editor.start()
    editor.write("util.py", "X = 1\n")
    result = await editor.run("llmEdits.preview", {
        "response": edit_v3("util.py", "X = 1\n", "X = 2\n"), "options": {"includeText": True}})
    assert result["files"] == [{"uri": editor.uri("util.py"), "kind": "edit",
                                "oldText": "X = 1\n", "newText": "X = 2\n"}]


async def test_work_done_progress_on_long_runs(editor: Editor) -> None:
    await editor.start(pytest_lsp.client_capabilities("visual-studio-code@v1.65.2"))
    editor.write("nums.py", NUMBERS)
    # 24 blocks: each line changed twice, in order (every block sees the earlier ones).
    response = "".join(edit_v3("nums.py", f"line_{i} = {i}\n", f"line_{i} = {i}0\n")
                       for i in range(12))
    response += "".join(edit_v3("nums.py", f"line_{i} = {i}0\n", f"line_{i} = {i}00\n")
                        for i in range(12))
    result = await editor.run("llmEdits.preview", {"response": response})
    assert len(result["blocks"]) == 24
    (reports,) = editor.client.progress_reports.values()
    assert [r.kind for r in reports] == ["begin", "end"]


# ------------------------------------------------------------------ errors


async def test_handler_errors_answer_with_an_error_and_the_server_keeps_serving(
    editor: Editor,
) -> None:
    await editor.start()
    editor.write("util.py", "X = 1\n")
    with pytest.raises(JsonRpcException, match="matching"):
        await editor.run("llmEdits.preview", {"response": "x", "options": {"matching": "fuzzy"}})
    with pytest.raises(JsonRpcException, match="not an open document"):
        await editor.run("llmEdits.apply", {"responseUri": editor.uri("missing.md")})
    with pytest.raises(JsonRpcException, match="unknown runId"):
        await editor.run("llmEdits.applyFix", {"runId": "gone", "index": 0, "fix": "closest"})
    with pytest.raises(JsonRpcException, match="one object argument"):
        await editor.run("llmEdits.preview", ["not", "an", "object"])
    errors = [m.message for m in editor.client.log_messages if m.type == types.MessageType.Error]
    assert len(errors) == 4 and "fuzzy" in errors[0]
    result = await editor.run("llmEdits.apply", {"response": edit_v3("util.py", "X = 1\n",
                                                                     "X = 3\n")})
    assert result["applied"] is True and editor.text("util.py") == "X = 3\n"


# The planner fails once (an injected fault), then works: the error must reach the client as
# an error response, be logged, and leave the server serving.
FLAKY_PLANNER_SERVER = [sys.executable, "-c", """
import lsp_server.lsp.client_refusals as planner
import lsp_server.server as server
real_plan_edits = planner.plan_edits
calls = []
def flaky_plan_edits(*args, **kwargs):
    calls.append(1)
    if len(calls) == 1:
        raise RuntimeError("injected planner failure")
    return real_plan_edits(*args, **kwargs)
planner.plan_edits = flaky_plan_edits
server.main()
"""]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=FLAKY_PLANNER_SERVER))
async def flaky_client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def test_unexpected_exception_is_an_internal_error_and_the_server_goes_on(
    flaky_client: LanguageClient, root: Path
) -> None:
    editor = Editor(flaky_client, root)
    await editor.start()
    editor.write("util.py", "X = 1\n")
    response = edit_v3("util.py", "X = 1\n", "X = 2\n")
    with pytest.raises(JsonRpcException, match="injected planner failure") as failure:
        await editor.run("llmEdits.apply", {"response": response})
    assert failure.value.code == -32603  # InternalError
    (logged,) = [m.message for m in flaky_client.log_messages
                 if m.type == types.MessageType.Error]
    assert "RuntimeError: injected planner failure" in logged and "Traceback" in logged
    result = await editor.run("llmEdits.apply", {"response": response})
    assert result["applied"] is True and editor.text("util.py") == "X = 2\n"


async def test_incremental_changes_count_lines_as_lsp_does(editor: Editor) -> None:
    # pygls's own document copy splits lines like str.splitlines (form feed = line break);
    # an editor does not: line 1 below is "line = 1", not "b".
    await editor.start()
    editor.write("ff.py", "a\x0cb\nline = 1\n")
    uri = editor.open("ff.py")
    editor.client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=1, character=7),
                              end=types.Position(line=1, character=8)),
            text="5")]))
    editor.buffers[uri] = ("a\x0cb\nline = 5\n", 2)
    result = await editor.run("llmEdits.apply", {
        "response": edit_v3("ff.py", "line = 5\n", "line = 6\n")})
    assert result["blocks"][0]["status"] == "applied", result["blocks"][0]["reason"]
    assert editor.text("ff.py") == "a\x0cb\nline = 6\n"


async def test_response_size_limit_is_a_clear_error(editor: Editor) -> None:
    await editor.start(initialization_options={"maxResponseBytes": 100})
    with pytest.raises(JsonRpcException, match="more than maxResponseBytes"):
        await editor.run("llmEdits.preview", {"response": "x" * 101})
    result = await editor.run("llmEdits.preview", {"response": "x" * 100})
    assert result["blocks"] == []


# ------------------------------------------------------------------ process entry points


def test_version_flag() -> None:
    out = subprocess.run([*SERVER, "--version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.startswith("llm-edits ")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def _connect_when_listening(
    proc: asyncio.subprocess.Process, port: int, timeout: float = 120
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect once the server listens: retried until it does, it exits, or ``timeout``
    (generous: how long the server takes to start is the machine's business)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            return await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            if proc.returncode is not None:
                pytest.fail(f"the server exited ({proc.returncode}) instead of listening")
            if asyncio.get_running_loop().time() > deadline:
                pytest.fail("the server did not listen")
            await asyncio.sleep(0.05)  # poll interval, not a guess at how long it takes


async def test_tcp_mode_answers_initialize(tmp_path: Path) -> None:
    port = _free_port()
    log_file = tmp_path / "server.log"
    proc = await asyncio.create_subprocess_exec(
        *SERVER, "--tcp", "--host", "127.0.0.1", "--port", str(port), "--log-file",
        str(log_file))
    try:
        reader, writer = await _connect_when_listening(proc, port)
        writer.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                             "params": {"processId": None, "rootUri": tmp_path.as_uri(),
                                        "capabilities": {}}}))
        await writer.drain()
        header = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        length = int(re.search(rb"Content-Length: (\d+)", header).group(1))
        answer = json.loads(await reader.readexactly(length))
        assert answer["id"] == 1
        assert answer["result"]["serverInfo"]["name"] == "llm-edits"
        writer.close()
    finally:
        proc.terminate()
        await proc.wait()
    assert log_file.exists()


# ------------------------------------------------------------------ server state (in process)


def test_open_buffers_are_found_by_path_whatever_the_uri_encoding(tmp_path: Path) -> None:
    from lsp_server.lsp.buffers import OpenBuffers

    real = tmp_path / "a dir"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    buffers = OpenBuffers()
    uri = "file://" + str(tmp_path / "link").replace(" ", "%20") + "/f%C3%BC.py"
    buffers.open(types.TextDocumentItem(uri=uri, language_id="python", version=4, text="x"))
    by_path = buffers.by_path()
    assert by_path[tmp_path / "link" / "fü.py"].version == 4
    assert by_path[real.resolve() / "fü.py"].uri == uri
    assert buffers.get(uri.replace("%C3%BC", "ü")) is not None
    buffers.close(uri.replace("%C3%BC", "ü"))
    assert buffers.by_path() == {}


async def test_previews_follow_the_buffer_as_it_changes_between_them(editor: Editor) -> None:
    # The server keeps each buffer's parse between runs: it must never outlive the text.
    await editor.start()
    editor.write("app.py", APP)
    editor.open("app.py")
    response = edit_v3("app.py", "    return 'hi ' + name\n", "    return 'yo ' + name\n")
    first = await editor.run("llmEdits.preview", {"response": response})
    assert first["blocks"][0]["status"] == "validated" and first["blocks"][0]["line"] == 1
    again = await editor.run("llmEdits.preview", {"response": response})  # reuses the parse
    assert again["edit"] == first["edit"]
    editor.type("app.py", "# header\n" + APP)  # the matched line moves down by one
    moved = await editor.run("llmEdits.preview", {"response": response})
    (block,) = moved["blocks"]
    assert block["status"] == "validated" and block["line"] == 2
    (doc_edit,) = moved["edit"]["documentChanges"]
    assert doc_edit["textDocument"]["version"] == 2
    assert doc_edit["edits"][0]["range"]["start"]["line"] == 2
    editor.type("app.py", APP.replace("'hi '", "'bye '"))  # the matched line is gone
    gone = await editor.run("llmEdits.preview", {"response": response})
    assert gone["blocks"][0]["status"] == "failed"
    editor.close("app.py")
    (editor.root / "app.py").write_text("\n\n" + APP)
    disk = await editor.run("llmEdits.preview", {"response": response})
    assert disk["blocks"][0]["status"] == "validated" and disk["blocks"][0]["line"] == 3


def test_open_buffers_keep_the_line_count_of_their_very_text() -> None:
    from lsp_server.lsp.buffers import OpenBuffers

    buffers = OpenBuffers()
    uri = "file:///w/a.py"
    text = "one\ntwo\n"
    buffers.open(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    assert len(buffers.text_lines(uri, text)) == 3
    assert buffers.get(uri).line_count == 3  # kept for the next run
    equal_copy = "".join(["one\n", "two\n"])  # equal text, another object: not trusted
    assert buffers.text_lines(uri, equal_copy)._count is None
    buffers.change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="x\r\ny\rz")]),
        "utf-16")
    assert buffers.get(uri).line_count is None
    assert len(buffers.text_lines(uri, buffers.get(uri).text)) == 3
    assert len(buffers.text_lines("file:///w/closed.py", "a\nb")) == 2


def _read_run(buffers: Any, names: str) -> dict[str, Any]:
    """One run over ``buffers`` that reads the files ``names`` (one letter each) as the
    planner does, then lets the buffers keep its parses; the snapshots it read, by name."""
    from lsp_server.lsp.file_reader import FileReader

    reader = FileReader(buffers.by_written_path())
    for name in names:
        snapshot = reader(Path(f"/w/{name}.py"))
        assert snapshot.prepared is not None and snapshot.prepared.raw is snapshot.text
        snapshot.prepared.doc  # noqa: B018 - the planner parses what it reads
    buffers.keep_parses(reader.read_buffers)
    return {b.path.stem: b for b in reader.read_buffers}


def test_open_buffers_keep_one_parse_per_text_within_the_cap() -> None:
    from lsp_server.lsp.buffers import OpenBuffers

    buffers = OpenBuffers(prepared_max_chars=10)
    uris = [f"file:///w/{name}.py" for name in "abc"]
    for uri in uris:
        buffers.open(types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                            text="abcd"))
    first = _read_run(buffers, "ab")  # a run's parses are kept for the next runs
    assert buffers.get(uris[0]).prepared is first["a"].prepared
    assert buffers.get(uris[1]).prepared is first["b"].prepared
    assert buffers.get(uris[2]).prepared is None  # not read: no parse made
    second = _read_run(buffers, "c")  # over the 10-character cap: the oldest parse goes
    assert buffers.get(uris[0]).prepared is None
    assert buffers.get(uris[1]).prepared is first["b"].prepared
    assert buffers.get(uris[2]).prepared is second["c"].prepared
    assert _read_run(buffers, "c")["c"].prepared is second["c"].prepared  # reused
    buffers.close(uris[1])
    buffers.change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uris[2], version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="xyz\n")]),
        "utf-16")
    assert buffers.get(uris[2]).prepared is None  # it described the old text
    changed = _read_run(buffers, "c")["c"]
    assert changed.prepared is not second["c"].prepared
    assert changed.prepared.raw is changed.text and changed.prepared.doc.lines == ["xyz"]
    assert buffers.get(uris[2]).prepared is changed.prepared


def test_a_run_reading_more_than_the_cap_keeps_the_parses_it_uses() -> None:
    # Plain LRU would thrash: each new parse would evict one this very run needs next time,
    # and every run would parse every file again. Parses the run used stay; the rest of
    # its files are parsed for the run alone.
    from lsp_server.lsp.buffers import OpenBuffers

    buffers = OpenBuffers(prepared_max_chars=12)
    for name in "abcde":
        buffers.open(types.TextDocumentItem(uri=f"file:///w/{name}.py", language_id="python",
                                            version=1, text="1234"))
    first = _read_run(buffers, "abcde")
    kept = {name for name in "abcde" if buffers.get(f"file:///w/{name}.py").prepared}
    assert kept == {"a", "b", "c"}
    again = _read_run(buffers, "abcde")
    assert all(again[name].prepared is first[name].prepared for name in "abc")
    assert all(again[name].prepared is not first[name].prepared for name in "de")
    assert {name for name in "abcde" if buffers.get(f"file:///w/{name}.py").prepared} == kept
    # A run elsewhere takes the room of parses it did not use, oldest first.
    _read_run(buffers, "e")
    assert {name for name in "abcde" if buffers.get(f"file:///w/{name}.py").prepared} == {
        "b", "c", "e"}


def test_a_parse_is_not_kept_for_a_buffer_that_changed_during_the_run() -> None:
    from lsp_server.lsp.buffers import OpenBuffers
    from lsp_server.lsp.file_reader import FileReader

    buffers = OpenBuffers()
    uri = "file:///w/a.py"
    buffers.open(types.TextDocumentItem(uri=uri, language_id="python", version=1, text="one\n"))
    reader = FileReader(buffers.by_written_path())
    assert reader(Path("/w/a.py")).prepared.doc.lines == ["one"]
    buffers.change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="two\n")]),
        "utf-16")
    buffers.keep_parses(reader.read_buffers)
    assert buffers.get(uri).prepared is None


def test_diagnostics_encoded_in_advance_are_what_pygls_writes() -> None:
    # A big run's publishDiagnostics are encoded in a worker thread (lsp/off_loop.py): the
    # same JSON as pygls writes for them.
    from lsp_server.lsp.diagnostics import PublishedDiagnostics
    from lsp_server.server import LlmEditsServer

    server = LlmEditsServer()
    written: list[bytes] = []

    class Writer:
        def write(self, data: bytes) -> None:
            written.append(data)

    server.protocol.set_writer(Writer())
    diagnostic = types.Diagnostic(
        range=types.Range(start=types.Position(line=1, character=0),
                          end=types.Position(line=1, character=4)),
        message="No match\né😀\u202e", severity=types.DiagnosticSeverity.Error,
        code="failed", source="llm-edits", data={"runId": "r", "index": 3})
    diagnostics = {"file:///w/a.py": [diagnostic], "file:///w/b.py": []}
    PublishedDiagnostics(server._publish).publish_run(diagnostics)
    PublishedDiagnostics(server._publish).publish_run(
        diagnostics, server.publish_encoded(server.encode_publications(diagnostics)))
    bodies = [json.loads(w.split(b"\r\n\r\n", 1)[1]) for w in written]
    assert len(bodies) == 4 and bodies[:2] == bodies[2:]
