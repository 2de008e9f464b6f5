"""The recent runs the server keeps for fixes and feedback, bounded by count and size."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.lsp.errors import CommandError
from lsp_server.lsp.run_store import EditRequest, Run, RunStore, run_chars
from lsp_server.model import BlockResult, FileEdit, ParseWarning, PlanResult, TextEdit
from lsp_server.session.options import EditOptions


def _run(run_id: str, text: str, plan: PlanResult | None = None) -> Run:
    return Run(run_id, EditRequest(text, None, EditOptions()), plan or PlanResult())


def test_runs_are_bounded_by_count_and_by_response_size() -> None:
    store = RunStore(limit=2, max_chars=10)
    for run_id in ("a", "b", "c"):
        store.add(_run(run_id, "x"))
    assert store.find("a") is None and store.find("b") and store.find("c")
    store.add(_run("big", "y" * 9))  # count drops b; c + big hold 10 chars: both fit
    assert store.find("b") is None and store.find("c") and store.find("big")
    store.add(_run("mid", "m" * 2))  # count drops c; big + mid hold 11 > 10: big goes too
    assert store.find("c") is None and store.find("big") is None and store.find("mid")
    store.add(_run("huge", "z" * 50))  # over the budget alone: still kept, as the newest
    assert store.find("huge") and store.find("mid") is None
    with pytest.raises(CommandError, match="unknown runId"):
        store.get("a")


def _preview_of_a_big_file(lines: int) -> PlanResult:
    """A one-line change to a file of ``lines`` lines: the FileEdit holds its whole old and
    new text."""
    original = "".join(f"line {i}\n" for i in range(lines))
    new = original.replace("line 0\n", "line zero\n", 1)
    edit = FileEdit(Path("/w/big.txt"), 1, [TextEdit(0, 0, 1, 0, "line zero\n")], original, new)
    block = BlockResult(0, "big.txt", "edit-v3", "validated", line=0, path=Path("/w/big.txt"))
    return PlanResult(blocks=[block], changes=[edit], files_modified=[Path("/w/big.txt")])


def test_a_kept_run_holds_no_file_texts() -> None:
    # Each preview of a one-line change to a 10 MB file pinned 20 MB (the file's old and new
    # text); 32 of them ~650 MB, under a bound that counted only the responses.
    store = RunStore()
    plan = _preview_of_a_big_file(1000)
    store.add(_run("r", "response", plan))
    kept = store.get("r").plan
    assert kept.changes == [] and kept.files_modified == []
    assert kept.blocks == plan.blocks  # what fixes, code actions and feedback read
    assert plan.changes  # the caller's plan (its result is built after) is left whole


def test_what_runs_hold_beyond_their_response_counts_toward_the_bound() -> None:
    # A failed block keeps the file's lines around its estimated line (for feedback): a
    # minified file's line can be megabytes.
    line = "x" * 600

    def failed(run_id: str) -> Run:
        block = BlockResult(0, "min.js", "edit-v3", "failed", reason="Old lines not found",
                            hint="did you mean", line=0, context=[(0, line), (1, "y")])
        plan = PlanResult(blocks=[block], warnings=[ParseWarning(3, "unclosed block")],
                          shell_suggestions=["git rm old.js"])
        return _run(run_id, "r" * 10, plan)

    first = failed("first")
    size = run_chars(first)
    assert size == (10 + len("min.js") + len("Old lines not found") + len("did you mean")
                    + 601 + len("{}") + len("unclosed block") + len("git rm old.js"))
    store = RunStore(limit=10, max_chars=2 * size - 1)
    store.add(first)
    store.add(failed("second"))  # two do not fit: the older goes
    assert store.find("first") is None and store.find("second")
    store = RunStore(limit=10, max_chars=2 * size)
    store.add(failed("first"))
    store.add(failed("second"))
    assert store.find("first") and store.find("second")
    # A fix that changes a kept run's block is counted again when the run is added back.
    fixed = store.get("first")
    fixed.plan.blocks = [BlockResult(0, "min.js", "edit-v3", "applied", line=0)]
    store.add(fixed)
    store.add(failed("third"))  # first is now small: first + third fit, second (older) goes
    assert store.find("second") is None and store.find("first") and store.find("third")
