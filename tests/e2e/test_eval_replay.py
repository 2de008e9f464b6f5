"""``evals/run replay`` through the real server: a task folder made here (one file, a check,
recorded answers) replayed with and without a target, and every recorded answer of the suite
that is only code fences read with its task's target (none left without a word)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.replay import has_fence, options_for, replay_task, target_for
from evals.tasks import TASKS_DIR, Task, load_tasks
from lsp_server.testing.editor_session import EditorSession

APP = 'def greet(name):\n    return "Hi " + name\n\n\ndef farewell(name):\n    return "Bye"\n'
CHECK = ('import runpy\n\nfunctions = runpy.run_path("app.py")\n'
         'assert functions["greet"]("x") == "Hello, x!"\n'
         'assert functions["farewell"]("x") == "Bye"\n')
SNIPPET = ('Here is the fix:\n\n```python\ndef greet(name):\n'
           '    return "Hello, " + name + "!"\n```\n')


def _task(root: Path, answers: dict[str, str]) -> Task:
    (root / "ws").mkdir(parents=True)
    (root / "ws/app.py").write_text(APP)
    (root / "check.py").write_text(CHECK)
    (root / "request.txt").write_text("Greet with Hello and an exclamation mark.\n")
    (root / "recorded").mkdir()
    for name, response in answers.items():
        (root / "recorded" / f"{name}.json").write_text(json.dumps(
            {"format": name, "options": None, "response": response, "check_passed": False}))
    return Task(root.name, root)


async def test_an_unnamed_snippet_is_refused_without_a_target_and_passes_with_one(
        tmp_path: Path) -> None:
    task = _task(tmp_path / "greet", {"code-block": SNIPPET, "unified-diff": "No change.\n"})
    replays = {(r.format, r.mode): r for r in await replay_task(task)}
    without, with_target = replays["code-block", "none"], replays["code-block", "auto"]
    assert (without.target, without.outcome, without.check_passed) == (None, "refused", False)
    assert "names no file" in without.warnings[0]
    assert (with_target.target, with_target.outcome, with_target.check_passed) == (
        "app.py", "applied", True)
    assert [b["status"] for b in with_target.blocks] == ["applied"]
    assert without.fence_only and with_target.fence_only
    prose = replays["unified-diff", "auto"]
    assert (prose.fence_only, prose.outcome, prose.check_passed) == (False, "ignored", False)
    assert (task.workspace / "app.py").read_text() == APP  # replays edit a copy


async def test_a_named_block_is_no_fence_only_answer(tmp_path: Path) -> None:
    named = SNIPPET.replace("```python", "app.py\n```python")
    task = _task(tmp_path / "greet", {"code-block": named})
    [without, _] = await replay_task(task)
    assert (without.outcome, without.check_passed) == ("applied", True)
    # without code blocks, the engine read no block in it, so it counts as fence-only
    assert without.fence_only


def _fence_only_with_target() -> list[tuple[str, str]]:
    return [(task.id, path.stem) for task in load_tasks(TASKS_DIR) if target_for(task)
            for path in sorted((task.path / "recorded").glob("*.json"))]


async def test_every_fence_only_recorded_answer_given_a_target_gets_a_block_or_a_reason(
        tmp_path: Path) -> None:
    silent = []
    session = EditorSession(tmp_path, log_file=tmp_path / "server.log")
    await session.start()
    try:
        for task_id, name in _fence_only_with_target():
            task = Task(task_id, TASKS_DIR / task_id)
            recorded = json.loads((task.path / "recorded" / f"{name}.json").read_text())
            response, asked = recorded["response"], recorded.get("options")
            legacy = await session.run("llmEdits.parse", {
                "response": response, "options": options_for(asked, target=None, legacy=True)})
            if legacy["blocks"] or not has_fence(response):
                continue  # not fence-only
            parsed = await session.run("llmEdits.parse", {
                "response": response, "options": options_for(asked, target=target_for(task))})
            if not parsed["blocks"] and not parsed["warnings"]:
                silent.append((task_id, name))
    finally:
        await session.stop()
    # A ```sh fence holding the whole target script is never a block (FORMATS.md: shell
    # fences are shell suggestions), but it is said (shell-script's recorded answers).
    assert not silent


async def test_a_fence_given_a_target_is_never_told_to_use_a_target(tmp_path: Path) -> None:
    # yaml-config's recorded apply-patch answer: a fence holding '*** Update File:' outside a
    # patch gives way to apply-patch's warning; the no-block hint must not then ask for the
    # target the caller already gave.
    task = Task("yaml-config", TASKS_DIR / "yaml-config")
    recorded = json.loads((task.path / "recorded/apply-patch.json").read_text())
    session = EditorSession(tmp_path, log_file=tmp_path / "server.log")
    await session.start()
    try:
        with_target = await session.run("llmEdits.parse", {
            "response": recorded["response"],
            "options": options_for(None, target=target_for(task))})
    finally:
        await session.stop()
    assert with_target["warnings"] and not with_target["blocks"]
    assert not any("with target" in w["message"] for w in with_target["warnings"])


@pytest.mark.xfail(strict=True, reason="since the merge keeps a file's import unless the "
                   "snippet's imports every name it does, a renamed import joins the block")
async def test_a_snippet_renaming_an_import_replaces_the_import() -> None:
    # rename-with-callers' recorded whole-file answer: two fences named by their first-line
    # comments, 'shop/report.py' with 'from shop.cart import order_total' where the file has
    # 'from shop.cart import compute_total' (renamed in shop/cart.py by the other fence).
    task = Task("rename-with-callers", TASKS_DIR / "rename-with-callers")
    [replay] = await replay_task(task, modes=("none",), formats=["whole-file"])
    assert [b["status"] for b in replay.blocks] == ["applied", "applied"]
    assert replay.check_passed, "shop/report.py still imports compute_total"
