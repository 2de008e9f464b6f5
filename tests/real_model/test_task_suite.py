"""The task suite itself: every check fails on the workspace as given and passes on the
reference solution, so a task's verdict in the eval is about the model's edit, not the check.
Needs no model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evals.tasks import load_tasks, run_check, user_message

TASKS = load_tasks()


def test_the_suite_has_at_least_twenty_tasks() -> None:
    assert len(TASKS) >= 20


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_check_fails_before_and_passes_on_the_reference_solution(task, tmp_path: Path) -> None:
    before = task.copy_workspace(tmp_path / "before")
    assert not run_check(task, before).passed
    after = task.copy_workspace(tmp_path / "after")
    shutil.copytree(task.path / "solution", after, dirs_exist_ok=True)
    result = run_check(task, after)
    assert result.passed, result.output


def test_the_prompt_shows_every_file_and_the_request() -> None:
    task = next(t for t in TASKS if t.id == "markdown-fences")
    message = user_message(task)
    assert "README.md\n````markdown\n# notes-cli" in message  # a longer fence than the file's
    assert message.endswith("Request: " + task.request)
    crlf = next(t for t in TASKS if t.id == "crlf-file")
    assert "\r" not in user_message(crlf)
