"""Running one tool call against a workspace: the arguments checked, the edits planned by the
engine, written by the workspace, and the outcome rendered for the agent.

The workspace (:class:`AgentWorkspace`) is where the difference between the transports lives:
``llm-edits mcp`` reads and writes files on disk (:mod:`.disk`); the language server's endpoint
reads open buffers and sends ``workspace/applyEdit``. Everything else is the same code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse
from urllib.request import url2pathname

from ..feedback import build_feedback
from ..limits import (
    DEFAULT_MAX_BLOCK_LINES,
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_RESPONSE_BYTES,
)
from ..model import FileSnapshot, ParseResult, PlanResult, text_to_lines
from ..workspace import PathResolver
from .arguments import ArgumentError, EditFileCall, EditsCall, InstructionsCall, parse_call
from .preconditions import CheckedReader
from .rendering import ToolOutcome, edits_outcome, instructions_outcome


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


@dataclass(frozen=True)
class _Request:
    """What a call asks the engine: a response to parse, or edit_file's one block."""

    text: str
    formats: frozenset[str] | None
    target: str | None
    expected: dict[str, str]
    dry_run: bool
    atomic: bool
    matching: str
    edit: EditFileCall | None = None


async def _run_edits(call: EditsCall | EditFileCall, workspace: AgentWorkspace) -> ToolOutcome:
    request = _request(call, workspace.roots)
    reader = CheckedReader(workspace.read_file, workspace.roots, request.expected)
    result = await workspace.plan(lambda: _plan(request, reader, workspace))
    write_errors: list[str] = []
    if not request.dry_run and result.changes:
        write_errors = await workspace.write(result, request.atomic)
    await workspace.report(result)
    feedback = build_feedback(result, lambda path: _current_lines(workspace, path),
                              atomic=request.atomic)
    return edits_outcome(result, feedback=feedback, dry_run=request.dry_run,
                         write_errors=write_errors, snapshots=reader.snapshots,
                         roots=workspace.roots, uri_for=workspace.uri_for,
                         single_edit=request.edit is not None)


def _request(call: EditsCall | EditFileCall, roots: list[Path]) -> _Request:
    if isinstance(call, EditsCall):
        return _Request(call.response, call.formats, checked_target(call.target, roots),
                        call.expected_sha256, call.dry_run, call.atomic, call.matching)
    expected = {call.path: call.expected_sha256} if call.expected_sha256 else {}
    return _Request("", None, None, expected, False, False, "exact", edit=call)


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


def _plan(request: _Request, reader: CheckedReader, workspace: AgentWorkspace) -> PlanResult:
    from ..planning import plan_edits

    limits = workspace.limits
    parsed = _parsed(request, limits)
    if len(parsed.blocks) > limits.max_blocks:
        raise ArgumentError(f"the response has {len(parsed.blocks)} blocks, more than the "
                            f"limit of {limits.max_blocks}")
    return plan_edits(parsed, reader, workspace.roots, matching=request.matching,
                      atomic=request.atomic, dry_run=request.dry_run,
                      max_block_lines=limits.max_block_lines)


def _parsed(request: _Request, limits: Limits) -> ParseResult:
    edit = request.edit
    if edit is not None:  # one block, built as the str-replace format reads a tool call
        from ..parsing.str_replace import str_replace_block

        return ParseResult(blocks=[str_replace_block(edit.path, edit.old_string,
                                                     edit.new_string, edit.replace_all)])
    from ..parsing import parse_response

    return parse_response(request.text, set(request.formats) if request.formats else None,
                          max_block_lines=limits.max_block_lines, target=request.target)


def _current_lines(workspace: AgentWorkspace, path: Path) -> list[str] | None:
    """A file's lines as they are now, for feedback on a failure the engine gave no
    context for."""
    snapshot = workspace.read_file(path)
    if snapshot.text is None or snapshot.binary or snapshot.error:
        return None
    return text_to_lines(snapshot.text.removeprefix("\ufeff"))


__all__ = ["AgentWorkspace", "Limits", "checked_target", "run_tool"]
