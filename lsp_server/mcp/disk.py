"""The workspace of ``llm-edits mcp``: files on disk under ``--root``, planned by the engine
and written as ``llm-edits apply`` writes them (atomic per file, EOL, BOM, mode and owner
kept; a file changed on disk between the plan and the write is refused)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import FileSnapshot, ParseResult, PlanResult
from ..workspace import read_disk_file
from .arguments import ArgumentError
from .calls import AgentRequest, Limits, Ran
from .preconditions import CheckedReader


@dataclass
class DiskWorkspace:
    folders: list[Path]
    limits: Limits = field(default_factory=Limits)

    def roots(self) -> list[Path]:
        return self.folders

    def read_file(self, path: Path) -> FileSnapshot:
        return read_disk_file(path, self.limits.max_file_bytes)

    def uri_for(self, path: Path) -> str:
        return path.as_uri()

    async def run(self, request: AgentRequest) -> Ran:
        # On the loop: a stdio server has one client, which waits for this answer; the writes
        # then run in the main thread, where SIGINT/SIGTERM are held while a file is replaced.
        reader = CheckedReader(self.read_file, self.folders, request.expected)
        plan = plan_request(request, reader, self.folders, self.limits)
        errors: list[str] = []
        if not request.dry_run and plan.changes:
            from ..cli.writes import write_changes

            errors = write_changes(plan, atomic=request.atomic,
                                   max_file_bytes=self.limits.max_file_bytes).errors
        return Ran(plan, errors, reader.snapshots)


def plan_request(request: AgentRequest, reader: CheckedReader, roots: list[Path],
                 limits: Limits) -> PlanResult:
    """Plan a request against ``reader``: a response through the session's run (the one
    pipeline of the server and the CLI: limits, target, parse, plan); ``edit_file``'s one
    block built as the str-replace format reads the call, then planned."""
    from ..planning import plan_edits

    edit = request.edit
    if edit is not None:
        from ..parsing.str_replace import str_replace_block

        block = str_replace_block(edit.path, edit.old_string, edit.new_string, edit.replace_all)
        return plan_edits(ParseResult(blocks=[block]), reader, roots, dry_run=request.dry_run,
                          max_block_lines=limits.max_block_lines)
    from ..session.options import OptionsError, parse_options
    from ..session.run import run_response

    options: dict[str, Any] = {
        "matching": request.matching, "atomic": request.atomic,
        "maxResponseBytes": limits.max_response_bytes, "maxBlocks": limits.max_blocks,
        "maxFileBytes": limits.max_file_bytes, "maxBlockLines": limits.max_block_lines}
    if request.formats is not None:
        options["formats"] = sorted(request.formats)
    if request.target is not None:
        options["target"] = request.target
    try:
        return run_response(request.text, parse_options(options), reader, roots,
                            dry_run=request.dry_run).plan
    except OptionsError as exc:  # refused whole (its size, its number of blocks)
        raise ArgumentError(str(exc)) from None


__all__ = ["DiskWorkspace", "plan_request"]
