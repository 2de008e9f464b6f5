"""An editor window with its own server: ``python -m lsp_server`` started over stdio.

:class:`EditorSession` is :class:`~lsp_server.testing.editor.Editor` (buffers, versions,
``workspace/applyEdit`` answered as VS Code does) plus the server process: it starts it with
its log in a file, can kill it with SIGKILL, and can have it hold every run before planning
(``hold_planning``) so that a test acts while a run is in flight, at a known point. The
fuzzer, the load and crash tests, the evaluations and the real-model tests use it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import tempfile
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import make_test_lsp_client

from lsp_server.lsp.protocol.planning_hold import HELD as PLANNING_HELD
from lsp_server.lsp.protocol.planning_hold import HOLD_ENV
from lsp_server.lsp.protocol.planning_hold import RELEASE as RELEASE_PLANNING

from . import SERVER_COMMAND
from .editor import AnswerApplyEdit, Editor, editor_capabilities


class EditorSession(Editor):
    """One editor window: a workspace folder, open buffers, one server process."""

    def __init__(self, root: Path, *, command: list[str] | None = None,
                 initialization_options: Any = None, document_changes: bool = True,
                 log_file: Path | None = None, hold_planning: bool = False,
                 answer_apply_edit: AnswerApplyEdit | None = None) -> None:
        super().__init__(make_test_lsp_client(), root, answer_apply_edit=answer_apply_edit)
        # The server's log (pygls logs every error response with its traceback) goes to a
        # file rather than the test's stderr.
        if log_file is None:
            fd, name = tempfile.mkstemp(prefix="llm-edits-server-", suffix=".log")
            os.close(fd)
            log_file = Path(name)
        self.log_file = log_file
        self.command = [*(command or SERVER_COMMAND), "--log-file", str(log_file)]
        self.initialization_options = initialization_options
        self.document_changes = document_changes
        # With hold_planning, the server holds every run before planning until released
        # (lsp_server/lsp/protocol/planning_hold.py): tests act while a run is in flight, at
        # a known point, whatever the machine's speed.
        self.hold_planning = hold_planning
        self._held: asyncio.Queue[None] = asyncio.Queue()
        self.client.feature(PLANNING_HELD)(lambda params: self._held.put_nowait(None))

    # -- lifecycle

    async def start(self, capabilities: types.ClientCapabilities | None = None,
                    initialization_options: Any = None,
                    trace: types.TraceValue | None = None) -> types.InitializeResult:
        """Start the server, then ``initialize`` it as :meth:`Editor.start` does."""
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if self.hold_planning:
            env[HOLD_ENV] = "1"
        await self.client.start_io(*self.command, env=env)
        return await super().start(
            capabilities or editor_capabilities(self.document_changes),
            self.initialization_options if initialization_options is None
            else initialization_options, trace)

    @property
    def pid(self) -> int:
        server = self.client._server
        assert server is not None, "server not started"
        return server.pid

    def alive(self) -> bool:
        server = self.client._server
        return server is not None and server.returncode is None

    async def stop(self) -> None:
        """Shut down politely if the server is alive, else just close the client."""
        if self.alive():
            try:
                await asyncio.wait_for(self.client.shutdown_session(), 30)
                return
            except Exception:
                pass
        self.client._stop_event.set()  # a dead server: no "server exited" errors
        await self.client.stop()

    async def kill(self) -> int:
        """SIGKILL the server (the editor's view: the process vanished) and reap it."""
        server = self.client._server
        assert server is not None
        self.client._stop_event.set()
        os.kill(server.pid, signal.SIGKILL)
        code = await server.wait()
        await self.client.stop()
        return code

    # -- the server's hooks

    async def ping(self, timeout: float = 30) -> bool:
        """The server answers a cheap request (it is alive and its loop is not stuck)."""
        result = await self.run("llmEdits.instructions", {"format": "edit-v3"}, timeout=timeout)
        return bool(result and result.get("text"))

    async def planning_held(self, timeout: float = 120) -> None:
        """Wait until the server holds a run before planning (``hold_planning``)."""
        await asyncio.wait_for(self._held.get(), timeout)

    def release_planning(self) -> None:
        """Let the held run plan (sent after everything the test sent before it)."""
        self.client.protocol.notify(RELEASE_PLANNING, {})
