"""``llm-edits apply --openai-output`` / ``--json``: an apply_patch_call_output item per
apply_patch_call of the response, as the Responses API takes the results back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lsp_server.cli import cli


def _call(call_id: str, op: str, path: str, diff: str | None = None) -> str:
    operation = {"type": op, "path": path, **({"diff": diff} if diff is not None else {})}
    return json.dumps({"type": "apply_patch_call", "call_id": call_id,
                       "operation": operation}) + "\n"


RESPONSE = (
    _call("call_update", "update_file", "app.py", "@@\n-x = 1\n+x = 10\n y = 2\n")
    + _call("call_stale", "update_file", "app.py", "@@\n-z = 1\n+z = 3\n")
    + _call("call_after", "update_file", "app.py", "@@\n-y = 2\n+y = 20\n")
    + _call("call_create", "create_file", "new.py", "+print(1)\n")
    + _call("call_delete", "delete_file", "old.py")
    + _call("call_outside", "create_file", "../escape.py", "+x\n")
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("x = 1\ny = 2\n")
    (root / "old.py").write_text("gone\n")
    (root / "response.jsonl").write_text(RESPONSE)
    return root


def _apply(root: Path, *flags: str):
    result = CliRunner().invoke(cli, ["apply", str(root / "response.jsonl"), "--root",
                                      str(root), *flags])
    assert "Traceback" not in result.output
    return result


def test_openai_output_prints_one_item_per_call_and_nothing_else(workspace: Path) -> None:
    result = _apply(workspace, "--openai-output")
    assert result.exit_code == 1  # a block failed
    items = [json.loads(line) for line in result.output.splitlines()]
    assert [(i["type"], i["call_id"], i["status"]) for i in items] == [
        ("apply_patch_call_output", "call_update", "completed"),
        ("apply_patch_call_output", "call_stale", "failed"),
        ("apply_patch_call_output", "call_after", "failed"),
        ("apply_patch_call_output", "call_create", "completed"),
        ("apply_patch_call_output", "call_delete", "completed"),
        ("apply_patch_call_output", "call_outside", "failed")]
    stale, after, outside = items[1]["output"], items[2]["output"], items[5]["output"]
    # The model is told why, where, and what the file really holds.
    assert stale.startswith("app.py: Failed to find expected lines") and "x = 10" in stale
    assert after == "app.py: Previous edit to this file failed"
    assert "Path refused" in outside
    assert (workspace / "app.py").read_text() == "x = 10\ny = 2\n"
    assert (workspace / "new.py").read_text() == "print(1)\n"
    assert not (workspace / "old.py").exists()


def test_already_applied_is_completed_and_a_second_run_writes_nothing(workspace: Path) -> None:
    _apply(workspace, "--openai-output")
    again = [json.loads(line) for line in _apply(workspace, "--openai-output").output.split(
        "\n") if line]
    assert again[0]["status"] == "completed" and "already applied" in again[0]["output"]


def test_json_mode_carries_the_items_and_each_blocks_call_id(workspace: Path) -> None:
    data = json.loads(_apply(workspace, "--json").output)
    assert [b["callId"] for b in data["blocks"]] == [
        "call_update", "call_stale", "call_after", "call_create", "call_delete", "call_outside"]
    assert [i["status"] for i in data["applyPatchCallOutputs"]] == [
        "completed", "failed", "failed", "completed", "completed", "failed"]


def test_a_dry_run_answers_no_call_and_atomic_fails_every_one(workspace: Path) -> None:
    check = CliRunner().invoke(cli, ["check", str(workspace / "response.jsonl"), "--root",
                                     str(workspace), "--json"])
    assert "applyPatchCallOutputs" not in json.loads(check.output)
    atomic = [json.loads(line) for line in _apply(workspace, "--openai-output",
                                                  "--atomic").output.splitlines()]
    assert {i["status"] for i in atomic} == {"failed"}
    assert "all-or-nothing" in atomic[0]["output"]
    assert (workspace / "app.py").read_text() == "x = 1\ny = 2\n"


def test_refused_with_stream(workspace: Path) -> None:
    result = _apply(workspace, "--openai-output", "--stream")
    assert result.exit_code == 2 and "--openai-output" in result.output
