"""How the server talks to its client: the message loop, over stdio or TCP.

Every transport reads frames (a ``Content-Length`` header, a blank line, the body) with
:func:`serve_messages` and hands each body to :meth:`LlmEditsProtocol.receive` (hook 6 of
:mod:`.pygls_hooks`), which answers every request, also one it cannot read. pygls's own
``start_io``/``start_tcp`` run its ``run_async`` loop instead, which decodes bodies itself
and drops what it cannot read.

Over stdio, when stdin and stdout are pipes of their own (how editors start servers), both
are served on the event loop: stdin read without pygls's thread-pool reader (three thread
hand-offs per message: ~1 ms of latency per request on a busy machine), and stdout written
without blocking, so a client slow to read its messages (thousands of diagnostics, a result
of megabytes) never stops the loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import stat
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from pygls.exceptions import JsonRpcException
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer

from .pygls_hooks import LlmEditsProtocol, keep_tcp_server, new_stop_event
from .unreadable_messages import decode

log = logging.getLogger(__name__)

# Bodies larger than this are decoded in a worker thread (a response of megabytes: ~90 ms
# for 16 MiB on the event loop).
DECODE_IN_THREAD_BYTES = 1 << 20


class MessageReader(Protocol):
    """What the message loop reads from (pygls's async reader interface)."""

    async def readline(self) -> bytes: ...

    async def readexactly(self, n: int) -> bytes: ...


_CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")


async def serve_messages(stop_event: threading.Event, reader: MessageReader,
                         protocol: LlmEditsProtocol,
                         error_handler: Callable[[Exception, type], Any]) -> None:
    """The message loop of every transport: frames read as pygls's ``run_async`` reads them,
    each body handed to :meth:`LlmEditsProtocol.receive`. A big body is decoded in a
    worker thread; the next message is read only after it, so the order holds."""
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
            decoded = (await asyncio.to_thread(decode, body)
                       if len(body) > DECODE_IN_THREAD_BYTES else None)
            try:
                protocol.receive(body, decoded)
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


class _WritePipe(asyncio.Protocol):
    """Knows when the pipe's transport has written everything and closed."""

    def __init__(self) -> None:
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


class _PipeWriter:
    """pygls's writer interface over an asyncio pipe: a write never blocks (what the client
    has not read yet waits in the transport's buffer); closing waits until all is written
    (pygls's ``exit`` awaits it before the process ends)."""

    def __init__(self, transport: asyncio.WriteTransport, protocol: _WritePipe) -> None:
        self._transport = transport
        self._protocol = protocol

    def write(self, data: bytes) -> None:
        self._transport.write(data)

    async def close(self) -> None:
        self._transport.close()
        await self._protocol.closed


def _pipe(stream: Any) -> os.stat_result | None:
    """The status of a pipe or socket ``stream`` is open on (None: not one)."""
    try:
        info = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return info if stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode) else None


def is_separate_pipe(stdin: Any, stdout: Any) -> bool:
    """``stdin`` is a pipe or socket of its own, not ``stdout``'s too (a shared one would
    become non-blocking for both)."""
    info = _pipe(stdin)
    try:
        out = os.fstat(stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return info is not None and not os.path.samestat(info, out)


async def _pipe_writer(loop: asyncio.AbstractEventLoop) -> Any:
    """A non-blocking writer of stdout when it is a pipe of its own (not shared with
    stderr, whose writes would then fail when the pipe is full), else pygls's."""
    if _pipe(sys.stdout) is None or not is_separate_pipe(sys.stdout, sys.stderr):
        return StdoutWriter(sys.stdout.buffer)
    transport, protocol = await loop.connect_write_pipe(_WritePipe, sys.stdout.buffer)
    return _PipeWriter(transport, protocol)


def _serve(ls: LanguageServer,
           open_streams: Callable[[asyncio.AbstractEventLoop], Awaitable[MessageReader]]
           ) -> None:
    """Run the message loop on stdin/stdout until the client goes or ``exit``."""
    stop_event = new_stop_event(ls)
    ls.protocol.set_writer(StdoutWriter(sys.stdout.buffer))

    async def serve() -> None:
        reader = await open_streams(asyncio.get_running_loop())
        await serve_messages(stop_event, reader, ls.protocol, ls.report_server_error)

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        ls.shutdown()


def serve_stdio(ls: LanguageServer) -> None:
    """Serve over stdio: on the event loop when stdin is a pipe of its own, else through
    pygls's thread-pool reader and blocking writer (a terminal shares its file with
    stdout)."""

    async def pipes(loop: asyncio.AbstractEventLoop) -> MessageReader:
        stream = asyncio.StreamReader(limit=1 << 20)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream),
                                     sys.stdin.buffer)
        ls.protocol.set_writer(await _pipe_writer(loop))
        return _StreamReader(stream)

    async def thread_reader(loop: asyncio.AbstractEventLoop) -> MessageReader:
        return StdinAsyncReader(sys.stdin.buffer, ls.thread_pool)

    _serve(ls, pipes if is_separate_pipe(sys.stdin, sys.stdout) else thread_reader)


def serve_tcp(ls: LanguageServer, host: str, port: int) -> None:
    """Listen on TCP, as pygls's ``start_tcp``, with :func:`serve_messages` per connection."""
    stop_event = new_stop_event(ls)

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        ls.protocol.set_writer(writer)  # pygls's protocol writes to asyncio streams too
        await serve_messages(stop_event, _StreamReader(reader), ls.protocol,
                             ls.report_server_error)
        ls.shutdown()

    async def listen() -> None:
        tcp_server = await asyncio.start_server(connection, host, port)
        keep_tcp_server(ls, tcp_server)
        log.info("Serving on %s:%s", host, port)
        async with tcp_server:
            await tcp_server.serve_forever()

    try:
        asyncio.run(listen())
    except asyncio.CancelledError:
        log.debug("Server was cancelled")
