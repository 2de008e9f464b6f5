"""README.md stays true: its opening commands exist, and its editor snippets are the tested ones."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
README = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")


def _code_blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.S | re.M)


def test_readme_opens_with_the_two_commands() -> None:
    first = _code_blocks(README, "sh")[0].splitlines()
    commands = [line.split("#")[0].strip() for line in first]
    assert commands == ["./scripts/demo", "./scripts/test"]
    for command in commands:
        script = PROJECT_ROOT / command
        assert script.is_file() and os.access(script, os.X_OK), command


def test_ci_runs_the_readme_test_command() -> None:
    assert "./scripts/test" in (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_editor_snippets_are_the_tested_files() -> None:
    helix = (PROJECT_ROOT / "editors" / "helix" / "languages.toml").read_text(encoding="utf-8")
    assert helix in _code_blocks(README, "toml")
    editors_doc = (PROJECT_ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    for elisp in _code_blocks(README, "elisp"):
        assert elisp in editors_doc  # the block tests/emacs/driver.el follows
    for lua in _code_blocks(README, "lua"):
        assert lua in editors_doc


def test_python_api_example_runs(tmp_path: Path) -> None:
    (example,) = _code_blocks(README, "python")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "a.py").write_text("def f():\n    return 1\n")
    (tmp_path / "response.md").write_text(
        "a.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", example], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "validated", "a.py", "1", "None"]
