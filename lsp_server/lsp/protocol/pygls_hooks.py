"""Every use of pygls internals, in one place: what each replaces and why.

Checked against pygls 2.1.x (the range pinned in pyproject.toml); ``tests/lsp/
test_pygls_hooks.py`` has a test per hook that fails if pygls changes under it. Each hook
says whether it is there for behaviour (the server would do something wrong without it) or
for speed (with the figure that justified it; a speed hook whose gain no longer shows in
``bench/run`` goes).

Hooks on :class:`LlmEditsProtocol` (pygls's ``LanguageServerProtocol``):

1. didOpen/didChange/didClose builtins (behaviour): pygls's keep its own copy of the
   documents; see :meth:`LlmEditsProtocol.lsp_text_document__did_change`.
2. ``workspace/executeCommand`` builtin (behaviour and speed): one task per command, the
   arguments as sent, and the running commands known for hook 3.
3. ``_handle_cancel_notification`` (behaviour): a running command is never cancelled.
4. ``_serialize_message`` and ``_send_data`` (speed): command results and applyEdit params
   go to ``json`` as they are, not through cattrs; a result already encoded in a worker
   thread (:class:`EncodedJson`) is written as it is.
5. ``handle_message`` (speed, and behaviour after ``shutdown``): a message's kind told once
   per class; a request after ``shutdown`` is answered with InvalidRequest, not dropped.
6. Reading a message (behaviour, :meth:`LlmEditsProtocol.receive`): every request with an id
   gets an answer, also one whose body pygls cannot read; an answer to the server's own
   request that cannot be read fails that request instead of leaving it pending forever.
7. Requests the server sends wait a bounded time (behaviour,
   :meth:`LlmEditsProtocol.send_request_within`).

And the transports (:func:`serve_messages`, the message loop every transport uses, for hook
6; :func:`start_pipe_io`, speed): stdin read on the event loop instead of pygls's thread-pool
reader.

What each speed hook saves, measured by removing it alone (valgrind callgrind, server
instructions per request of bench 3: a 5-block preview / an empty ``llmEdits.parse``; all
hooks: 3.07M / 0.33M): executeCommand 3.52M / 0.71M without it, ``_serialize_message``
3.72M / 0.36M, ``handle_message`` 3.19M / 0.45M, the stdio transport 3.51M / 0.76M.
pygls's own cattrs walk of a result grows with the result, so ``_serialize_message`` saves
most on big previews.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import logging
import threading
import uuid
from typing import Any

import attrs
from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import (
    JsonRPCResponseMessage,
    RPCNotification,
    RPCRequest,
    RPCResponse,
)
from pygls.protocol.language_server import lsp_method

from .unreadable_messages import (
    MessageId,
    Salvaged,
    Unreadable,
    decode,
    from_object,
    parse_error_message,
    salvage,
    validation_summary,
)

log = logging.getLogger(__name__)


class EncodedJson:
    """A command's result already encoded as JSON (ASCII, as ``json.dumps`` writes it)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class NoAnswer(Exception):
    """The client did not answer a request of the server's in time."""


class UnreadableAnswer(Exception):
    """The client's answer to a request of the server's could not be read."""


