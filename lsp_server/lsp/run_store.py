"""The recent runs (preview/apply), kept so fixes and feedback re-plan the same response."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from ..model import BlockResult, PlanResult
from .options import CommandError, EditOptions

RUNS_KEPT = 32  # recent runs remembered for code actions, applyFix and copyFeedback
RUNS_MAX_CHARS = 64 * 1024 * 1024  # and at most this much response text among them


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


class RunStore:
    """The most recent runs, oldest dropped first.

    Bounded by count and by the size of the responses held (each may be up to
    maxResponseBytes); the newest run is always kept.
    """

    def __init__(self, limit: int = RUNS_KEPT, max_chars: int = RUNS_MAX_CHARS) -> None:
        self._runs: OrderedDict[str, Run] = OrderedDict()
        self._limit = limit
        self._max_chars = max_chars
        self._held_chars = 0  # response text held by the kept runs

    def add(self, run: Run) -> None:
        replaced = self._runs.pop(run.run_id, None)
        if replaced is not None:
            self._held_chars -= len(replaced.request.text)
        self._runs[run.run_id] = run
        self._held_chars += len(run.request.text)
        while len(self._runs) > 1 and (len(self._runs) > self._limit
                                       or self._held_chars > self._max_chars):
            _, dropped = self._runs.popitem(last=False)
            self._held_chars -= len(dropped.request.text)

    def get(self, run_id: str) -> Run:
        run = self._runs.get(run_id)
        if run is None:
            raise CommandError(
                f"unknown runId {run_id!r} (only the last {self._limit} runs are kept); "
                "run llmEdits.preview again")
        return run

    def find(self, run_id: Any) -> Run | None:
        return self._runs.get(run_id) if isinstance(run_id, str) else None
