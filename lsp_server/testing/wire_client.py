"""Clients that write and read LSP frames themselves: no LSP library in between.

:class:`LspClient` is the benchmarks' client: small and fast, so what it times is the server.
:class:`RawSession` sends messages no LSP library would (bodies that are not JSON, not UTF-8,
nested too deep) to check that the server reads them and goes on.

:class:`LspClient` drives the real server over stdio, as an editor does.

It answers the server's own requests (``workspace/applyEdit``, ``workspace/configuration``,
progress creation, capability registration) and records published diagnostics, so the server
runs its normal code paths. Timing helpers measure what a client sees: from encoding a request
to having its decoded result.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from . import SERVER_COMMAND


def uri_of(path: Path) -> str:
    """The ``file://`` URI of ``path`` (resolved)."""
    return "file://" + quote(str(path.resolve()))


def frame(body: bytes) -> bytes:
    """``body`` as one LSP message on the wire (the header, then the body as given)."""
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def read_message(stream: asyncio.StreamReader) -> Any:
    """The next message from ``stream``, decoded; EOFError when the server closed it."""
    length = None
    while True:
        line = await stream.readline()
        if not line:
            raise EOFError("server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        key, _, value = line.decode().partition(":")
        if key.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        raise EOFError("message without Content-Length")
    return json.loads(await stream.readexactly(length))


class LspClient:
    """A JSON-RPC client over a server process's pipes that answers the server's requests."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 0
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.diagnostics: dict[str, list[dict]] = {}
        self.apply_requests: list[dict] = []
        self.reader = asyncio.create_task(self._read_loop())

    @classmethod
    async def start(cls, cwd: Path, command: list[str] | None = None) -> LspClient:
        proc = await asyncio.create_subprocess_exec(
            *(command or SERVER_COMMAND),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=str(cwd),
            limit=1 << 24,
        )
        return cls(proc)

    @property
    def pid(self) -> int:
        return self.proc.pid

    # ------------------------------------------------------------------ wire

    def _write(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame(json.dumps(message, ensure_ascii=False).encode()))

    async def _read_one(self) -> dict:
        assert self.proc.stdout is not None
        return await read_message(self.proc.stdout)

    async def _read_loop(self) -> None:
        try:
            while True:
                message = await self._read_one()
                if "method" in message:
                    self._on_server_message(message)
                    continue
                future = self.pending.pop(message.get("id"), None)
                if future is None or future.done():
                    continue
                if "error" in message:
                    future.set_exception(RuntimeError(f"server error: {message['error']}"))
                else:
                    future.set_result(message.get("result"))
        except (EOFError, asyncio.IncompleteReadError, ConnectionError) as exc:
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(EOFError(f"server stopped: {exc}"))
            self.pending.clear()

    def _on_server_message(self, message: dict) -> None:
        method = message["method"]
        params = message.get("params") or {}
        if method == "textDocument/publishDiagnostics":
            self.diagnostics[params["uri"]] = params["diagnostics"]
        if "id" not in message:
            return
        result: Any = None
        if method == "workspace/applyEdit":
            self.apply_requests.append(params)
            result = {"applied": True}
        elif method == "workspace/configuration":
            result = [None for _ in params.get("items", [])]
        self._write({"jsonrpc": "2.0", "id": message["id"], "result": result})

    # ------------------------------------------------------------------ API

    async def request(self, method: str, params: Any, timeout: float = 300) -> Any:
        self.next_id += 1
        request_id = self.next_id
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        self._write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        assert self.proc.stdin is not None
        await self.proc.stdin.drain()
        return await asyncio.wait_for(future, timeout)

    async def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})
        assert self.proc.stdin is not None
        await self.proc.stdin.drain()

    async def initialize(self, root: Path, options: dict | None = None,
                         timeout: float = 60) -> None:
        await self.request("initialize", {
            "processId": os.getpid(),
            "rootUri": uri_of(root),
            "workspaceFolders": [{"uri": uri_of(root), "name": root.name}],
            "initializationOptions": options or {},
            "capabilities": {
                "general": {"positionEncodings": ["utf-16"]},
                "workspace": {
                    "applyEdit": True,
                    "workspaceFolders": True,
                    "workspaceEdit": {"documentChanges": True,
                                      "resourceOperations": ["create", "rename", "delete"]},
                },
                "textDocument": {"publishDiagnostics": {"relatedInformation": True}},
                "window": {"workDoneProgress": True},  # as VS Code: long runs show progress
            },
        }, timeout=timeout)
        await self.notify("initialized", {})

    async def open(self, path: Path, text: str, version: int = 1) -> None:
        await self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri_of(path), "languageId": "python", "version": version, "text": text}})

    async def close(self, path: Path) -> None:
        await self.notify("textDocument/didClose", {"textDocument": {"uri": uri_of(path)}})

    async def command(self, name: str, argument: dict, timeout: float = 300) -> Any:
        return await self.request("workspace/executeCommand",
                                  {"command": name, "arguments": [argument]}, timeout=timeout)

    async def timed_command(self, name: str, argument: dict) -> tuple[float, Any]:
        """Seconds from sending ``name`` to having its decoded result, and the result."""
        started = time.perf_counter()
        result = await self.command(name, argument)
        return time.perf_counter() - started, result

    async def sync(self) -> None:
        """Wait until the server has handled everything sent so far (a cheap round trip)."""
        await self.command("llmEdits.parse", {"response": ""})

    def cpu_seconds(self) -> float:
        """User + system CPU time the server process (all its threads) has used so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def status_kib(self, field: str) -> int:
        """A ``/proc/<pid>/status`` memory figure in KiB (VmHWM: peak RSS, VmRSS: current)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise KeyError(field)

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self.request("shutdown", None, timeout=10)
            await self.notify("exit", None)
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except asyncio.TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        self.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.reader


class RawSession:
    """A client writing and reading frames by hand: for messages no LSP library would send
    (bodies that are not JSON, not UTF-8, nested too deep, without ``jsonrpc``)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls, root: Path, *, command: list[str] | None = None) -> RawSession:
        fd, name = tempfile.mkstemp(prefix="llm-edits-raw-", suffix=".log")
        os.close(fd)
        process = await asyncio.create_subprocess_exec(
            *(command or SERVER_COMMAND), "--log-file", name, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        session = cls(process)
        session.send_json({"jsonrpc": "2.0", "id": "initialize", "method": "initialize",
                           "params": {"processId": None, "rootUri": root.as_uri(),
                                      "capabilities": {}}})
        await session.answer("initialize")
        return session

    def send(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(frame(body))

    def send_json(self, message: Any) -> None:
        self.send(json.dumps(message).encode())

    async def read(self, timeout: float = 60) -> dict[str, Any]:
        assert self.process.stdout is not None
        return await asyncio.wait_for(read_message(self.process.stdout), timeout)

    async def answer(self, msg_id: Any, timeout: float = 60) -> dict[str, Any]:
        """The next message answering ``msg_id`` (notifications on the way are skipped)."""
        while True:
            message = await self.read(timeout)
            if "method" not in message and message.get("id") == msg_id:
                return message

    def alive(self) -> bool:
        return self.process.returncode is None

    async def stop(self) -> None:
        if self.alive():
            self.process.kill()
        await self.process.wait()
