"""Clients that misbehave: every request still gets an answer, and no user text is lost.

Editors are not always well-behaved clients: they answer ``workspace/applyEdit`` with ``null``
or never, send requests the protocol cannot read, send our diagnostics back with their ``data``
mangled, close and re-open buffers while a run plans, or take only the ``changes`` map. Each
test drives the server over stdio as such a client would
(``lsp_server.testing.editor_session``'s scripted editor, or raw frames where the message itself
is the garbage) and checks what the user would see."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from lsp_server.testing.editor_session import EditorSession
from lsp_server.testing.wire_client import RawSession


def search_replace(path: str, old: str, new: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    return root.resolve()


async def started(root: Path, **kwargs: Any) -> EditorSession:
    editor = EditorSession(root, **kwargs)
    await editor.start()
    return editor


@pytest.fixture
async def editor(workspace: Path) -> AsyncIterator[EditorSession]:
    session = await started(workspace)
    try:
        yield session
    finally:
        await session.stop()


# ------------------------------------------------------------------ code actions


async def test_code_action_on_a_diagnostic_with_mangled_data_offers_nothing(
        editor: EditorSession) -> None:
    editor.open("a.py")
    result = await editor.run("llmEdits.preview", {
        "response": search_replace("a.py", "x = 100\n", "x = 2\n")})
    assert result["blocks"][0]["status"] == "failed"
    (ours,) = editor.client.diagnostics[editor.uri("a.py")]
    run_id = result["runId"]
    for data in ({"runId": [run_id], "index": 0}, {"runId": run_id, "index": {"i": 0}},
                 {"runId": {"id": run_id}, "index": [0]}):
        mangled = types.Diagnostic(range=ours.range, message=ours.message, source=ours.source,
                                   code=ours.code, data=data)
        actions = await editor.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri("b.py")),
            range=ours.range, context=types.CodeActionContext(diagnostics=[mangled])))
        assert list(actions or []) == [], data
    assert await editor.ping()


# ------------------------------------------------------------------ workspace/applyEdit answers


RESPONSE = search_replace("a.py", "x = 1\n", "x = 2\n")


@pytest.mark.parametrize("answer", [None, {}, {"applied": "maybe"}, [True]])
async def test_an_apply_edit_answer_that_cannot_be_read_ends_the_run(
        workspace: Path, answer: Any) -> None:
    # pygls drops an answer it cannot structure as ApplyWorkspaceEditResult: the apply
    # awaited it for ever, and the client never got the command's result.
    sent: list[types.ApplyWorkspaceEditParams] = []

    async def malformed(params: types.ApplyWorkspaceEditParams) -> Any:
        sent.append(params)
        return answer

    editor = await started(workspace, answer_apply_edit=malformed)
    try:
        editor.open("a.py")
        result = await editor.run("llmEdits.apply", {"response": RESPONSE}, timeout=60)
        assert len(sent) == 1
        assert result["applied"] is False
        assert "answer to workspace/applyEdit could not be read" in result["failureReason"]
        assert "unknown" in result["failureReason"]  # the editor may have applied it
        assert [b["status"] for b in result["blocks"]] == ["validated"]
        assert await editor.ping()
    finally:
        await editor.stop()


async def test_an_editor_that_never_answers_apply_edit_times_out(workspace: Path) -> None:
    answered = asyncio.Event()
    late: list[types.ApplyWorkspaceEditParams] = []

    async def never_in_time(params: types.ApplyWorkspaceEditParams) -> Any:
        late.append(params)
        await answered.wait()  # answers only once the server has given up
        return types.ApplyWorkspaceEditResult(applied=True)

    # The timeout comes from initializationOptions; a command's options win over it.
    editor = await started(workspace, answer_apply_edit=never_in_time,
                           initialization_options={"applyEditTimeout": 3600})
    try:
        editor.open("a.py")
        result = await editor.run("llmEdits.apply", {
            "response": RESPONSE, "options": {"applyEditTimeout": 0.2}}, timeout=60)
        assert len(late) == 1
        assert result["applied"] is False
        assert "the editor did not answer workspace/applyEdit within 0.2 s" in result[
            "failureReason"]
        assert [b["status"] for b in result["blocks"]] == ["validated"]
        answered.set()  # the late answer reaches a server that forgot the request
        assert await editor.ping()
        with pytest.raises(Exception, match="applyEditTimeout"):
            await editor.run("llmEdits.apply", {"response": RESPONSE,
                                                "options": {"applyEditTimeout": 0}})
    finally:
        await editor.stop()


# ------------------------------------------------------------------ requests it cannot read


def preview_request(msg_id: Any, arguments: str) -> bytes:
    return (b'{"jsonrpc":"2.0","id":%s,"method":"workspace/executeCommand","params":'
            b'{"command":"llmEdits.preview","arguments":%s}}'
            % (json.dumps(msg_id).encode(), arguments.encode()))


UNREADABLE_REQUESTS: list[tuple[str, bytes, int, str]] = [
    # (what, body, error code, words of the message)
    ("params of the wrong shape", b'{"jsonrpc":"2.0","id":1,"method":'
     b'"workspace/executeCommand","params":[1,2]}', -32602, "do not fit"),
    ("a codeAction without a document", b'{"jsonrpc":"2.0","id":2,"method":'
     b'"textDocument/codeAction","params":{"textDocument":5}}', -32602, "do not fit"),
    ("arguments nested 1000 deep", preview_request(3, "[" * 1000 + "]" * 1000), -32700,
     "nested too deeply"),
    ("id after params nested 5000 deep", b'{"jsonrpc":"2.0","method":'
     b'"workspace/executeCommand","params":{"command":"x","arguments":' + b"[" * 5000
     + b"]" * 5000 + b'},"id":"late-id"}', -32700, "nested too deeply"),
    ("a body that is not UTF-8 (Latin-1)", preview_request(
        5, '[{"response":"cafe"}]').replace(b"cafe", b"caf\xe9"), -32700, "not valid UTF-8"),
    ("no jsonrpc member", b'{"id":6,"method":"workspace/executeCommand","params":'
     b'{"command":"llmEdits.instructions","arguments":[{}]}}', -32600, "jsonrpc"),
    ("jsonrpc 1.0", b'{"jsonrpc":"1.0","id":7,"method":"shutdown"}', -32600, "jsonrpc"),
    ("a method that is not a string", b'{"jsonrpc":"2.0","id":8,"method":5}', -32600,
     "method"),
    ("not JSON after its id", b'{"jsonrpc":"2.0","id":9,"method":"x","params":{', -32700,
     "not JSON"),
]


async def test_every_request_with_an_id_gets_an_answer(workspace: Path) -> None:
    client = await RawSession.start(workspace)
    try:
        for what, body, code, words in UNREADABLE_REQUESTS:
            client.send(body)
            salvaged_id = json.loads(re.search(rb'"id":("[^"]*"|\d+)', body).group(1))
            answer = await client.answer(salvaged_id)
            assert answer.get("error", {}).get("code") == code, (what, answer)
            assert words in answer["error"]["message"], (what, answer)
        # Garbage without an id is not answered (there is nothing to answer to) ...
        for body in (b"{not json", b"[]", b"\xff\xfe", b'{"jsonrpc":"2.0","method":5}'):
            client.send(body)
        # ... and the server goes on serving.
        client.send(preview_request(10, json.dumps([{"response": RESPONSE}])))
        answer = await client.answer(10)
        assert answer["result"]["blocks"][0]["status"] == "validated", answer
        client.send_json({"jsonrpc": "2.0", "id": 11, "method": "shutdown"})
        assert "error" not in await client.answer(11)
        client.send(preview_request(12, json.dumps([{"response": RESPONSE}])))
        answer = await client.answer(12)  # after shutdown: refused, not dropped
        assert answer["error"]["code"] == -32600 and "shutting down" in answer["error"][
            "message"]
    finally:
        await client.stop()


# ------------------------------------------------------------------ workspace folders


async def test_no_edits_once_the_last_workspace_folder_is_removed(
        editor: EditorSession) -> None:
    folder = types.WorkspaceFolder(uri=editor.root.as_uri(), name="ws")
    result = await editor.run("llmEdits.preview", {"response": RESPONSE})
    assert result["blocks"][0]["status"] == "validated"
    editor.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[], removed=[folder])))
    result = await editor.run("llmEdits.apply", {"response": RESPONSE})
    (block,) = result["blocks"]
    assert block["status"] == "failed", block  # not under the initialize-time rootUri
    assert block["reason"] == "Path refused: no workspace folder is open"
    assert result["applied"] is False and editor.applies == []
    # A folder added again is the workspace again.
    editor.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[folder], removed=[])))
    result = await editor.run("llmEdits.apply", {"response": RESPONSE})
    assert result["applied"] is True


# ------------------------------------------------------------------ deletes and re-creates


def apply_patch(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


DELETE_A = apply_patch("*** Delete File: a.py\n")


async def test_a_delete_of_a_buffer_with_unsaved_changes_is_refused(
        editor: EditorSession) -> None:
    editor.open("a.py", "x = 1\ny = 2\nz = 3  # unsaved\n")
    result = await editor.run("llmEdits.apply", {"response": DELETE_A})
    (block,) = result["blocks"]
    assert block["status"] == "failed", block
    assert "a.py has unsaved changes" in block["reason"]
    assert result["edit"] is None and result["applied"] is False and editor.applies == []
    assert (editor.root / "a.py").exists()
    assert editor.text("a.py") == "x = 1\ny = 2\nz = 3  # unsaved\n"
    # Saved (the buffer holds the file's text): the delete goes through.
    (editor.root / "a.py").write_text("x = 1\ny = 2\nz = 3  # unsaved\n", encoding="utf-8")
    result = await editor.run("llmEdits.apply", {"response": DELETE_A})
    assert result["blocks"][0]["status"] == "applied" and result["applied"] is True
    assert not (editor.root / "a.py").exists()


MOVE_THEN_CREATE = apply_patch(
    "*** Update File: a.py\n*** Move to: b.py\n@@\n-x = 1\n+x = 10\n",
    "*** Add File: a.py\n+new = True\n")
DELETE_THEN_CREATE = apply_patch("*** Delete File: a.py\n", "*** Add File: a.py\n+fresh\n")


@pytest.mark.parametrize(("response", "how"), [(MOVE_THEN_CREATE, "moved away"),
                                               (DELETE_THEN_CREATE, "deleted")])
async def test_a_changes_only_client_is_refused_a_path_left_and_written_again(
        workspace: Path, response: str, how: str) -> None:
    # Neovim's kind of client: the `changes` map, no resource operations. The move or delete
    # is not sent, so the created file's text would land in the old a.py.
    (workspace / "c.py").write_text("c = 1\n", encoding="utf-8")
    response += search_replace("c.py", "c = 1\n", "c = 2\n")  # unrelated: still applies
    editor = await started(workspace, document_changes=False)
    try:
        editor.open("a.py")
        result = await editor.run("llmEdits.apply", {"response": response})
        first, second, other = result["blocks"]
        assert first["status"] == second["status"] == "failed", result["blocks"]
        assert first["reason"] == second["reason"]
        assert f"a.py is {how} by block 1 and written again by block 2" in first["reason"]
        assert "cannot" in first["reason"]
        assert other["status"] == "applied" and result["applied"] is True
        assert editor.text("a.py") == "x = 1\ny = 2\n"  # untouched
        assert editor.text("c.py") == "c = 2\n"
        assert not (workspace / "b.py").exists()
    finally:
        await editor.stop()


async def test_a_client_with_resource_operations_may_leave_a_path_and_write_it_again(
        editor: EditorSession) -> None:
    editor.open("a.py")
    result = await editor.run("llmEdits.preview", {"response": MOVE_THEN_CREATE})
    assert [b["status"] for b in result["blocks"]] == ["validated", "validated"]
    kinds = [c.get("kind", "edit") for c in result["edit"]["documentChanges"]]
    assert kinds == ["edit", "rename", "create", "edit"]


# ------------------------------------------------------------------ the long run's categories


async def test_random_hostile_clients_of_the_long_run_find_nothing(tmp_path: Path) -> None:
    # fuzz/run_fuzz.py's server phase runs these at scale; a few of each here.
    from fuzz.hostile_clients import run_hostile_clients, unreadable_request

    report = await run_hostile_clients(tmp_path, examples=60, seed=13)
    assert report.problems == []
    assert (report.requests, report.applies, report.code_actions) == (60, 6, 6)
    rng = random.Random(1)
    assert all(b'"id":7' in unreadable_request(rng, 7) for _ in range(50))
