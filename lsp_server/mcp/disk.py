"""The workspace of ``llm-edits mcp``: files on disk under ``--root``, planned by the engine
and written as ``llm-edits apply`` writes them (atomic per file, EOL, BOM, mode and owner
kept; a file changed on disk between the plan and the write is refused)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

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
    """Parse (``edit_file``: build its one block) and plan a request against ``reader``."""
    from ..planning import plan_edits

    parsed = _parsed(request, limits)
    if len(parsed.blocks) > limits.max_blocks:
        raise ArgumentError(f"the response has {len(parsed.blocks)} blocks, more than the "
                            f"limit of {limits.max_blocks}")
    return plan_edits(parsed, reader, roots, matching=request.matching, atomic=request.atomic,
                      dry_run=request.dry_run, max_block_lines=limits.max_block_lines)


def _parsed(request: AgentRequest, limits: Limits) -> ParseResult:
    edit = request.edit
    if edit is not None:  # one block, as the str-replace format reads the call
        from ..parsing.str_replace import str_replace_block

        return ParseResult(blocks=[str_replace_block(edit.path, edit.old_string,
                                                     edit.new_string, edit.replace_all)])
    from ..parsing import parse_response

    return parse_response(request.text, set(request.formats) if request.formats else None,
                          max_block_lines=limits.max_block_lines, target=request.target)


__all__ = ["DiskWorkspace", "plan_request"]
