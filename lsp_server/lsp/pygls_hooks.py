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
4. ``_serialize_message`` (speed): command results and applyEdit params go to ``json`` as
   they are, not through cattrs.
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
import json
import logging
import os
import re
import stat
import sys
import threading
import uuid
from collections.abc import Callable
from typing import Any, Protocol

import attrs
from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import (
    JsonRPCResponseMessage,
    RPCNotification,
    RPCRequest,
    RPCResponse,
)
from pygls.protocol.language_server import lsp_method

from .unreadable_messages import MessageId, Salvaged, from_object, salvage

log = logging.getLogger(__name__)


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

    def receive(self, body: bytes) -> None:
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
        the server's request with :class:`UnreadableAnswer`.
        """
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as exc:
            self._unreadable(salvage(body), JsonRpcParseError(message=_parse_error(exc)))
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
                                           f"{_validation_summary(cause)}") from cause
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


def _parse_error(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"the message is not valid UTF-8 (byte {exc.start})"
    if isinstance(exc, RecursionError):
        return "the message is nested too deeply to read"
    return f"the message is not JSON: {exc}"


def _validation_summary(error: ClassValidationError) -> str:
    """The first few leaf errors of a cattrs validation error, one line."""
    leaves: list[str] = []
    pending: list[BaseException] = [error]
    while pending and len(leaves) < 3:
        current = pending.pop(0)
        inner = getattr(current, "exceptions", None)  # an exception group (cattrs')
        if inner:
            pending[:0] = list(inner)
        else:
            leaves.append(f"{type(current).__name__}: {current}"[:200])
    return "; ".join(leaves) or str(error)


# Message class -> which of pygls's message kinds it is (LlmEditsProtocol.handle_message).
_MESSAGE_KINDS: dict[type, str] = {}


def _message_kind(message: Any) -> str:
    """As pygls's ``handle_message`` tells them apart, in the same order."""
    if isinstance(message, RPCRequest):
        return "request"
    if isinstance(message, RPCNotification):
        return "notification"
    return "response" if isinstance(message, RPCResponse) else "error"


# ------------------------------------------------------------------ transports


class MessageReader(Protocol):
    """What the message loop reads from (pygls's async reader interface)."""

    async def readline(self) -> bytes: ...

    async def readexactly(self, n: int) -> bytes: ...


_CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")


async def serve_messages(stop_event: threading.Event, reader: MessageReader,
                         protocol: LlmEditsProtocol,
                         error_handler: Callable[[Exception, type], Any]) -> None:
    """The message loop of every transport: frames read as pygls's ``run_async`` reads them
    (a ``Content-Length`` header, a blank line, the body), each body handed to
    :meth:`LlmEditsProtocol.receive` (hook 6) instead of pygls's ``json.loads``."""
    content_length = 0
    while not stop_event.is_set():
        header = await reader.readline()
        if not header:
            break
        if not content_length and (match := _CONTENT_LENGTH.fullmatch(header)):
            content_length = int(match.group(1))
        if content_length and not header.strip():
            body = await reader.readexactly(content_length)
            content_length = 0
            if not body:
                break
            try:
                protocol.receive(body)
            except Exception as exc:  # a bug of ours: logged, and the loop goes on
                log.exception("Unable to handle message")
                error_handler(exc, JsonRpcException)


class _StreamReader:
    """pygls's reader interface over an asyncio stream."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream

    async def readline(self) -> bytes:
        return await self._stream.readline()

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._stream.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""  # end of input: the loop stops, as with pygls's own reader


def is_separate_pipe(stdin: Any, stdout: Any) -> bool:
    """stdin is a pipe or socket of its own (how editors start servers): the event loop can
    read it without making stdout non-blocking too (as it would on a shared terminal)."""
    try:
        info, out = os.fstat(stdin.fileno()), os.fstat(stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    pipe = stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode)
    return pipe and not os.path.samestat(info, out)


def _serve(ls: LanguageServer, open_reader: Callable[[], Any]) -> None:
    """Run the message loop on stdin/stdout until the client goes or ``exit``; as pygls's
    ``start_io`` does (its ``_stop_event``: ``shutdown``/``exit`` stop the loop through it)."""
    ls._stop_event = stop_event = threading.Event()
    ls.protocol.set_writer(StdoutWriter(sys.stdout.buffer))

    async def serve() -> None:
        reader = await open_reader()
        await serve_messages(stop_event, reader, ls.protocol, ls.report_server_error)

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        ls.shutdown()


def start_pipe_io(ls: LanguageServer) -> None:
    """Serve over stdin/stdout like ``start_io``, reading stdin on the event loop.

    Replaces pygls's ``start_io`` (speed): its stdio reader reads every header line and body
    through the thread pool (three thread hand-offs per message: ~1 ms of latency per
    request on a busy machine); here the event loop reads the pipe itself.
    """

    async def pipe_reader() -> MessageReader:
        loop = asyncio.get_running_loop()
        stream = asyncio.StreamReader(limit=1 << 20)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream),
                                     sys.stdin.buffer)
        return _StreamReader(stream)

    _serve(ls, pipe_reader)


def serve_stdio(ls: LanguageServer) -> None:
    """Serve over stdio: on the event loop when stdin is a pipe of its own, else through
    pygls's thread-pool reader (a terminal shares its file with stdout)."""
    if is_separate_pipe(sys.stdin, sys.stdout):
        start_pipe_io(ls)
        return

    async def thread_reader() -> MessageReader:
        return StdinAsyncReader(sys.stdin.buffer, ls.thread_pool)

    _serve(ls, thread_reader)


def serve_tcp(ls: LanguageServer, host: str, port: int) -> None:
    """Listen on TCP, as pygls's ``start_tcp``, with :func:`serve_messages` per connection."""
    ls._stop_event = stop_event = threading.Event()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        ls.protocol.set_writer(writer)  # pygls's protocol writes to asyncio streams too
        await serve_messages(stop_event, _StreamReader(reader), ls.protocol,
                             ls.report_server_error)
        ls.shutdown()

    async def listen() -> None:
        ls._server = await asyncio.start_server(connection, host, port)
        log.info("Serving on %s:%s", host, port)
        async with ls._server:
            await ls._server.serve_forever()

    try:
        asyncio.run(listen())
    except asyncio.CancelledError:
        log.debug("Server was cancelled")
