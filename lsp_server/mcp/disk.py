"""The workspace of ``llm-edits mcp``: files on disk under ``--root``, written as ``llm-edits
apply`` writes them (atomic per file, EOL, BOM, mode and owner kept; a file changed on disk
between the plan and the write is refused)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..model import FileSnapshot, PlanResult
from ..workspace import read_disk_file
from .calls import Limits


@dataclass
class DiskWorkspace:
    roots: list[Path]
    limits: Limits = field(default_factory=Limits)

    def read_file(self, path: Path) -> FileSnapshot:
        return read_disk_file(path, self.limits.max_file_bytes)

    def uri_for(self, path: Path) -> str:
        return path.as_uri()

    async def plan(self, work: Callable[[], PlanResult]) -> PlanResult:
        # On the loop: a stdio server has one client, which waits for this answer; the
        # writes below then run in the main thread, where SIGINT/SIGTERM are held while a
        # file is being replaced.
        return work()

    async def write(self, result: PlanResult, atomic: bool) -> list[str]:
        from ..cli.writes import write_changes

        return write_changes(result, atomic=atomic,
                             max_file_bytes=self.limits.max_file_bytes).errors

    async def report(self, result: PlanResult) -> None:
        """Nothing to show: the agent reads the result."""


__all__ = ["DiskWorkspace"]
