"""Seed 002's regression test: responses recorded from the local model, kept with their tasks
(``evals/tasks/<id>/recorded/<format>.json``, written by ``evals/run --record``), are replayed
through the server on every run and must keep their recorded outcomes: each block's status and
reason (its first clause: the kind of failure, not the wording of the details after it), the
number of parse warnings, and the check's verdict. Needs no model: a change in the
engine that turns a recorded success into a failure (or a failure into a different one) shows
here. One server per task replays all of that task's recordings, each on a fresh copy of its
files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from real_model_loop import apply_and_verify_in, server_session

from evals.tasks import TASKS_DIR, Task, run_check

RECORDED_TASKS = sorted({p.parent.parent.name for p in TASKS_DIR.glob("*/recorded/*.json")})


def test_there_are_recordings_to_replay() -> None:
    assert len(list(TASKS_DIR.glob("*/recorded/*.json"))) >= 20


def _kind(reason: str | None) -> str | None:
    return reason.split(";")[0] if reason else None


def _outcome(blocks: list[dict]) -> list[dict]:
    return [{"index": b["index"], "file": b["file"], "format": b["format"],
             "status": b["status"], "reason": _kind(b["reason"])} for b in blocks]


@pytest.mark.parametrize("task_id", RECORDED_TASKS)
async def test_recorded_responses_keep_their_outcomes(task_id: str, tmp_path: Path) -> None:
    task = Task(task_id, TASKS_DIR / task_id)
    workspace = tmp_path / "ws"
    changed = []
    async with server_session(task.copy_workspace(workspace), tmp_path / "server.log") as session:
        for recording in sorted((task.path / "recorded").glob("*.json")):
            recorded = json.loads(recording.read_text(encoding="utf-8"))
            shutil.rmtree(workspace)
            task.copy_workspace(workspace)
            applied = await apply_and_verify_in(session, workspace, recorded["response"],
                                                recorded.get("options"))
            got = {"blocks": _outcome(applied.result["blocks"]),
                   "warnings": len(applied.result["warnings"]),
                   "check_passed": run_check(task, workspace).passed}
            want = {"blocks": _outcome(recorded["blocks"]), "warnings": recorded["warnings"],
                    "check_passed": recorded["check_passed"]}
            if got != want:
                changed.append(f"{recording.stem}: recorded {want}, now {got}")
    assert not changed, "\n".join(changed)
