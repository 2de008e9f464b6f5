"""Running one tool call against a workspace: the arguments checked, the edits planned by the
engine, written by the workspace, and the outcome rendered for the agent.

The workspace (:class:`AgentWorkspace`) is where the difference between the transports lives:
``llm-edits mcp`` reads and writes files on disk (:mod:`.disk`); the language server's endpoint
reads open buffers and sends ``workspace/applyEdit``. Everything else is the same code.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse
from urllib.request import url2pathname

from ..feedback import build_feedback
from ..formats import FORMAT_NAMES
from ..limits import (
    DEFAULT_MAX_BLOCK_LINES,
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_RESPONSE_BYTES,
)
from ..model import FileSnapshot, PlanResult, text_to_lines
from ..workspace import PathResolver
from .arguments import ArgumentError, EditFileCall, EditsCall, InstructionsCall, parse_call
from .preconditions import CheckedReader
from .rendering import ToolOutcome, edits_outcome, instructions_outcome

STR_REPLACE = "str-replace"


@dataclass(frozen=True)
class Limits:
    """The limits a response has everywhere (lsp_server.limits), for tool arguments."""

    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_blocks: int = DEFAULT_MAX_BLOCKS
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_block_lines: int = DEFAULT_MAX_BLOCK_LINES


class AgentWorkspace(Protocol):
    """Where a call's files are read and its changes go."""

    roots: list[Path]
    limits: Limits

    def read_file(self, path: Path) -> FileSnapshot:
        """The file as the call sees it (an open buffer first, in the editor)."""

    def uri_for(self, path: Path) -> str:
        """The file's URI as its client knows it."""

    async def plan(self, work: Callable[[], PlanResult]) -> PlanResult:
        """Run the engine's planning (where: the loop, or a worker thread)."""

    async def write(self, result: PlanResult, atomic: bool) -> list[str]:
        """Carry out ``result.changes``; one message per file not written (its blocks are
        marked failed)."""

    async def report(self, result: PlanResult) -> None:
        """Show the outcome where the user looks (the editor's diagnostics)."""


async def run_tool(name: str, arguments: Any, workspace: AgentWorkspace) -> ToolOutcome:
    """The outcome of tool ``name`` called with ``arguments``: bad arguments are a tool error
    (``isError`` with the reason), as is a call in which a block failed or none was found."""
    try:
        call = parse_call(name, arguments, workspace.limits.max_response_bytes)
        if isinstance(call, InstructionsCall):
            return instructions_outcome(call.format)
        return await _run_edits(call, workspace)
    except ArgumentError as exc:
        return ToolOutcome.error(f"{name}: {exc}")


async def _run_edits(call: EditsCall | EditFileCall, workspace: AgentWorkspace) -> ToolOutcome:
    text, formats, expected, dry_run, atomic, matching = _as_response(call)
    target = checked_target(call.target, workspace.roots) if isinstance(call, EditsCall) else None
    reader = CheckedReader(workspace.read_file, workspace.roots, expected)
    result = await workspace.plan(
        lambda: _plan(text, formats, target, reader, workspace, matching, atomic, dry_run))
    write_errors: list[str] = []
    if not dry_run and result.changes:
        write_errors = await workspace.write(result, atomic)
    await workspace.report(result)
    feedback = build_feedback(result, lambda path: _current_lines(workspace, path),
                              atomic=atomic)
    return edits_outcome(result, feedback=feedback, dry_run=dry_run, write_errors=write_errors,
                         snapshots=reader.snapshots, roots=workspace.roots,
                         uri_for=workspace.uri_for, single_edit=isinstance(call, EditFileCall))


def _as_response(call: EditsCall | EditFileCall
                 ) -> tuple[str, frozenset[str] | None, dict[str, str], bool, bool, str]:
    """(response text, formats, expected hashes, dry run, atomic, matching) of a call."""
    if isinstance(call, EditsCall):
        return (call.response, call.formats, call.expected_sha256, call.dry_run, call.atomic,
                call.matching)
    if STR_REPLACE not in FORMAT_NAMES:
        raise ArgumentError("edit_file needs the str-replace format, which this version of "
                            "the engine does not have; use apply_edits")
    expected = {call.path: call.expected_sha256} if call.expected_sha256 else {}
    return (_str_replace_text(call), frozenset({STR_REPLACE}), expected, False, False, "exact")


def _str_replace_text(call: EditFileCall) -> str:
    """The call as the tool-call JSON the str-replace format reads (one block)."""
    edit: dict[str, Any] = {"file_path": call.path, "old_string": call.old_string,
                            "new_string": call.new_string}
    if call.replace_all:
        edit["replace_all"] = True
    return json.dumps(edit, ensure_ascii=False)


def checked_target(target: str | None, roots: list[Path]) -> str | None:
    """``target`` (a workspace-relative path or a ``file:`` URI) as the workspace-relative
    path the parser takes; refused like any path outside the workspace."""
    if target is None:
        return None
    file = url2pathname(urlparse(target).path) if target.startswith("file:") else target
    path, refusal = PathResolver(roots).resolve(file)
    if path is None:
        raise ArgumentError(f"'target': {refusal}")
    for root in roots:
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    return str(path)


def _plan(text: str, formats: frozenset[str] | None, target: str | None,
          reader: CheckedReader, workspace: AgentWorkspace, matching: str, atomic: bool,
          dry_run: bool) -> PlanResult:
    from ..parsing import parse_response
    from ..planning import plan_edits

    limits = workspace.limits
    parsed = parse_response(text, set(formats) if formats else None,
                            max_block_lines=limits.max_block_lines, target=target)
    if len(parsed.blocks) > limits.max_blocks:
        raise ArgumentError(f"the response has {len(parsed.blocks)} blocks, more than the "
                            f"limit of {limits.max_blocks}")
    return plan_edits(parsed, reader, workspace.roots, matching=matching, atomic=atomic,
                      dry_run=dry_run, max_block_lines=limits.max_block_lines)


def _current_lines(workspace: AgentWorkspace, path: Path) -> list[str] | None:
    """A file's lines as they are now, for feedback on a failure the engine gave no
    context for."""
    snapshot = workspace.read_file(path)
    if snapshot.text is None or snapshot.binary or snapshot.error:
        return None
    return text_to_lines(snapshot.text.removeprefix("\ufeff"))


__all__ = ["STR_REPLACE", "AgentWorkspace", "Limits", "run_tool"]
