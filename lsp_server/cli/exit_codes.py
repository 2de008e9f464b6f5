"""The CLI's exit codes (``llm-edits --help`` and docs/cli.md list them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..model import PlanResult

EXIT_OK = 0  # every block matched (check) or was applied (apply)
EXIT_FAILED = 1  # a block failed or was skipped, a write failed, or no (usable) block
EXIT_USAGE = 2  # a bad option, an unreadable or too large response, a missing root
EXIT_INTERNAL = 3  # a bug: one line on stderr (LLM_EDITS_DEBUG=1 shows the traceback)


def exit_code(result: PlanResult) -> int:
    """The exit code a plan earns (before any write)."""
    if not result.ok:
        return EXIT_FAILED
    if not result.blocks:
        return EXIT_FAILED  # no block, or only malformed ones: nothing usable
    return EXIT_OK
