"""Crash safety: wrong calls are error responses, the server keeps serving, a killed server
can be replaced mid-session without losing anything.

Every command is called with malformed arguments (wrong types, missing keys, values of the
wrong kind, the inputs that once escaped as internal errors): each gets an ``InvalidParams``
error naming the problem, logged with ``window/logMessage``, and the next request is served
normally. Malformed notifications (didChange for unknown documents, out-of-range positions)
are survived too. Finally the server is killed with SIGKILL in the middle of a session and a
new one takes over the re-opened buffers.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from lsp_server.testing.editor_session import EditorSession

RESPONSE = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
FAILING = "a.py\n<<<<<<< SEARCH\nx = 100\n=======\nx = 2\n>>>>>>> REPLACE\n"

EDIT_COMMANDS = ["llmEdits.parse", "llmEdits.preview", "llmEdits.apply", "llmEdits.feedback"]
# (command, argument, words the error message must contain)
MALFORMED: list[tuple[str, Any, str]] = [
    *[(c, arg, words) for c in EDIT_COMMANDS for arg, words in [
        ("just a string", "one object argument"),
        ([RESPONSE], "one object argument"),
        ({}, "`response`"),
        ({"response": 42}, "`response` must be a string"),
        ({"response": None, "responseUri": None}, "`response`"),
        ({"responseUri": 7}, "`responseUri` must be a string"),
        # Once an internal error: a non-string responseUri beside a valid response.
        ({"response": RESPONSE, "responseUri": 0}, "`responseUri` must be a string"),
        ({"response": RESPONSE, "responseUri": ["file:///x"]}, "`responseUri` must be a string"),
        ({"responseUri": "file:///no/such/response.md"}, "not an open document"),
        ({"response": RESPONSE, "options": "fast"}, "options must be an object"),
        ({"response": RESPONSE, "options": {"matching": "fuzzy"}}, "matching"),
        ({"response": RESPONSE, "options": {"atomic": "yes"}}, "atomic"),
        ({"response": RESPONSE, "options": {"formats": "edit-v3"}}, "formats"),
        ({"response": RESPONSE, "options": {"formats": ["edit-v9"]}}, "edit-v9"),
        ({"response": RESPONSE, "options": {"includeText": 1}}, "includeText"),
        ({"response": RESPONSE, "options": {"maxResponseBytes": -1}}, "maxResponseBytes"),
        ({"response": RESPONSE, "options": {"maxResponseBytes": 10}}, "maxResponseBytes"),
    ]],
    ("llmEdits.applyFix", None, "applyFix"),
    ("llmEdits.applyFix", {"runId": 5, "index": 0, "fix": "closest"}, "runId"),
    ("llmEdits.applyFix", {"runId": "r", "index": "0", "fix": "closest"}, "index"),
    ("llmEdits.applyFix", {"runId": "r", "index": True, "fix": "closest"}, "index"),
    ("llmEdits.applyFix", {"runId": "r", "index": 0, "fix": "magic"}, "fix"),
    ("llmEdits.applyFix", {"runId": "no-such-run", "index": 0, "fix": "closest"}, "unknown runId"),
    ("llmEdits.copyFeedback", None, "runId"),
    ("llmEdits.copyFeedback", {"runId": ["r"]}, "runId"),
    ("llmEdits.copyFeedback", {"runId": "r", "index": 1.5}, "index"),
    ("llmEdits.copyFeedback", {"runId": "no-such-run"}, "unknown runId"),
    ("llmEdits.instructions", "edit-v3", "format"),
    ("llmEdits.instructions", {"format": "edit-v9"}, "edit-v9"),
    ("llmEdits.instructions", {"format": 3}, "format"),
]


def _workspace(root: Path) -> Path:
    root.mkdir()
    (root / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    (root / "b.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return _workspace(tmp_path / "ws")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shared() -> AsyncIterator[EditorSession]:
    """One server for the tests that only need it to survive bad input (starting one costs
    seconds); each test uses its own file."""
    with tempfile.TemporaryDirectory() as tmp:
        editor = EditorSession(_workspace(Path(tmp) / "ws"))
        await editor.start()
        try:
            yield editor
        finally:
            await editor.stop()


@pytest.mark.asyncio(loop_scope="module")
async def test_malformed_arguments_of_every_command_are_invalid_params(
        shared: EditorSession) -> None:
    editor, workspace = shared, shared.root
    editor.open("a.py")
    for command, argument, words in MALFORMED:
        with pytest.raises(JsonRpcException) as caught:
            await editor.run(command, argument)
        error = caught.value
        assert error.code == JsonRpcInvalidParams.CODE, (command, argument, error.message)
        assert words in error.message, (command, argument, error.message)
        assert error.message.startswith(command), error.message
    # Each was also logged for the user, as an error.
    logged = [m.message for m in editor.client.log_messages
              if m.type == types.MessageType.Error]
    for command, _argument, words in MALFORMED:
        assert any(m.startswith(command) and words in m for m in logged), (command, words)
    # And the server still does real work, on the buffer it was given before.
    result = await editor.run("llmEdits.apply", {"response": RESPONSE})
    assert result["applied"] is True
    assert editor.text("a.py") == "x = 2\ny = 2\n"
    assert (workspace / "a.py").read_text(encoding="utf-8") == "x = 1\ny = 2\n"


@pytest.mark.asyncio(loop_scope="module")
async def test_unknown_command_and_protocol_level_garbage(shared: EditorSession) -> None:
    editor = shared
    with pytest.raises(JsonRpcException) as caught:
        await editor.run("llmEdits.explode", {})
    assert "llmEdits.explode" in caught.value.message
    # Raw messages an editor should never send: undecodable JSON, a request whose
    # params do not fit executeCommand, arguments that are not a list.
    stdin = editor.client._server.stdin
    for body in [b"{not json", b"[]", b'{"jsonrpc":"2.0","id":9001,"method":5}',
                 b'{"jsonrpc":"2.0","id":9002,"method":"workspace/executeCommand",'
                 b'"params":[1,2]}',
                 b'{"jsonrpc":"2.0","id":9003,"method":"workspace/executeCommand",'
                 b'"params":{"command":"llmEdits.preview","arguments":5}}']:
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    await stdin.drain()
    assert await editor.ping()
    response = RESPONSE.replace("a.py", "b.py")
    assert (await editor.run("llmEdits.preview", {"response": response}))["blocks"][0][
        "status"] == "validated"


@pytest.mark.asyncio(loop_scope="module")
async def test_malformed_notifications_are_survived(shared: EditorSession) -> None:
    editor = shared
    uri = editor.open("b.py")
    client = editor.client
    # didChange / didClose for documents that were never opened.
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(
            uri=editor.uri("nowhere.py"), version=3),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="zzz")]))
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=editor.uri("nowhere.py"))))
    # A change whose range lies far past the end of the buffer (clamped to the end).
    editor.buffers[uri] = ("x = 1\ny = 2\n# tail\n", 2)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=999, character=5),
                              end=types.Position(line=1000, character=99)),
            text="# tail\n")]))
    # A didOpen of a non-file URI and of text with NUL and odd line breaks.
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(
            uri="untitled:Untitled-1", language_id="markdown", version=1,
            text=RESPONSE.replace("a.py", "b.py"))))
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(
            uri=editor.uri("odd.txt"), language_id="plaintext", version=1,
            text="a\x00b\r\u2028c\x0cd\r\n")))
    assert await editor.ping()
    # The open buffer got the clamped change; the next apply uses it.
    response = RESPONSE.replace("a.py", "b.py")
    result = await editor.run("llmEdits.apply", {"response": response})
    assert result["applied"] is True
    assert editor.text("b.py") == "x = 2\ny = 2\n# tail\n"
    # A response held in an untitled buffer is readable; a binary buffer is refused.
    result = await editor.run("llmEdits.preview", {"responseUri": "untitled:Untitled-1"})
    # b.py has x = 2 now: the block is already applied.
    assert [b["status"] for b in result["blocks"]] == ["already-applied"]
    odd = "odd.txt\n<<<<<<< SEARCH\nc\n=======\nC\n>>>>>>> REPLACE\n"
    result = await editor.run("llmEdits.preview", {"response": odd})
    assert "binary" in result["blocks"][0]["reason"]


async def test_server_killed_mid_session_is_replaced(workspace: Path) -> None:
    """SIGKILL with buffers open and a request in flight; a new server takes over."""
    # The server holds each run before planning until released (lsp/planning_hold.py): the
    # kill below comes while a request is surely in flight, on any machine.
    editor = EditorSession(workspace, hold_planning=True)
    await editor.start()
    editor.open("a.py", "x = 1\ny = 2\nz = 3  # unsaved\n")
    preview = asyncio.ensure_future(editor.run("llmEdits.preview", {"response": FAILING}))
    await editor.planning_held()
    editor.release_planning()
    result = await preview
    assert result["blocks"][0]["status"] == "failed"
    disk_before = (workspace / "a.py").read_bytes()

    # A request in flight when the process dies fails on the client side, it does not hang.
    in_flight = asyncio.ensure_future(editor.run("llmEdits.apply", {"response": RESPONSE}))
    await editor.planning_held()
    old_pid = editor.pid
    code = await editor.kill()
    assert code == -9
    with pytest.raises(Exception):  # noqa: B017 - the client reports the dead server its own way
        await asyncio.wait_for(in_flight, 30)
    assert (workspace / "a.py").read_bytes() == disk_before  # the server never writes

    # The editor starts a new server and re-opens what the user had open (unsaved text).
    replacement = EditorSession(workspace)
    await replacement.start()
    try:
        assert replacement.pid != old_pid
        replacement.open("a.py", editor.text("a.py"))
        result = await replacement.run("llmEdits.apply", {"response": RESPONSE})
        assert result["applied"] is True
        assert replacement.text("a.py") == "x = 2\ny = 2\nz = 3  # unsaved\n"
        assert [b["status"] for b in result["blocks"]] == ["applied"]
        # Runs of the dead server are gone: a clear error, not a crash.
        with pytest.raises(JsonRpcException) as caught:
            await replacement.run("llmEdits.copyFeedback", {"runId": result["runId"] + "x"})
        assert caught.value.code == JsonRpcInvalidParams.CODE
        assert await replacement.ping()
    finally:
        await replacement.stop()
    assert (workspace / "a.py").read_bytes() == disk_before
