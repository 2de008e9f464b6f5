"""A test per hook of lsp_server/lsp/pygls_hooks.py: each fails if pygls changes under it.

Each checks that what the hook replaces is still there under the name and signature the
hook overrides, and that the behaviour the hook relies on (or gives) still holds.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import inspect
import json
import re
from pathlib import Path
from typing import Any

import attrs
import pytest
from lsprotocol import types
from packaging.requirements import Requirement
from pygls.exceptions import JsonRpcInvalidParams
from pygls.io_ import run_async
from pygls.protocol import LanguageServerProtocol, json_rpc

from lsp_server.lsp.protocol.pygls_hooks import (
    EncodedJson,
    LlmEditsProtocol,
    NoAnswer,
    UnreadableAnswer,
    keep_tcp_server,
    new_stop_event,
)
from lsp_server.server import LlmEditsServer, server

PYPROJECT = Path(__file__).resolve().parents[4] / "pyproject.toml"


class _Writer:
    """pygls's writer interface, keeping the messages sent."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))


def _serving() -> tuple[LlmEditsServer, _Writer]:
    server = LlmEditsServer()
    writer = _Writer()
    server.protocol.set_writer(writer)
    return server, writer


def _parameters(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_pygls_is_within_the_range_the_hooks_were_checked_against() -> None:
    (line,) = re.findall(r'^\s*"(pygls\b[^"]*)"', PYPROJECT.read_text(), re.M)
    pin = Requirement(line)
    assert pin.specifier.contains(importlib.metadata.version("pygls"))


# ------------------------------------------------------------------ 1. document builtins


@pytest.mark.parametrize(("method", "name"), [
    (types.TEXT_DOCUMENT_DID_OPEN, "lsp_text_document__did_open"),
    (types.TEXT_DOCUMENT_DID_CHANGE, "lsp_text_document__did_change"),
    (types.TEXT_DOCUMENT_DID_CLOSE, "lsp_text_document__did_close"),
])
def test_document_builtins_replace_pygls_own(method: str, name: str) -> None:
    # pygls registers a builtin per method from the protocol's methods carrying `method_name`;
    # ours replace its three only while they keep the same attribute names.
    assert getattr(LanguageServerProtocol, name).method_name == method
    assert server.protocol.fm.builtin_features[method].__func__ is getattr(LlmEditsProtocol,
                                                                          name)


def test_document_notifications_reach_the_handler_untouched_and_pygls_keeps_no_copy() -> None:
    # The server's own handlers (registered on the module's server) receive them as sent.
    item = types.TextDocumentItem(uri="file:///ws/a.txt", language_id="plaintext", version=1,
                                  text="a\x0cb\u2028c\n")
    change = types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=item.uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=0, character=9),
                              end=types.Position(line=0, character=99)), text="!")])
    before = repr(change)
    for method, params in [(types.TEXT_DOCUMENT_DID_OPEN, types.DidOpenTextDocumentParams(
            text_document=item)), (types.TEXT_DOCUMENT_DID_CHANGE, change)]:
        builtin = server.protocol.fm.builtin_features[method]
        ((handler, args, _),) = list(builtin(params))  # pygls runs the handler it yields
        assert handler is server.protocol.fm.features[method] and args == (params,)
    assert repr(change) == before  # pygls's own builtin clamps the range in place
    assert server.protocol._workspace is None  # pygls made no copy (nor a workspace for one)


# ------------------------------------------------------------------ 2. executeCommand


def test_execute_command_replaces_pygls_builtin() -> None:
    assert (LanguageServerProtocol.lsp_workspace__execute_command.method_name
            == types.WORKSPACE_EXECUTE_COMMAND)
    builtin = server.protocol.fm.builtin_features[types.WORKSPACE_EXECUTE_COMMAND]
    assert builtin.__func__ is LlmEditsProtocol.lsp_workspace__execute_command
    assert "llmEdits.preview" in server.protocol.fm.commands


