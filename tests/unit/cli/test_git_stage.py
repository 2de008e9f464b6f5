"""``llm-edits apply --stage``: what an apply wrote is staged in git, and nothing else."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from lsp_server.cli import cli

RESPONSE = """*** Begin Patch
*** Update File: a.py
@@
-x = 1
+x = 2
*** Add File: n.py
+new = True
*** Delete File: d.py
*** Update File: c.py
*** Move to: c2.py
@@
-c = 1
+c = 10
*** End Patch
"""


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "config", "user.email", "t@example.com")
    _git(tmp_path, "config", "user.name", "t")
    for name, text in {"a.py": "x = 1\n", "c.py": "c = 1\n", "d.py": "d = 1\n",
                       "b.py": "b = 1\n"}.items():
        (tmp_path / name).write_text(text)
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "start")
    (tmp_path / "b.py").write_text("b = 2\n")  # changed outside the apply: never staged
    return tmp_path


def _apply(repo: Path, *args: str, env: dict[str, str] | None = None):
    response = repo.parent / "response.md"
    response.write_text(RESPONSE)
    return CliRunner().invoke(cli, ["apply", str(response), "--root", str(repo), *args],
                              env=env)


def test_stage_adds_what_the_apply_wrote_and_nothing_else(repo: Path) -> None:
    result = _apply(repo, "--stage")
    assert result.exit_code == 0, result.output
    staged = _git(repo, "diff", "--cached", "--name-status").split("\n")
    assert sorted(line for line in staged if line) == [
        "A\tc2.py", "A\tn.py", "D\tc.py", "D\td.py", "M\ta.py"]
    assert _git(repo, "diff", "--name-only").split() == ["b.py"]


def test_without_stage_nothing_is_staged(repo: Path) -> None:
    assert _apply(repo).exit_code == 0
    assert _git(repo, "diff", "--cached", "--name-only") == ""


def test_the_default_comes_from_the_environment(repo: Path) -> None:
    assert _apply(repo, env={"LLM_EDITS_STAGE": "1"}).exit_code == 0
    assert "a.py" in _git(repo, "diff", "--cached", "--name-only").split()


def test_a_workspace_outside_git_says_so_and_still_writes(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    response = tmp_path.parent / f"{tmp_path.name}-response.md"
    response.write_text("*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n"
                        "*** End Patch\n")
    result = CliRunner().invoke(cli, ["apply", str(response), "--root", str(tmp_path),
                                      "--stage"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "a.py").read_text() == "x = 2\n"
    assert "not in a git work tree" in result.output
