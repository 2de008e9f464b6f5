"""The tools over MCP's streamable HTTP, for the language server's agent endpoint.

Security: the socket listens on 127.0.0.1 only, on a free port; every request must carry the
endpoint's random bearer token (compared in constant time); ``Host`` and ``Origin`` must name
this very address and port (a page on another origin, or a DNS name rebound to 127.0.0.1,
is refused: the SDK's DNS-rebinding check); a request body is limited like a response. The
server runs in the caller's event loop (uvicorn's ``serve`` as a task), so tool calls run on
the loop that owns the editor's buffers; uvicorn's own signal handling is left out, the
language server keeps its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .calls import AgentWorkspace

PATH = "/mcp"
# JSON escaping can make a request several times the size of the text it carries: the body
# may be up to this many times the response limit (the text's own limit is checked after).
_BODY_PER_RESPONSE_BYTE = 2
_BODY_SLACK = 64 * 1024


@dataclass(frozen=True)
class Endpoint:
    url: str
    token: str


class _BearerToken:
    """ASGI middleware: 401 unless ``Authorization: Bearer <token>``."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            await _plain_response(send, 401, b"a bearer token is required",
                                  [(b"www-authenticate", b'Bearer realm="llm-edits"')])
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope: dict) -> bool:
        given = next((value for name, value in scope.get("headers", ())
                      if name == b"authorization"), b"")
        return hmac.compare_digest(given, self.expected)


async def _plain_response(send: Any, status: int, body: bytes,
                          headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain"),
                            (b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})


class HttpEndpoint:
    """The tools of ``workspace`` served on 127.0.0.1 until :meth:`stop`."""

    def __init__(self, workspace: AgentWorkspace) -> None:
        self.workspace = workspace
        self.endpoint: Endpoint | None = None
        self._server: Any = None
        self._task: asyncio.Task | None = None
        self._lock = asyncio.Lock()  # two starts at once (the setting, a command) start one

    async def start(self) -> Endpoint:
        """Listen on a free port of 127.0.0.1; the URL and token once it accepts requests."""
        async with self._lock:
            if self.endpoint is None:
                self.endpoint = await self._listen()
            return self.endpoint

    async def _listen(self) -> Endpoint:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        token = secrets.token_urlsafe(32)
        self._server = _uvicorn_server(_app(self.workspace, port, token))
        self._task = asyncio.get_running_loop().create_task(self._server.serve([sock]))
        while not self._server.started:  # startup is a few loop turns, no I/O wait
            if self._task.done():
                self._task.result()  # raises what stopped it
                raise RuntimeError("the MCP endpoint stopped while starting")
            await asyncio.sleep(0)
        return Endpoint(f"http://127.0.0.1:{port}{PATH}", token)

    async def stop(self) -> None:
        async with self._lock:
            if self._server is None or self._task is None:
                return
            self._server.should_exit = True
            with contextlib.suppress(Exception):
                await self._task
            self._server = self._task = self.endpoint = None


def _app(workspace: AgentWorkspace, port: int, token: str) -> Any:
    from mcp.server.transport_security import TransportSecuritySettings

    from .sdk import build_server

    server = build_server(workspace)
    limit = workspace.limits.max_response_bytes * _BODY_PER_RESPONSE_BYTE + _BODY_SLACK
    app = server.streamable_http_app(
        streamable_http_path=PATH,
        host="127.0.0.1",
        max_request_body_size=limit,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[f"127.0.0.1:{port}", f"localhost:{port}"],
            allowed_origins=[f"http://127.0.0.1:{port}", f"http://localhost:{port}"],
        ),
    )
    return _BearerToken(app, token)


def _uvicorn_server(app: Any) -> Any:
    import uvicorn

    class _Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield  # the host process (the language server) handles its signals

    # log_config=None: uvicorn would otherwise reconfigure the process's logging (and send
    # access lines to stdout, which is the language server's LSP channel).
    config = uvicorn.Config(app, lifespan="on", log_config=None, access_log=False,
                            loop="none", ws="none")
    return _Server(config)


__all__ = ["PATH", "Endpoint", "HttpEndpoint"]
