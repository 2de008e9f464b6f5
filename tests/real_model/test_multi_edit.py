"""Seed 002's multi-edit test: a request needing two edits in one file. Whatever the model
writes, the blocks for that file apply in order, each seeing the file as the blocks before it
left it (the applied result is exactly the preview's), a failure skips the later blocks of
the file, and every hunk or block that applied is in the final text."""

from __future__ import annotations

from pathlib import Path

from real_model_live import BEST_FORMAT, SAMPLING, ask
from real_model_loop import apply_and_verify

from evals.tasks import load_tasks


def _new_texts(block: dict) -> list[str]:
    if block.get("hunks"):
        return [hunk.get("new") or "" for hunk in block["hunks"]]
    return [block.get("new") or ""]


async def test_two_edits_in_one_file_apply_in_order(model_endpoint, tmp_path: Path) -> None:
    (task,) = load_tasks(only=["two-edits-one-file"])
    completion = await ask(model_endpoint, task, BEST_FORMAT, SAMPLING, tmp_path)
    workspace = task.copy_workspace(tmp_path / "ws")
    applied = await apply_and_verify(workspace, completion.text, tmp_path / "server.log")
    parsed = {block["index"]: block for block in applied.parsed["blocks"]}
    last_applied: dict[str, dict] = {}
    for block in applied.result["blocks"]:
        if block["status"] == "applied":
            last_applied[block["file"]] = parsed[block["index"]]
    for path, block in last_applied.items():
        if path not in applied.after:  # moved by the block: its text is checked by the preview
            continue
        # compared without leading whitespace: a whitespace-located block (semantic-diff) is
        # re-indented to the file's indentation, and lines it keeps are the file's own
        final_lines = {line.strip() for line in applied.after[path].splitlines()}
        for text in _new_texts(block):
            for line in text.rstrip("\n").split("\n"):
                assert not line.strip() or line.strip() in final_lines, (line, completion.text)
