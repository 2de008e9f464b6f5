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
5. ``handle_message`` (speed): a message's kind told once per class.

And the stdio transport (:func:`start_pipe_io`, speed): stdin read on the event loop instead
of pygls's thread-pool reader.

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
import logging
import os
import stat
import sys
import threading
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import (
    JsonRPCResponseMessage,
    RPCNotification,
    RPCRequest,
    RPCResponse,
)
from pygls.protocol.language_server import lsp_method

log = logging.getLogger(__name__)


class LlmEditsProtocol(LanguageServerProtocol):
    """pygls's protocol with the hooks above."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The tasks of the commands running now ($/cancelRequest leaves them be).
        self._started_commands: set[asyncio.Task[Any]] = set()

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
        if (kind != "request" or message.jsonrpc != self.VERSION
                or (self._shutdown and message.method != types.EXIT)):
            super().handle_message(message)  # pygls's own checks, logging and dispatch
            return
        contextvars.copy_context().run(
            self._handle_request, message.id, message.method, message.params)


# Message class -> which of pygls's message kinds it is (LlmEditsProtocol.handle_message).
_MESSAGE_KINDS: dict[type, str] = {}


def _message_kind(message: Any) -> str:
    """As pygls's ``handle_message`` tells them apart, in the same order."""
    if isinstance(message, RPCRequest):
        return "request"
    if isinstance(message, RPCNotification):
        return "notification"
    return "response" if isinstance(message, RPCResponse) else "error"


# ------------------------------------------------------------------ stdio transport


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
            return b""  # end of input: pygls's loop stops, as with its own reader


def is_separate_pipe(stdin: Any, stdout: Any) -> bool:
    """stdin is a pipe or socket of its own (how editors start servers): the event loop can
    read it without making stdout non-blocking too (as it would on a shared terminal)."""
    try:
        info, out = os.fstat(stdin.fileno()), os.fstat(stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    pipe = stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode)
    return pipe and not os.path.samestat(info, out)


def start_pipe_io(ls: LanguageServer) -> None:
    """Serve over stdin/stdout like ``start_io``, reading stdin on the event loop.

    Replaces pygls's ``start_io`` (speed): its stdio reader reads every header line and body
    through the thread pool (three thread hand-offs per message: ~1 ms of latency per
    request on a busy machine); here the event loop reads the pipe itself and pygls's own
    message loop (``run_async``) does the rest. Sets pygls's ``_stop_event`` as
    ``start_io`` does: ``shutdown``/``exit`` stop the loop through it.
    """
    ls._stop_event = stop_event = threading.Event()
    ls.protocol.set_writer(StdoutWriter(sys.stdout.buffer))

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        stream = asyncio.StreamReader(limit=1 << 20)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream),
                                     sys.stdin.buffer)
        await run_async(stop_event=stop_event, reader=_StreamReader(stream),
                        protocol=ls.protocol, logger=log, error_handler=ls.report_server_error)

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        ls.shutdown()


def serve_stdio(ls: LanguageServer) -> None:
    """Serve over stdio: on the event loop when stdin is a pipe of its own, else pygls's way."""
    if is_separate_pipe(sys.stdin, sys.stdout):
        start_pipe_io(ls)
    else:
        ls.start_io()
