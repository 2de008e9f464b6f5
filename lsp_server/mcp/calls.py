"""Running one tool call against a workspace: the arguments checked into an
:class:`AgentRequest`, run by the workspace, and the outcome rendered for the agent.

The workspace (:class:`AgentWorkspace`) is where the transports differ: ``llm-edits mcp``
plans against the files on disk and writes them (:mod:`.disk`); the language server's endpoint
plans against the open buffers and sends ``workspace/applyEdit``
(``lsp_server.lsp.agent_endpoint``). The arguments, the preconditions and what the agent is
told are the same code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..feedback import build_call_feedback, build_feedback
from ..limits import (
    DEFAULT_MAX_BLOCK_LINES,
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_RESPONSE_BYTES,
)
from ..model import FileSnapshot, PlanResult, text_to_lines
from .arguments import ArgumentError, EditFileCall, EditsCall, InstructionsCall, parse_call
from .rendering import ToolOutcome, edits_outcome, instructions_outcome

STR_REPLACE = "str-replace"


@dataclass(frozen=True)
class Limits:
    """The limits a response has everywhere (lsp_server.limits), for tool arguments."""

    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_blocks: int = DEFAULT_MAX_BLOCKS
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_block_lines: int = DEFAULT_MAX_BLOCK_LINES


@dataclass(frozen=True)
class AgentRequest:
    """What a call asks: a response to parse (``edit_file``'s call as the tool-call JSON the
    str-replace format reads, ``edit`` keeping the call itself), with the options of a run."""

    text: str
    formats: frozenset[str] | None
    target: str | None  # as the agent gave it: the run resolves and confines it
    expected: dict[str, str]  # path as the agent wrote it -> SHA-256
    dry_run: bool
    atomic: bool
    matching: str
    edit: EditFileCall | None = None


@dataclass
class Ran:
    """What a workspace did with a request: the plan (statuses final: ``applied`` only for
    what was written or sent and taken), why something was not written, and what the run
    read at each path (for the hashes the agent gets back)."""

    plan: PlanResult
    write_errors: list[str] = field(default_factory=list)
    snapshots: dict[Path, FileSnapshot] = field(default_factory=dict)


class AgentWorkspace(Protocol):
    """Where a call's files are read and its changes go."""

    limits: Limits

    def roots(self) -> list[Path]:
        """The workspace folders every path is confined to."""

    def read_file(self, path: Path) -> FileSnapshot:
        """The file as it is now (an open buffer first, in the editor)."""

    def uri_for(self, path: Path) -> str:
        """The file's URI as its client knows it."""

    async def run(self, request: AgentRequest) -> Ran:
        """Plan the request (its preconditions checked: :class:`.preconditions.CheckedReader`)
        and, unless it is a dry run, carry out its changes."""


async def run_tool(name: str, arguments: Any, workspace: AgentWorkspace) -> ToolOutcome:
    """The outcome of tool ``name`` called with ``arguments``: bad arguments are a tool error
    (``isError`` with the reason), as is a call in which a block failed or none was found."""
    try:
        call = parse_call(name, arguments, workspace.limits.max_response_bytes)
        if isinstance(call, InstructionsCall):
            return instructions_outcome(call.format)
        request = agent_request(call)
        ran = await workspace.run(request)
    except ArgumentError as exc:
        return ToolOutcome.error(f"{name}: {exc}")
    feedback = _feedback(name, request, ran.plan, workspace)
    return edits_outcome(ran.plan, feedback=feedback, dry_run=request.dry_run,
                         write_errors=ran.write_errors, snapshots=ran.snapshots,
                         roots=workspace.roots(),
                         uri_for=workspace.uri_for, single_edit=request.edit is not None)


def _feedback(name: str, request: AgentRequest, plan: PlanResult,
              workspace: AgentWorkspace) -> str:
    """The retry text; on ``edit_file`` it speaks of the call (the agent sent arguments, no
    response whose blocks and lines it could name)."""
    def read_lines(path: Path) -> list[str] | None:
        return _current_lines(workspace, path)

    if request.edit is not None:
        return build_call_feedback(plan, name, read_lines)
    return build_feedback(plan, read_lines, atomic=request.atomic)


def agent_request(call: EditsCall | EditFileCall) -> AgentRequest:
    if isinstance(call, EditsCall):
        return AgentRequest(call.response, call.formats, call.target, call.expected_sha256,
                            call.dry_run, call.atomic, call.matching)
    expected = {call.path: call.expected_sha256} if call.expected_sha256 else {}
    return AgentRequest(_str_replace_text(call), frozenset({STR_REPLACE}), None, expected,
                        dry_run=False, atomic=False, matching="exact", edit=call)


def _str_replace_text(call: EditFileCall) -> str:
    """The call as the tool-call JSON the str-replace format reads (one block)."""
    edit: dict[str, Any] = {"file_path": call.path, "old_string": call.old_string,
                            "new_string": call.new_string}
    if call.replace_all:
        edit["replace_all"] = True
    return json.dumps(edit, ensure_ascii=False)


def _current_lines(workspace: AgentWorkspace, path: Path) -> list[str] | None:
    """A file's lines as they are now, for feedback on a failure the engine gave no
    context for."""
    snapshot = workspace.read_file(path)
    if snapshot.text is None or snapshot.binary or snapshot.error:
        return None
    return text_to_lines(snapshot.text.removeprefix("\ufeff"))


__all__ = ["AgentRequest", "AgentWorkspace", "Limits", "Ran", "agent_request", "run_tool"]
