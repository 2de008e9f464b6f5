"""End to end: the language server over stdio, driven by pytest-lsp as an editor would drive it
(the test editor is :class:`lsp_server.testing.editor.Editor`; the ``client`` and ``editor``
fixtures are in conftest.py)."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_server.instructions import TAUGHT_FORMAT_NAMES
from lsp_server.testing import SERVER_COMMAND as SERVER
from lsp_server.testing.editor import Editor

from .responses import edit_v3

COMMANDS = {
    "llmEdits.parse", "llmEdits.preview", "llmEdits.apply", "llmEdits.feedback",
    "llmEdits.instructions", "llmEdits.clear", "llmEdits.applyFix", "llmEdits.copyFeedback",
    "llmEdits.watch", "llmEdits.unwatch", "llmEdits.mcpEndpoint", "llmEdits.lastEditor",
}


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
    editor.open("app.py")
    editor.type("app.py", buffer)
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
    editor.open("emoji.py")
    editor.type("emoji.py", text + "w = 0\n")  # buffer differs: it must win
    response = (edit_v3("emoji.py", "x = '😀😀'; y = 1  # 😀\n", "x = '😀😀'; y = 2  # 😀\n")
                + edit_v3("emoji.py", "z = '😀'\n", "z = '😀!'\n"))
    result = await editor.run("llmEdits.apply", {"response": response})
    assert result["applied"] is True
    assert editor.text("emoji.py") == "x = '😀😀'; y = 2  # 😀\nz = '😀!'\nw = 0\n"


async def test_bom_in_an_open_buffer_is_never_covered_by_an_edit(editor: Editor) -> None:
    await editor.start()
    editor.write("bom.py", "first = 1\nsecond = 2\n")
    editor.open("bom.py")
    editor.type("bom.py", "\ufefffirst = 1\nsecond = 2\n")
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
    response_uri = editor.open("chat.md")
    editor.type("chat.md", response)
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
    assert every["formats"] == list(TAUGHT_FORMAT_NAMES)
    assert len(every["text"]) > len(one["text"])
    with pytest.raises(JsonRpcException, match="unknown format"):
        await editor.run("llmEdits.instructions", {"format": "nope"})
    # Agents' tool-call formats: their tools define them, there is nothing to teach.
    with pytest.raises(JsonRpcException, match="tool-call format"):
        await editor.run("llmEdits.instructions", {"format": "str-replace"})


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