async def test_execute_command_passes_the_arguments_as_sent() -> None:
    server = LlmEditsServer()
    seen: list[tuple] = []

    @server.command("test.echo")
    async def echo(ls: LlmEditsServer, *args: Any) -> dict:
        seen.append(args)
        return {"n": len(args)}

    run = server.protocol.lsp_workspace__execute_command
    params = types.ExecuteCommandParams(command="test.echo", arguments=[{"a": [1]}, "b"])
    assert await asyncio.ensure_future(run(params)) == {"n": 2}
    assert seen == [({"a": [1]}, "b")]
    with pytest.raises(JsonRpcInvalidParams, match="not defined"):
        await asyncio.ensure_future(run(types.ExecuteCommandParams(command="test.none")))


# ------------------------------------------------------------------ 3. $/cancelRequest


def test_cancel_handling_is_what_the_hook_overrides() -> None:
    assert _parameters(json_rpc.JsonRPCProtocol._handle_cancel_notification) == ["self",
                                                                                 "msg_id"]
    assert isinstance(LlmEditsServer().protocol._request_futures, dict)


async def test_a_running_command_runs_to_its_end_and_a_waiting_one_is_cancelled() -> None:
    server, writer = _serving()
    started, go = asyncio.Event(), asyncio.Event()

    @server.command("test.wait")
    async def wait(ls: LlmEditsServer, *args: Any) -> dict:
        started.set()
        await go.wait()
        return {"done": True}

    protocol = server.protocol
    params = types.ExecuteCommandParams(command="test.wait")
    protocol._handle_request(1, types.WORKSPACE_EXECUTE_COMMAND, params)
    task = protocol._request_futures[1]  # pygls keeps a coroutine handler's task by id
    await started.wait()
    protocol._handle_notification(types.CANCEL_REQUEST, types.CancelParams(id=1))
    go.set()
    await task
    protocol._handle_request(2, types.WORKSPACE_EXECUTE_COMMAND, params)
    protocol._handle_notification(types.CANCEL_REQUEST, types.CancelParams(id=2))
    await asyncio.gather(protocol._request_futures.get(2, task), return_exceptions=True)
    await asyncio.sleep(0)  # one loop turn: the done callbacks send the answers
    answers = {m["id"]: m for m in writer.messages if "id" in m}
    assert answers[1]["result"] == {"done": True}
    assert answers[2]["error"]["code"] == -32800  # RequestCancelled, before it started


# ------------------------------------------------------------------ 4. _serialize_message


def _pygls_serialize(protocol: LanguageServerProtocol) -> Any:
    return lambda data: LanguageServerProtocol._serialize_message(protocol, data)


def test_results_and_apply_edits_are_the_json_pygls_would_write() -> None:
    protocol = LlmEditsServer().protocol
    assert _parameters(json_rpc.JsonRPCProtocol._serialize_message) == ["self", "data"]
    result = {"edit": {"changes": {"file:///a": [{"range": {
        "start": {"line": 0, "character": 1}, "end": {"line": 2, "character": 0}},
        "newText": "é😀"}]}}, "blocks": [{"index": 0, "fixes": {}}], "runId": "r"}
    response = json_rpc.JsonRPCResponseMessage(id=3, result=result, jsonrpc="2.0")
    assert (json.loads(json.dumps(response, default=protocol._serialize_message))
            == json.loads(json.dumps(response, default=_pygls_serialize(protocol))))
    params = {"edit": result["edit"], "label": "LLM edits"}
    ours = types.ApplyWorkspaceEditRequest(id=4, params=params)  # type: ignore[arg-type]
    theirs = types.ApplyWorkspaceEditRequest(id=4, params=protocol._converter.structure(
        params, types.ApplyWorkspaceEditParams))
    assert (json.loads(json.dumps(ours, default=protocol._serialize_message))
            == json.loads(json.dumps(theirs, default=_pygls_serialize(protocol))))


def test_pygls_encodes_every_message_through_the_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    server, writer = _serving()
    calls: list[Any] = []
    hook = server.protocol._serialize_message
    monkeypatch.setattr(server.protocol, "_serialize_message",
                        lambda data: calls.append(data) or hook(data))
    response = json_rpc.JsonRPCResponseMessage(id=1, result={"a": 1}, jsonrpc="2.0")
    server.protocol._send_data(response)
    assert calls == [response] and writer.messages == [{"id": 1, "result": {"a": 1},
                                                         "jsonrpc": "2.0"}]


