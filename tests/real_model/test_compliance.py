"""Seed 002's format compliance test: the local model's answer to a simple request, asked in
the format it writes best, contains a block in that format that the server parses."""

from __future__ import annotations

from pathlib import Path

from real_model_live import BEST_FORMAT, SAMPLING, ask

from evals.tasks import load_tasks
from evals.through_server import run_through_server


async def test_answer_to_a_simple_request_holds_a_block_that_parses(model_endpoint,
                                                                     tmp_path: Path) -> None:
    (task,) = load_tasks(only=["bug-fix-off-by-one"])
    completion = await ask(model_endpoint, task, BEST_FORMAT, SAMPLING, tmp_path)
    workspace = task.copy_workspace(tmp_path / "ws")
    outcome = await run_through_server(workspace, completion.text,
                                       log_file=tmp_path / "server.log")
    formats = [block["format"] for block in outcome.parsed["blocks"]]
    assert BEST_FORMAT in formats, completion.text
