"""Seed 002's error-recovery test. Whatever the model writes, nothing crashes, malformed blocks
become warnings, and files change only where blocks validated. The inputs are the local
model's own, in search-replace, a format it often gets wrong (blocks without a path line or
without their `=======`, whole files instead of blocks): its answer, its answer cut short by
the token limit, and every prefix of an answer (what a streaming client holds at each moment),
each through the real server. One format for the three keeps the model's cached prompt."""

from __future__ import annotations

from pathlib import Path

from real_model_live import SAMPLING, ask
from real_model_loop import apply_and_verify, check_sequential, disk_texts

from evals.judge import START_MARKERS
from evals.model import Sampling
from evals.tasks import load_tasks
from lsp_server.testing.editor_session import EditorSession

FORMAT = "search-replace"


async def test_whatever_the_model_writes_files_change_only_where_blocks_validated(
        model_endpoint, tmp_path: Path) -> None:
    (task,) = load_tasks(only=["two-edits-one-file"])
    completion = await ask(model_endpoint, task, FORMAT, SAMPLING, tmp_path)
    workspace = task.copy_workspace(tmp_path / "ws")
    await apply_and_verify(workspace, completion.text, tmp_path / "server.log")


async def test_an_answer_cut_by_the_token_limit_is_a_warning_not_an_edit(
        model_endpoint, tmp_path: Path) -> None:
    (task,) = load_tasks(only=["two-edits-one-file"])
    short = Sampling(temperature=SAMPLING.temperature, seed=SAMPLING.seed, max_tokens=60)
    completion = await ask(model_endpoint, task, FORMAT, short, tmp_path)
    workspace = task.copy_workspace(tmp_path / "ws")
    applied = await apply_and_verify(workspace, completion.text, tmp_path / "server.log")
    opened = len(START_MARKERS[FORMAT].findall(completion.text))
    closed = completion.text.count(">>>>>>> REPLACE")
    if opened > closed:  # the limit fell inside a block: it must be reported, not applied
        assert applied.result["warnings"], completion.text
        assert len(applied.result["blocks"]) <= closed


async def test_every_prefix_of_an_answer_is_handled(model_endpoint, tmp_path: Path) -> None:
    (task,) = load_tasks(only=["bug-fix-off-by-one"])
    completion = await ask(model_endpoint, task, FORMAT, SAMPLING, tmp_path)
    workspace = task.copy_workspace(tmp_path / "ws")
    before = disk_texts(workspace)
    lines = completion.text.splitlines(keepends=True)
    session = EditorSession(workspace, log_file=tmp_path / "server.log")
    await session.start()
    try:
        for end in range(len(lines) + 1):
            prefix = "".join(lines[:end])
            result = await session.run("llmEdits.preview", {"response": prefix})
            check_sequential(result["blocks"])
            assert disk_texts(workspace) == before
        assert await session.ping()
    finally:
        await session.stop()