def test_a_result_encoded_in_advance_is_written_as_pygls_writes_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert _parameters(json_rpc.JsonRPCProtocol._send_data) == ["self", "data"]
    server, writer = _serving()
    raw: list[bytes] = []
    monkeypatch.setattr(writer, "write", raw.append)
    result = {"blocks": [{"file": "é😀\u202e.py"}], "edit": None}
    server.protocol._send_data(json_rpc.JsonRPCResponseMessage(id="x", result=result,
                                                               jsonrpc="2.0"))
    server.protocol._send_data(json_rpc.JsonRPCResponseMessage(
        id="x", result=EncodedJson(json.dumps(result)), jsonrpc="2.0"))
    theirs, ours = raw
    assert ours.split(b"\r\n\r\n")[0] == theirs.split(b"\r\n\r\n")[0]  # the same length
    assert json.loads(ours.split(b"\r\n\r\n")[1]) == json.loads(theirs.split(b"\r\n\r\n")[1])


# ------------------------------------------------------------------ 5. handle_message


def test_messages_are_dispatched_as_pygls_dispatches_them(monkeypatch: pytest.MonkeyPatch) -> None:
    # LlmEditsProtocol.handle_message tells a message's kind once per class; pygls asks
    # isinstance of its protocols per message. Every message class lsprotocol structures (and
    # pygls's fallbacks) must reach the same pygls handler, with the same arguments.
    assert _parameters(json_rpc.JsonRPCProtocol._handle_request) == [
        "self", "msg_id", "method_name", "params"]
    protocol = LlmEditsServer().protocol
    calls: list[tuple[str, tuple]] = []
    for name in ("_handle_request", "_handle_notification", "_handle_response"):
        monkeypatch.setattr(protocol, name, lambda *args, name=name: calls.append((name, args)))
    classes = [json_rpc.JsonRPCRequestMessage, json_rpc.JsonRPCNotification,
               json_rpc.JsonRPCResponseMessage, types.ResponseErrorMessage]
    classes += [cls for name in dir(types) if name.endswith(("Request", "Notification",
                                                             "Response"))
                and isinstance(cls := getattr(types, name), type) and attrs.has(cls)]
    seen = set()
    for cls in classes:
        for _ in range(2):  # the second time from what the first one learnt
            message = cls.__new__(cls)
            for field in attrs.fields(cls):  # a structured message has every field set
                object.__setattr__(message, field.name, f"{cls.__name__}.{field.name}")
            object.__setattr__(message, "jsonrpc", "2.0")
            protocol.handle_message(message)
            json_rpc.JsonRPCProtocol.handle_message(protocol, message)
            ours, pygls = calls[-2:]
            assert ours == pygls, cls
            seen.add(ours[0])
    assert seen == {"_handle_request", "_handle_notification", "_handle_response"}


def test_after_shutdown_requests_are_answered_with_invalid_request() -> None:
    # pygls logs and drops them; LSP says they are errors (InvalidRequest).
    server, writer = _serving()
    server.protocol._shutdown = True  # what pygls's shutdown builtin sets
    request = json_rpc.JsonRPCRequestMessage(id=1, method="llmEdits.parse", params={},
                                             jsonrpc="2.0")
    json_rpc.JsonRPCProtocol.handle_message(server.protocol, request)
    assert writer.messages == []  # what the hook changes
    server.protocol.handle_message(request)
    (answer,) = writer.messages
    assert answer["id"] == 1 and answer["error"]["code"] == -32600
    assert "shutting down" in answer["error"]["message"]


# ------------------------------------------------------------------ 6. reading a message


def test_pygls_reads_a_body_as_the_hook_replaces() -> None:
    # pygls's loop decodes a body with json.loads(body, object_hook=structure_message);
    # receive() calls structure_message once on the whole message, which must give the
    # same message object.
    source = inspect.getsource(run_async)
    assert "json.loads(body, object_hook=protocol.structure_message)" in source
    assert "protocol.handle_message(message)" in source
    protocol = LlmEditsServer().protocol
    body = json.dumps({"jsonrpc": "2.0", "id": 4, "method": "workspace/executeCommand",
                       "params": {"command": "llmEdits.parse",
                                  "arguments": [{"response": "x", "options": {"a": [{}]}}]}})
    assert (protocol.structure_message(json.loads(body))
            == json.loads(body, object_hook=protocol.structure_message))
    assert _parameters(json_rpc.JsonRPCProtocol._send_response) == [
        "self", "msg_id", "result", "error"]


