"""``llm-edits check|apply|feedback --target PATH``: a chat answer's unnamed code fences applied
to the file the user names (through click's CliRunner, over files on disk)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lsp_server.cli import cli

APP = 'def greet(name):\n    print("Hi " + name)\n\n\ndef farewell(name):\n    print("Bye")\n'
CHAT = ('Print a friendlier greeting:\n\n```python\ndef greet(name):\n'
        '    print("Hello, " + name + "!")\n```\n\nRun it with:\n\n```bash\npython app.py\n```\n')


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src/app.py").write_text(APP)
    (root / "blob.bin").write_bytes(b"\x00binary\n")
    (root / "answer.md").write_text(CHAT)
    monkeypatch.chdir(root)
    return root


def _run(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output
    return result


def test_apply_with_target_merges_the_unnamed_fence_into_that_file(workspace: Path) -> None:
    result = _run("apply", "answer.md", "--target", "src/app.py", "--json")
    assert result.exit_code == 0, result.output
    [block] = json.loads(result.output)["blocks"]
    assert (block["file"], block["status"], block["format"]) == (
        "src/app.py", "applied", "code-block")
    assert (workspace / "src/app.py").read_text() == APP.replace(
        '"Hi " + name', '"Hello, " + name + "!"')


def test_a_target_is_a_path_from_the_current_directory(workspace: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workspace / "src")
    result = _run("check", "../answer.md", "--root", str(workspace), "--target", "app.py")
    assert result.exit_code == 0, result.output
    assert "src/app.py" in result.output and "validated" in result.output


def test_without_target_nothing_is_found_and_the_message_names_target(workspace: Path) -> None:
    result = _run("check", "answer.md", "--json")
    output = json.loads(result.output)
    assert output["blocks"] == []
    assert [w["message"] for w in output["warnings"]] == [
        "No edit blocks found; 1 code block names no file: apply it to a file with target"]


@pytest.mark.parametrize("target", ["../outside.py", "/etc/passwd"])
def test_a_target_outside_the_workspace_is_refused_and_nothing_changes(workspace: Path,
                                                                      target: str) -> None:
    result = _run("apply", "answer.md", "--target", target)
    assert result.exit_code == 2 and "--target" in result.output
    assert (workspace / "src/app.py").read_text() == APP


def test_a_binary_target_fails_its_block(workspace: Path) -> None:
    result = _run("apply", "answer.md", "--target", "blob.bin", "--json")
    assert result.exit_code == 1
    [block] = json.loads(result.output)["blocks"]
    assert block["status"] == "failed" and "binary" in block["reason"]
    assert (workspace / "blob.bin").read_bytes() == b"\x00binary\n"


def test_target_is_refused_with_stream(workspace: Path) -> None:
    result = _run("apply", "--stream", "answer.md", "--target", "src/app.py")
    assert result.exit_code == 2 and "--target cannot be used with --stream" in result.output
