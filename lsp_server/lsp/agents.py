"""Agents through the editor: the MCP tools served by the running language server.

With the setting ``mcp`` (``{"enabled": true}``; default off) the server serves the tools of
:mod:`lsp_server.mcp` over streamable HTTP on 127.0.0.1 (:mod:`lsp_server.mcp.http`: a free
port, a bearer token, Host/Origin checked), in its own event loop. A call is an edit run like
``llmEdits.preview`` / ``llmEdits.apply`` (:mod:`.requests.edit_runs`): planned against the
**open buffers** (unsaved changes included; disk for files not open), blocks this client
cannot take refused, the edit sent as one versioned ``workspace/applyEdit`` (one undo step; a
buffer changed meanwhile is refused), failures published as diagnostics and kept for quick
fixes. An edit to a file with unsaved changes therefore edits the buffer, never the disk.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ..mcp.agent_configs import agent_configs
from ..mcp.arguments import ArgumentError
from ..mcp.calls import AgentRequest, Limits, Ran
from ..mcp.preconditions import CheckedReader
from ..model import FileSnapshot
from ..results import JsonObject
from ..session.options import OptionsError, parse_options
from .editor import Editor
from .errors import CommandError
from .file_reader import FileReader
from .protocol.change_annotations import block_spans_for
from .requests.edit_runs import count, finish_run, plan
from .run_store import EditRequest

ENDPOINT_OFF = ("the MCP endpoint is off: set the server setting mcp to {\"enabled\": true} "
                "(VS Code: llmEdits.mcp.enabled)")


class _CheckedFileReader(FileReader):
    """The run's view of the buffers with the call's ``expected_sha256`` checked."""

    def __init__(self, editor: Editor, max_file_bytes: int, expected: dict[str, str]) -> None:
        super().__init__(editor.buffers.by_written_path(), max_file_bytes, editor.not_targets)
        self.checked = CheckedReader(super().__call__, editor.roots(), expected)

    def __call__(self, path: Path) -> FileSnapshot:
        return self.checked(path)


class EditorWorkspace:
    """The :class:`lsp_server.mcp.calls.AgentWorkspace` of an editor connection."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor

    @property
    def limits(self) -> Limits:
        options = parse_options(None, self.editor.default_options)
        return Limits(options.max_response_bytes, options.max_blocks, options.max_file_bytes,
                      options.max_block_lines)

    def roots(self) -> list[Path]:
        return self.editor.roots()

    def read_file(self, path: Path) -> FileSnapshot:
        return self.editor.reader(self.limits.max_file_bytes)(path)

    def uri_for(self, path: Path) -> str:
        return self.editor.reader().uri_for(path)

    async def run(self, request: AgentRequest) -> Ran:
        editor = self.editor
        options: dict[str, Any] = {"matching": request.matching, "atomic": request.atomic}
        if request.formats is not None:
            options["formats"] = sorted(request.formats)
        if request.target is not None:
            options["target"] = request.target
        try:
            edit_request = EditRequest(request.text, None,
                                       parse_options(options, editor.default_options))
            reader = _CheckedFileReader(editor, edit_request.options.max_file_bytes,
                                        request.expected)
            spans = block_spans_for(editor.features)
            planned = await plan(editor, edit_request, reader, "LLM edits: agent", spans)
        except (OptionsError, CommandError) as exc:  # refused whole: the agent is told why
            raise ArgumentError(str(exc)) from None
        apply = not request.dry_run
        label = f"Agent: {count(planned.blocks, 'block')}"
        result, _ = await finish_run(editor, "mcp", edit_request, reader, planned, apply=apply,
                                     label=label, spans=spans)
        errors: list[str] = []
        if apply and planned.changes and not result.get("applied"):
            why = result.get("failureReason") or "the editor did not apply the edit"
            errors.append(why)
            for block in planned.blocks:  # nothing of the edit was taken
                if block.status == "validated":
                    block.status, block.reason = "failed", f"Not applied by the editor: {why}"
        return Ran(planned, errors, reader.checked.snapshots)


class AgentEndpoint:
    """The HTTP endpoint's life: serving exactly while the ``mcp`` setting is on."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self._http: Any = None  # lsp_server.mcp.http.HttpEndpoint, imported when enabled
        self._pending: set[asyncio.Task] = set()

    @property
    def enabled(self) -> bool:
        setting = self.editor.default_options.get("mcp")
        return isinstance(setting, dict) and setting.get("enabled") is True

    def settings_changed(self) -> None:
        """After initialize or a configuration change: start or stop serving (on the loop,
        as a task: the notification's handler does not wait for it)."""
        task = asyncio.get_running_loop().create_task(self._follow_setting())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _follow_setting(self) -> None:
        try:
            if self.enabled:
                await self._start()
            else:
                await self.stop()
        except Exception as exc:  # the server goes on without its endpoint, saying why
            self.editor.log_message(f"MCP endpoint: could not start: {exc}")

    async def _start(self) -> JsonObject:
        if self._http is None:
            from ..mcp.http import HttpEndpoint

            self._http = HttpEndpoint(EditorWorkspace(self.editor))
        endpoint = await self._http.start()
        return {"url": endpoint.url, "token": endpoint.token}

    async def stop(self) -> None:
        if self._http is not None:
            await self._http.stop()
            self._http = None

    async def endpoint_command(self, argument: Any) -> JsonObject:
        """``llmEdits.mcpEndpoint``: ``{url, token, configs}`` (each agent's configuration
        text); an error while the setting is off."""
        if not self.enabled:
            raise CommandError(ENDPOINT_OFF)
        started = await self._start()
        return {**started, "configs": agent_configs(started["url"], started["token"])}


__all__ = ["ENDPOINT_OFF", "AgentEndpoint", "EditorWorkspace"]