@pytest.mark.parametrize(("body", "code"), [
    (b'{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":[1]}', -32602),
    (b'{"jsonrpc":"2.0","id":"s","method":"textDocument/codeAction","params":{}}', -32602),
    (b'{"id":2,"method":"shutdown"}', -32600),
    (b'{"jsonrpc":"2.0","id":3,"method":["shutdown"]}', -32600),
    (b'{"jsonrpc":"2.0","id":4,"method":"x","params":' + b"[" * 3000 + b"]" * 3000 + b"}",
     -32700),
    (b'{"jsonrpc":"2.0","id":5,"method":"x","params":"\xff"}', -32700),
    (b'{"jsonrpc":"2.0","id":6,"method":"x",', -32700),
])
def test_a_request_that_cannot_be_read_is_answered(body: bytes, code: int) -> None:
    server, writer = _serving()
    server.protocol.receive(body)
    (answer,) = writer.messages
    assert answer["error"]["code"] == code
    assert answer["id"] == json.loads(re.search(rb'"id":("[^"]*"|\d+)', body).group(1))


def test_garbage_without_an_id_is_dropped() -> None:
    server, writer = _serving()
    for body in (b"[]", b"null", b"{", b'{"jsonrpc":"2.0","method":"x","params":[1]}',
                 b'{"jsonrpc":"2.0","id":[1],"method":"x","params":{'):
        server.protocol.receive(body)
    assert writer.messages == []


async def test_an_answer_that_cannot_be_read_fails_the_request_it_answers() -> None:
    server, writer = _serving()
    protocol = server.protocol
    pending = asyncio.ensure_future(protocol.send_request_within(
        types.WORKSPACE_APPLY_EDIT, {"edit": {}}, timeout=3600))
    await asyncio.sleep(0)  # the request is sent
    (request,) = writer.messages
    protocol.receive(b'{"id":"%s","result":{"applied":true}}' % request["id"].encode())
    with pytest.raises(UnreadableAnswer, match="jsonrpc"):
        await pending
    assert request["id"] not in protocol._request_futures


async def test_an_answer_comes_back_as_the_client_sent_it() -> None:
    # Structured by lsprotocol, {"applied": "false"} would read as applied.
    server, writer = _serving()
    protocol = server.protocol
    for result in ({"applied": "false"}, None, {"applied": True, "failureReason": 5}):
        pending = asyncio.ensure_future(protocol.send_request_within(
            types.WORKSPACE_APPLY_EDIT, {"edit": {}}, timeout=3600))
        await asyncio.sleep(0)
        protocol.receive(json.dumps({"jsonrpc": "2.0", "id": writer.messages[-1]["id"],
                                     "result": result}).encode())
        assert await pending == result


async def test_a_request_not_answered_in_time_is_forgotten() -> None:
    server, writer = _serving()
    protocol = server.protocol
    with pytest.raises(NoAnswer, match=r"0\.01 s"):
        await protocol.send_request_within(types.WORKSPACE_APPLY_EDIT, {"edit": {}},
                                           timeout=0.01)
    (request,) = writer.messages
    assert request["id"] not in protocol._request_futures
    protocol.receive(json.dumps({"jsonrpc": "2.0", "id": request["id"],
                                 "result": {"applied": True}}).encode())  # late: logged only
    assert len(writer.messages) == 1


# ------------------------------------------------------------------ what the transports set


def test_the_stop_event_and_tcp_server_are_where_pygls_reads_them() -> None:
    server = LlmEditsServer()
    stop_event = new_stop_event(server)
    closed: list[bool] = []

    class TcpServer:
        def close(self) -> None:
            closed.append(True)

    keep_tcp_server(server, TcpServer())  # type: ignore[arg-type]
    server.shutdown()  # the shutdown/exit path stops the loop and closes the listener
    assert stop_event.is_set() and closed == [True]
