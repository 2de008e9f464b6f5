"""The ``at`` quick fix: apply an ambiguous block at one of the places it matches
(``llmEdits.applyFix`` with ``fix: "at", "line": N``, N 1-based as editors show lines).

The line must be one of the places the run found (``fixes.candidateLines``); the block is
then re-planned against the buffers as they are now with that place chosen
(:class:`~lsp_server.locate.common.ChosenPlace`): it lands there only while that line is
still the same one of the places its text (an ambiguous hunk's, in a hunk format:
``fixes.candidateHunk``) matches. Lines added above since the preview move the places: the
block then fails, naming where its text is now, and its renewed diagnostic offers those.
"""

from __future__ import annotations

from ...ambiguity import candidate_hunk, candidate_lines
from ...locate.common import ChosenPlace
from ..run_store import Run
from .arguments import CommandError


def at_candidate(run: Run, index: int, line: int | None) -> ChosenPlace:
    """The place to put block ``index`` at: ``line`` (1-based) must be one of the places the
    run found its text (``fixes.candidateLines``); 0-based, with which of them it is and the
    hunk it is a place of."""
    fixes = run.block(index).fixes or {}
    candidates = candidate_lines(fixes)
    if not candidates:
        raise CommandError(f"block {index} of run {run.run_id} is not ambiguous: it has no "
                           "candidate lines")
    if line is None or line - 1 not in candidates:
        shown = ", ".join(str(n + 1) for n in candidates)
        raise CommandError(f"line {line} is not one of the places block {index} of run "
                           f"{run.run_id} matches (lines {shown})")
    return ChosenPlace(line - 1, candidates.index(line - 1), candidate_hunk(fixes))


__all__ = ["at_candidate"]
