"""The ``at`` quick fix: apply an ambiguous block at one of the places it matches
(``llmEdits.applyFix`` with ``fix: "at", "line": N``, N 1-based as editors show lines)."""

from __future__ import annotations

from ..ambiguity import candidate_lines
from .options import CommandError
from .run_store import Run


def at_candidate(run: Run, index: int, line: int | None) -> int:
    """The 0-based line to place block ``index`` at: ``line`` (1-based) must be one of the
    places the run found its text (``fixes.candidateLines``)."""
    candidates = candidate_lines(run.block(index).fixes or {})
    if not candidates:
        raise CommandError(f"block {index} of run {run.run_id} is not ambiguous: it has no "
                           "candidate lines")
    if line is None or line - 1 not in candidates:
        shown = ", ".join(str(n + 1) for n in candidates)
        raise CommandError(f"line {line} is not one of the places block {index} of run "
                           f"{run.run_id} matches (lines {shown})")
    return line - 1


__all__ = ["at_candidate"]
