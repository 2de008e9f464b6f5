"""What the server's parts know of one editor connection: the narrow interface they take.

An :class:`Editor` holds the connection's state (open buffers, recent runs, published
diagnostics, the default options, the planning hold) and the client it talks to
(:class:`~lsp_server.lsp.protocol.client.LspClient`: client features, workspace roots, send
an edit, publish, log). Requests (``requests/``) and response documents (``live/``) receive
it; none of them sees the server object (``server.py``), which only wires handlers to them.
"""

from __future__ import annotations

import itertools
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

from ..limits import DEFAULT_MAX_FILE_BYTES
from .buffers import OpenBuffers
from .file_reader import FileReader
from .protocol.client import LspClient
from .protocol.client_features import ClientFeatures
from .protocol.diagnostics import PublishedDiagnostics
from .protocol.planning_hold import PlanningHold
from .run_store import RunStore


@dataclass(eq=False)
class Editor:
    """One editor connection as the requests see it."""

    client: LspClient
    buffers: OpenBuffers = field(default_factory=OpenBuffers)
    runs: RunStore = field(default_factory=RunStore)
    planning_hold: PlanningHold = field(default_factory=PlanningHold)
    # initializationOptions, then didChangeConfiguration's settings over them
    default_options: dict[str, Any] = field(default_factory=dict)
    diagnostics: PublishedDiagnostics = field(init=False)
    # Paths no block may edit, with the reason (response documents: live/documents.py).
    not_targets: dict[Path, str] = field(default_factory=dict)
    # Run ids: a per-session prefix (an id from an earlier server is unknown, not another
    # run) and a counter.
    _run_prefix: str = field(default_factory=lambda: uuid.uuid4().hex[:6])
    _run_numbers: itertools.count = field(default_factory=lambda: itertools.count(1))

    def __post_init__(self) -> None:
        self.diagnostics = PublishedDiagnostics(self.client.publish)

    @property
    def features(self) -> ClientFeatures:
        return self.client.features

    @property
    def tracing(self) -> bool:
        return self.client.tracing

    def roots(self) -> list[Path]:
        return self.client.roots()

    def new_run_id(self) -> str:
        return f"{self._run_prefix}{next(self._run_numbers):06x}"

    def reader(self, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> FileReader:
        """The files a run starting now sees (a snapshot of the open buffers, else disk)."""
        return FileReader(self.buffers.by_written_path(), max_file_bytes, self.not_targets)

    def log_message(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.client.log_message(message, kind)

    async def hold_planning(self) -> None:
        """The planning-hold test hook: wait here until the test releases the run."""
        if self.planning_hold.enabled:
            await self.planning_hold.wait(self.client.notify_planning_held)
