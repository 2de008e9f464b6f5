"""The recent runs (preview/apply), kept so fixes and feedback re-plan the same response."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from ..model import BlockResult, PlanResult
from ..session.options import EditOptions
from .errors import CommandError

RUNS_KEPT = 32  # recent runs remembered for code actions, applyFix and copyFeedback
# And at most this much text among them: responses and block results (reasons, hints,
# previews, the file lines of failures); a kept run holds no file texts (kept_plan).
RUNS_MAX_CHARS = 64 * 1024 * 1024


@dataclass
class EditRequest:
    """What an edit command works on: the response text (BOM-less) and the options."""

    text: str
    response_uri: str | None
    options: EditOptions

    @property
    def source_name(self) -> str:
        """How the label names the response: its file name, or "response"."""
        if self.response_uri:
            name = unquote(self.response_uri.rstrip("/").rsplit("/", 1)[-1])
            return name or "response"
        return "response"


@dataclass
class Run:
    """One preview/apply, kept so fixes and feedback re-plan the same response."""

    run_id: str
    request: EditRequest
    plan: PlanResult

    def block(self, index: int) -> BlockResult:
        for block in self.plan.blocks:
            if block.index == index:
                return block
        raise CommandError(f"run {self.run_id} has no block {index}")


def kept_plan(plan: PlanResult) -> PlanResult:
    """What a kept run needs of its plan: the block results, warnings and shell suggestions.

    Not its changes: they hold the old and new text of every changed file (32 previews of a
    one-line change to a 10 MB file held ~650 MB), and fixes and feedback re-plan or read
    the blocks, never them.
    """
    return PlanResult(blocks=plan.blocks, warnings=plan.warnings,
                      shell_suggestions=plan.shell_suggestions)


def _block_chars(block: BlockResult) -> int:
    texts = (block.file, block.reason, block.hint, block.anchor_preview, block.old_preview,
             block.new_preview)
    return (sum(len(t) for t in texts if t) + sum(len(line) for _, line in block.context)
            + len(str(block.fixes)))


def run_chars(run: Run) -> int:
    """The text a kept run holds, in characters: its response and its plan's results."""
    plan = run.plan
    return (len(run.request.text) + sum(_block_chars(b) for b in plan.blocks)
            + sum(len(w.message) for w in plan.warnings)
            + sum(len(s) for s in plan.shell_suggestions))


class RunStore:
    """The most recent runs, oldest dropped first.

    Bounded by count and by the text they hold (:func:`run_chars`: each response may be up
    to maxResponseBytes, and its results hold file lines); the newest run is always kept.
    """

    def __init__(self, limit: int = RUNS_KEPT, max_chars: int = RUNS_MAX_CHARS) -> None:
        self._runs: OrderedDict[str, Run] = OrderedDict()
        self._sizes: dict[str, int] = {}
        self._limit = limit
        self._max_chars = max_chars
        self._held_chars = 0  # text held by the kept runs

    def add(self, run: Run) -> None:
        """Keep ``run`` as the newest (its plan reduced to :func:`kept_plan`); also after a
        fix changed one of its blocks (its size is counted again)."""
        run.plan = kept_plan(run.plan)
        self._drop(run.run_id)
        size = self._sizes[run.run_id] = run_chars(run)
        self._runs[run.run_id] = run
        self._held_chars += size
        while len(self._runs) > 1 and (len(self._runs) > self._limit
                                       or self._held_chars > self._max_chars):
            self._drop(next(iter(self._runs)))

    def _drop(self, run_id: str) -> None:
        if self._runs.pop(run_id, None) is not None:
            self._held_chars -= self._sizes.pop(run_id)

    def get(self, run_id: str) -> Run:
        run = self._runs.get(run_id)
        if run is None:
            raise CommandError(
                f"unknown runId {run_id!r} (only the last {self._limit} runs are kept); "
                "run llmEdits.preview again")
        return run

    def find(self, run_id: Any) -> Run | None:
        return self._runs.get(run_id) if isinstance(run_id, str) else None
