"""The message loop and the stdio/TCP transports (lsp_server/lsp/transports.py)."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path
from typing import Any

from pygls.io_ import StdinAsyncReader

from lsp_server.lsp.protocol.transports import (
    _PipeWriter,
    _WritePipe,
    is_separate_pipe,
    serve_messages,
)
from lsp_server.server import LlmEditsServer


class _Writer:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))


class _Frames:
    """The reader interface over fixed bytes."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    async def readline(self) -> bytes:
        line, sep, self._data = self._data.partition(b"\n")
        return line + sep

    async def readexactly(self, n: int) -> bytes:
        body, self._data = self._data[:n], self._data[n:]
        return body


async def test_the_message_loop_reads_frames_in_order_and_survives_bad_ones() -> None:
    server = LlmEditsServer()
    writer = _Writer()
    server.protocol.set_writer(writer)
    errors: list[Exception] = []
    big = b'{"jsonrpc":"2.0","id":3,"method":"y","params":{"a":"%s"}}' % (b"x" * (2 << 20))
    bodies = [b'{"jsonrpc":"2.0","id":1,"method":"shutdown"}', b"{bad", big,  # decoded in a
              b'{"jsonrpc":"2.0","id":2,"method":"x"}', b"[" * 5000 + b"{" * (2 << 20)]  # thread
    data = b"".join(b"Content-Length: %d\r\nContent-Type: x\r\n\r\n%s" % (len(b), b)
                    for b in bodies)
    await serve_messages(threading.Event(), _Frames(data), server.protocol,
                         lambda exc, _: errors.append(exc))
    await asyncio.sleep(0)  # one loop turn: the answers are written
    assert [m["id"] for m in writer.messages] == [1, 3, 2] and errors == []
    assert set(inspect_parameters(StdinAsyncReader.readexactly)) == {"self", "n"}


def inspect_parameters(function: Any) -> list[str]:
    import inspect

    return list(inspect.signature(function).parameters)


def test_only_a_pipe_of_its_own_is_served_on_the_event_loop(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    with open(read_end, "rb") as stdin, open(write_end, "wb") as stdout, \
            open(tmp_path / "out", "wb") as file:
        assert is_separate_pipe(stdin, file)
        assert not is_separate_pipe(file, file)
        assert not is_separate_pipe(stdin, stdout)  # one pipe both ways: not its own
        assert not is_separate_pipe(object(), file)


async def test_writing_to_a_client_that_does_not_read_never_blocks() -> None:
    # Much more than a pipe holds (64 KiB on Linux), with nobody reading yet: each write
    # returns at once; closing waits until the reader has taken all of it.
    loop = asyncio.get_running_loop()
    read_end, write_end = os.pipe()
    with open(write_end, "wb", buffering=0) as pipe_out, open(read_end, "rb") as pipe_in:
        writer = _PipeWriter(*await loop.connect_write_pipe(_WritePipe, pipe_out))
        chunk = b"x" * 65536
        for _ in range(64):  # 4 MiB
            writer.write(chunk)
        reading = asyncio.ensure_future(asyncio.to_thread(pipe_in.read, 64 * 65536))
        await writer.close()
        assert len(await reading) == 64 * 65536