class LlmEditsProtocol(LanguageServerProtocol):
    """pygls's protocol with the hooks above."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The tasks of the commands running now ($/cancelRequest leaves them be).
        self._started_commands: set[asyncio.Task[Any]] = set()
        self._writes: set[asyncio.Future[Any]] = set()  # EncodedJson being written (hook 4)
        self._converter.register_structure_hook(_RawResponse, _raw_response)

    # Hook 1 (behaviour). Replaces pygls's didOpen/didChange/didClose builtins, which apply
    # the notification to pygls's own copy of the documents before calling our handler: that
    # copy splits lines like ``str.splitlines`` (a form feed or U+2028 starts a new line for
    # it, not for an editor), and while converting a column past the end of what it thinks
    # is the line it *rewrites the incoming params* in place, so our handler would receive a
    # corrupted range. The server keeps the buffers itself (lsp/buffers.py); these builtins
    # only pass the notifications on.

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    async def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams) -> Any:
        """Hook 2. Replaces pygls's executeCommand builtin: calls a command's handler with
        the arguments as sent, as one coroutine task.

        Behaviour: the task is known while it runs, for hook 3. Speed: pygls's builtin reads
        the handler's signature and type hints on every call to convert the arguments (every
        command takes them as they come, see ``server.command``), and as a generator it
        hands the handler to a second task with a future and callbacks.
        """
        handler = self.fm.commands.get(params.command)
        if handler is None:
            raise JsonRpcInvalidParams.of(
                ValueError(f"Command name {params.command!r} is not defined"))
        task = asyncio.current_task()
        assert task is not None, "pygls runs coroutine handlers as tasks"
        self._started_commands.add(task)
        try:
            return await handler(*(params.arguments or ()))
        finally:
            self._started_commands.discard(task)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        """Hook 3 (behaviour). Replaces pygls's ``$/cancelRequest`` handling, which cancels
        the request's task wherever it is: here a command that has not started is cancelled,
        one that has runs to its end and answers as usual.

        Stopping a command midway could leave an edit applied by the editor and not recorded
        as a run (an apply awaits the editor's answer to workspace/applyEdit).
        """
        if self._request_futures.get(msg_id) in self._started_commands:
            log.info("cancel of request %s ignored: the command is already running", msg_id)
            return
        super()._handle_cancel_notification(msg_id)

    def _serialize_message(self, data: Any) -> Any:
        """Hook 4 (speed). pygls's ``json.dumps`` default hook, minus cattrs' walk of a
        command's result.

        A command's result is a JSON-ready dict (``results.result_dict``), yet cattrs would
        copy it element by element before encoding (on a big preview as costly as planning,
        and a second copy of the result in memory). workspace/applyEdit carries the edit's
        JSON (the very object the result holds) the same way. Anything else, and anything
        ``json`` cannot encode itself, goes to pygls's converter.
        """
        if type(data) is JsonRPCResponseMessage and isinstance(data.result, dict):
            return {"id": data.id, "result": data.result, "jsonrpc": data.jsonrpc}
        if type(data) is types.ApplyWorkspaceEditRequest and isinstance(data.params, dict):
            return {"id": data.id, "params": data.params, "method": data.method,
                    "jsonrpc": data.jsonrpc}
        return super()._serialize_message(data)

    def _send_data(self, data: Any) -> None:
        """Hook 4, continued (speed). A command's result given as :class:`EncodedJson`
        (a big result, encoded in a worker thread: its JSON can be megabytes) is framed and
        written as pygls's ``_send_data`` writes a message; anything else goes to pygls."""
        if type(data) is not JsonRPCResponseMessage or type(data.result) is not EncodedJson:
            super()._send_data(data)
            return
        self.send_encoded(f'{{"id": {json.dumps(data.id)}, "jsonrpc": "{self.VERSION}", '
                          f'"result": {data.result.text}}}')

    def encoded_notification(self, method: str, params: Any) -> str:
        """A notification encoded as pygls encodes one (its converter, ``json``), to be
        written with :meth:`send_encoded`: big ones are encoded in a worker thread."""
        return json.dumps({"jsonrpc": self.VERSION, "method": method,
                           "params": self._converter.unstructure(params)})

    def send_encoded(self, body: str) -> None:
        """Write a message already encoded as JSON (ASCII), framed as pygls frames one."""
        if self.writer is None:
            log.error("Unable to send data, no available transport!")
            return
        if self._include_headers:
            body = (f"Content-Length: {len(body)}\r\n"
                    f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
                    + body)
        written = self.writer.write(body.encode(self.CHARSET))
        if inspect.isawaitable(written):  # an asynchronous writer: kept until it is done
            task = asyncio.ensure_future(written)
            self._writes.add(task)
            task.add_done_callback(self._writes.discard)

    def handle_message(self, message: Any) -> None:
        """Hook 5 (speed). pygls's dispatch, telling requests from notifications and
        responses once per message class rather than per message.

        pygls asks ``isinstance`` of its runtime-checkable protocols (``RPCRequest`` ...),
        which looks every attribute up again each time: more than parsing the message did.
        The message classes are attrs classes whose instances always carry all their fields,
        so the answer holds for the class. Anything else goes to pygls as it is.
        """
        kind = _MESSAGE_KINDS.get(type(message))
        if kind is None:
            if not hasattr(type(message), "__attrs_attrs__"):
                super().handle_message(message)
                return
            kind = _MESSAGE_KINDS[type(message)] = _message_kind(message)
        if kind != "request" or message.jsonrpc != self.VERSION:
            super().handle_message(message)  # pygls's own checks, logging and dispatch
            return
        if self._shutdown and message.method != types.EXIT:
            # pygls drops it; LSP says: an error (the client would wait forever).
            self._refuse(message.id, JsonRpcInvalidRequest(
                message=f"{message.method}: the server is shutting down"))
            return
        contextvars.copy_context().run(
            self._handle_request, message.id, message.method, message.params)

    def receive(self, body: bytes, decoded: Any = None) -> None:
        """Hook 6 (behaviour). One message body from the client: decoded, structured and
        dispatched (by :meth:`handle_message`).

        Replaces what pygls's message loop does with a body (``json.loads`` with
        ``structure_message`` as the object hook, then ``handle_message``): there, a body
        that is not JSON (or not UTF-8, or nested deeper than the JSON reader goes), a
        message without ``"jsonrpc": "2.0"`` and params that do not fit the method are
        logged and dropped, and the client waits forever for the answer; an answer to the
        server's own request that does not fit (``workspace/applyEdit`` answered with
        ``null`` or ``{}``) leaves that request pending forever. Here a request gets an
        error answer (ParseError, InvalidRequest, InvalidParams) and such an answer fails
        the server's request with :class:`UnreadableAnswer`. ``decoded``: the body's
        :func:`decode` when the caller made it (in a worker thread, for a big body).
        """
        data = decoded if decoded is not None else decode(body)
        if isinstance(data, Unreadable):
            self._unreadable(salvage(body),
                             JsonRpcParseError(message=parse_error_message(data.error)))
            return
        try:
            message = self._structure(data)
        except JsonRpcException as exc:
            self._unreadable(from_object(data), exc)
            return
        self.handle_message(message)

    def _structure(self, data: Any) -> Any:
        """``data`` as the message class pygls would make of it (JsonRpcException: it
        cannot be one)."""
        if not isinstance(data, dict):
            raise JsonRpcInvalidRequest(message="a message must be a JSON object")
        if data.get("jsonrpc") != self.VERSION:
            raise JsonRpcInvalidRequest(message='not a JSON-RPC 2.0 message ("jsonrpc" '
                                                'must be "2.0")')
        method = data.get("method")
        if "method" in data and not isinstance(method, str):
            raise JsonRpcInvalidRequest(message="the method must be a string")
        try:
            return self.structure_message(data)
        except JsonRpcException as exc:
            cause = exc.__cause__
            if isinstance(cause, ClassValidationError):
                what = f"{method}: params" if method else "the answer"
                raise JsonRpcInvalidParams(message=f"{what} do not fit the protocol: "
                                           f"{validation_summary(cause)}") from cause
            raise

    def _unreadable(self, salvaged: Salvaged, error: JsonRpcException) -> None:
        """A message that could not be read: answer it if it was a request, fail the
        server's request if it was the answer to one, else log it."""
        msg_id = salvaged.id
        pending = self._request_futures.get(msg_id) if msg_id is not None else None
        if pending is not None and salvaged.is_request is not True:
            del self._request_futures[msg_id]
            self._result_types.pop(msg_id, None)
            log.warning("answer to request %s could not be read: %s", msg_id, error.message)
            if not pending.done():
                pending.set_exception(UnreadableAnswer(error.message))
            return
        if msg_id is not None and salvaged.is_request is not False:
            log.warning("request %s could not be read: %s", msg_id, error.message)
            self._refuse(msg_id, error)
            return
        log.warning("a message that could not be read was dropped: %s", error.message)

    def _refuse(self, msg_id: MessageId, error: JsonRpcException) -> None:
        self._send_response(msg_id, None, error.to_response_error())

    async def send_request_within(self, method: str, params: Any, timeout: float) -> Any:
        """Hook 7 (behaviour). Send a request and await its answer at most ``timeout``
        seconds (:class:`NoAnswer` after that; :class:`UnreadableAnswer` for an answer
        that could not be read as JSON-RPC, hook 6). Returns the answer's ``result`` as
        the client sent it (JSON): the caller checks it.

        pygls's ``send_request_async`` waits for ever, and structures the result with
        lsprotocol's converter, which reads ``"applied": "false"`` as true. A request that
        timed out is forgotten: a late answer is then logged as one to an unknown request.
        """
        msg_id = str(uuid.uuid4())
        answer = self.send_request_async(method, params, msg_id=msg_id)
        # The answer is structured as a _RawResponse, keeping its result as it came (set
        # before any answer can arrive: nothing was awaited since the request was sent).
        self._result_types[msg_id] = _RawResponse
        try:
            return await asyncio.wait_for(answer, timeout)
        except asyncio.TimeoutError:
            self._request_futures.pop(msg_id, None)
            raise NoAnswer(f"no answer to {method} within {timeout:g} s") from None
        finally:
            self._result_types.pop(msg_id, None)  # an error answer leaves it there


@attrs.define
class _RawResponse:
    """An answer to a request of the server's, its result as the JSON it came as (pygls's
    own response class turns objects into namedtuples)."""

    id: MessageId
    jsonrpc: str
    result: Any


def _raw_response(data: dict[str, Any], _: type) -> _RawResponse:
    return _RawResponse(id=data["id"], jsonrpc=data["jsonrpc"], result=data.get("result"))


# Message class -> which of pygls's message kinds it is (LlmEditsProtocol.handle_message).
_MESSAGE_KINDS: dict[type, str] = {}


def _message_kind(message: Any) -> str:
    """As pygls's ``handle_message`` tells them apart, in the same order."""
    if isinstance(message, RPCRequest):
        return "request"
    if isinstance(message, RPCNotification):
        return "notification"
    return "response" if isinstance(message, RPCResponse) else "error"


# ------------------------------------------------------------------ what the transports set


def new_stop_event(ls: LanguageServer) -> threading.Event:
    """The event that stops the message loop, set where pygls's ``start_io`` sets it
    (``_stop_event``: pygls's ``shutdown``/``exit`` stop the loop through it)."""
    ls._stop_event = stop_event = threading.Event()
    return stop_event


def keep_tcp_server(ls: LanguageServer, tcp_server: asyncio.Server) -> None:
    """Where pygls's ``start_tcp`` keeps its server (``_server``: ``shutdown`` closes it)."""
    ls._server = tcp_server
