"""End to end with a real batch Emacs + eglot running editors/emacs/llm-edits.el.

Emacs 29+ has eglot built in; Debian 12's Emacs 28 gets it from the `elpa-eglot` package
(`apt-get install emacs-nox elpa-eglot`). Without either the tests skip and say so.
``tests/editors/emacs/driver.el`` sets eglot up as docs/editors.md shows, loads llm-edits.el,
runs its commands against ``python -m lsp_server`` and writes what it observed as JSON.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .editor_workspace import A_PY, D_PY, EMOJI, RESPONSES, make_workspace

pytestmark = pytest.mark.slow

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DRIVER = PROJECT_ROOT / "tests" / "editors" / "emacs" / "driver.el"
EL_FILE = PROJECT_ROOT / "editors" / "emacs" / "llm-edits.el"
EMACS_TIMEOUT_S = 300
# What batch Emacs reads at its prompts, in order: the blocks and the target (none) for C-u
# llm-edits-apply and C-u llm-edits-preview, the quick fix to run from eglot's code actions,
# then y-or-n-p: yes to the first suggested command, no to the second; last, for C-u
# llm-edits-apply of a chat answer: every block, target a.py.
AMBIGUOUS_FIX = "Apply block 1 at line 6"
ANSWERS = f"1,3\n\n2\n\n{AMBIGUOUS_FIX}\ny\nn\n\na.py\n".encode()
# A chat answer: prose and a code fence naming no file, for a.py's compute.
TARGET_RESPONSE = """Make it add two:

```python
def compute(x):
    return x + 2
```
"""

# Choosing blocks: three independent blocks on r.py; a block whose text is in amb.py twice.
REVIEW_FILE = "one = 1\ntwo = 2\nthree = 3\n"
REVIEW_RESPONSE = "\n".join(
    f'r.py\n<<<<<<< SEARCH\n{name} = {value}\n=======\n{name} = "{name.upper()}"\n>>>>>>> REPLACE\n'
    for name, value in (("one", 1), ("two", 2), ("three", 3))
)
AMB_PY = "def f():\n    return 1\n\n\ndef g():\n    return 1\n"
AMBIGUOUS_RESPONSE = """amb.py
<<<<<<< SEARCH
    return 1
=======
    return 2
>>>>>>> REPLACE
"""
# Given to llm-edits-apply as its BLOCKS argument, with the message each must give.
BAD_LISTS = {
    "2-1": 'llm-edits: blocks: "2-1": a range goes from the lower number to the higher',
    "1,1": "llm-edits: blocks: block 1 is named twice",
    "0": 'llm-edits: blocks: "0": blocks are numbered from 1',
    "1;3": 'llm-edits: blocks: "1;3" is not a block number or a range like 3-5',
    "1,,3": 'llm-edits: blocks: "1,,3" has an empty entry (e.g. 1,3-5)',
    "": "llm-edits: blocks: no block numbers given (e.g. 1,3-5)",
    # Checked by the server (only it knows how many blocks the response has).
    "7": "llm-edits: blocks: there is no block 7: the response has 3 blocks (valid: 1-3)",
}

# Commands in backticks are shell suggestions (never run by the server); the block edits d.py.
SHELL_RESPONSE = """Run `mkdir -p made_by_yes` and `mkdir -p declined` first.

d.py
<<<<<<< SEARCH
y = 2
=======
y = 20
>>>>>>> REPLACE
"""
# One suggestion of three commands, the second hiding a right-to-left override (issue 23).
COMPOUND_SHELL_RESPONSE = "```bash\nmkdir -p one && mkdir -p two\u202e; mkdir -p three\n```\n"

# Applied with llm-edits-stage-in-git after SHELL_RESPONSE, whose change to d.py is unsaved.
STAGE_RESPONSE = """d.py
<<<<<<< SEARCH
x = 1
=======
x = 10
>>>>>>> REPLACE
"""
GIT_IDENTITY = ["-c", "user.name=llm-edits tests", "-c", "user.email=tests@llm-edits.invalid"]


def _git(workspace: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(workspace), *GIT_IDENTITY, *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _emacs_with_eglot() -> tuple[str | None, str]:
    emacs = shutil.which("emacs")
    if emacs is None:
        return None, "no emacs on PATH (apt-get install emacs-nox elpa-eglot)"
    probe = subprocess.run(
        # Without -Q: Debian's site-start adds its elpa packages (elpa-eglot) to the load path.
        [emacs, "--batch", "--eval", "(require 'eglot)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:
        return None, f"{emacs} has no eglot (Emacs 29+, or apt-get install elpa-eglot)"
    return emacs, ""


@pytest.fixture(scope="module")
def emacs_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    emacs, reason = _emacs_with_eglot()
    if emacs is None:
        pytest.skip(reason)
    base = tmp_path_factory.mktemp("emacs")
    workspace = make_workspace(base)
    (workspace / "r.py").write_text(REVIEW_FILE, encoding="utf-8")
    (workspace / "amb.py").write_text(AMB_PY, encoding="utf-8")
    # project.el finds the project through version control; staging needs a first commit.
    _git(workspace, "init", "-q")
    _git(workspace, "add", "-A")
    _git(workspace, "commit", "-q", "-m", "workspace")
    out = base / "observed.json"
    config = {
        "workspace": str(workspace.resolve()),
        "server_cmd": [sys.executable, "-m", "lsp_server"],
        "el_file": str(EL_FILE),
        "out": str(out),
        "responses": {
            **RESPONSES,
            "shell": SHELL_RESPONSE,
            "compound_shell": COMPOUND_SHELL_RESPONSE,
            "stage": STAGE_RESPONSE,
            "review": REVIEW_RESPONSE,
            "ambiguous": AMBIGUOUS_RESPONSE,
            "target": TARGET_RESPONSE,
        },
        "bad_lists": list(BAD_LISTS),
    }
    config_path = base / "config.json"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    env = {**os.environ, "LLM_EDITS_EMACS_CONFIG": str(config_path), "HOME": str(base)}
    (base / ".emacs.d").mkdir()  # project.el saves its list of projects there
    process = subprocess.Popen(
        # --batch skips the user's init file but keeps the site files: Debian's site-start
        # puts elpa-eglot on the load path. HOME is a temporary directory.
        [emacs, "--batch", "-l", str(DRIVER)],
        cwd=workspace,
        env=env,
        # The answers to the y-or-n questions the driver expects; any other prompt fails.
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        _, stderr = process.communicate(ANSWERS, timeout=EMACS_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, stderr = process.communicate()
        pytest.fail(f"Emacs did not finish within {EMACS_TIMEOUT_S}s\n{stderr.decode()[-3000:]}")
    log = stderr.decode(errors="replace")[-4000:]
    if not out.exists():
        pytest.fail(f"Emacs wrote no result (exit {process.returncode})\n{log}")
    observed = json.loads(out.read_text(encoding="utf-8"))
    if "error" in observed:
        pytest.fail(f"Emacs driver error: {observed['error']}\n{log}")
    assert process.returncode == 0, log
    observed["workspace"] = str(workspace)
    observed["git_status"] = _git(workspace, "status", "--porcelain", "--untracked-files=no")
    observed["d_staged"] = _git(workspace, "show", ":d.py")
    return observed


def test_apply_edits_the_unsaved_buffers(emacs_run: dict[str, Any]) -> None:
    assert emacs_run["main_statuses"] == ["applied", "applied", "failed"]
    assert emacs_run["main_applied"] is True
    assert emacs_run["a_text"] == (
        "# unsaved line\n"
        '"""Module a."""\n'
        f'label = "{EMOJI} two {EMOJI}"\n'
        "value = 2\n"
        "\n\n"
        "def compute(x):\n"
        "    return x + 1\n"
    )
    assert emacs_run["a_modified"] is True
    assert emacs_run["a_disk"] == A_PY
    # eglot speaks UTF-16: the end-of-file edit right after an emoji lands exactly.
    assert emacs_run["b_text"] == f'import sys\nprint("{EMOJI} start")\nprint("{EMOJI} finished")'


def test_failed_block_line(emacs_run: dict[str, Any]) -> None:
    expected = emacs_run["a_text"].split("\n").index("def compute(x):")
    assert emacs_run["main_failed_line"] == expected


def test_preview_shows_a_diff_and_changes_nothing(emacs_run: dict[str, Any]) -> None:
    assert emacs_run["preview_statuses"] == ["validated"]
    assert emacs_run["preview_mode"] == "diff-mode"
    text = emacs_run["preview_text"]
    assert "--- a/d.py" in text and "+++ b/d.py" in text
    assert "-y = 2\n" in text and "+y = 20\n" in text
    assert emacs_run["d_after_preview"] == D_PY


def test_stale_edit_is_refused(emacs_run: dict[str, Any]) -> None:
    assert emacs_run["stale_statuses"] == ["validated"]
    assert emacs_run["stale_applied"] is False
    assert emacs_run["s_text"] == "# typed while the edit was in flight\ns = 1\n"


def test_feedback_on_the_kill_ring(emacs_run: dict[str, Any]) -> None:
    feedback = emacs_run["feedback"]
    assert "d.py" in feedback
    assert "y = 2" in feedback


def test_mcp_config_shows_the_agents_endpoint(emacs_run: dict[str, Any]) -> None:
    # The setting reached the server through eglot-workspace-configuration (docs/agents.md).
    url, token = emacs_run["mcp_url"], emacs_run["mcp_token"]
    assert url.startswith("http://127.0.0.1:")
    text = emacs_run["mcp_buffer"]
    assert f"URL:   {url}" in text and f"Token: {token}" in text
    assert "## Claude Code" in text and "## Gemini CLI" in text and "bearer_token_env_var" in text


def test_apply_twice_reports_already_applied(emacs_run: dict[str, Any]) -> None:
    # a.py's first block is placed by the words its lines keep (label = "…, value =). b.py's
    # keeps no line, and both print("… start") and print("… finished") keep its words:
    # either could be where print("… done") was, so it is not counted as applied
    # (docs/formats.md "Statuses", issue 23); it fails, changing nothing. The failing one
    # still fails.
    assert emacs_run["again_statuses"] == ["already-applied", "failed", "failed"]
    assert emacs_run["a_text_again"] == emacs_run["a_text"]
    assert emacs_run["b_text_again"] == emacs_run["b_text"]
    # The failed blocks' ranges are unchanged: nothing to send, and no "not applied" complaint.
    assert emacs_run["again_edit"] is None
    assert emacs_run["again_message"] == "llm-edits: 1 already applied, 2 failed"


def test_shell_suggestions_are_listed_and_run_only_when_confirmed(
    emacs_run: dict[str, Any],
) -> None:
    assert emacs_run["shell_statuses"] == ["applied"]
    assert emacs_run["shell_message"] == (
        "llm-edits: 1 applied; 2 suggested shell commands (not run) in *llm-edits shell*"
    )
    assert emacs_run["shell_dirs_before_asking"] == []
    assert emacs_run["shell_mode"] == "llm-edits-shell-mode"
    listed = emacs_run["shell_buffer"].splitlines()[2:]
    assert listed == ["mkdir -p made_by_yes", "mkdir -p declined"]
    # y: run in the project root, its exit status in the output buffer; n: nothing runs.
    assert emacs_run["shell_started"] is True
    assert emacs_run["shell_output"] == "$ mkdir -p made_by_yes\n[exit 0]\n"
    assert emacs_run["shell_declined"] is None
    assert emacs_run["shell_dirs"] == ["made_by_yes"]


def test_a_compound_suggestion_lists_and_asks_each_command_by_its_display(
    emacs_run: dict[str, Any],
) -> None:
    whole = "mkdir -p one && mkdir -p two<U+202E>; mkdir -p three"
    assert emacs_run["compound_buffer"].splitlines()[2:] == [
        f"{whole}  (3 commands, each run on its own)",
        "  1. mkdir -p one", "  2. mkdir -p two<U+202E>", "  3. mkdir -p three"]
    assert emacs_run["compound_prompt"].startswith("Run `mkdir -p two<U+202E>' in ")
    assert emacs_run["compound_declined"] is None


def test_stage_in_git_saves_and_stages_the_applied_files(emacs_run: dict[str, Any]) -> None:
    assert emacs_run["stage_statuses"] == ["applied"]
    assert emacs_run["stage_message"] == "llm-edits: 1 applied; staged 1 file in Git"
    # d.py was saved with the earlier unsaved change too: staging stages what is on disk.
    expected = "x = 10\ny = 20\nz = 3\n"
    assert emacs_run["d_modified_after_stage"] is None
    assert emacs_run["d_staged"] == expected
    assert (Path(emacs_run["workspace"]) / "d.py").read_text(encoding="utf-8") == expected
    # a.py (edited by an earlier apply, never saved) and b.py are neither saved nor staged.
    assert emacs_run["a_modified_after_stage"] is True
    assert (Path(emacs_run["workspace"]) / "a.py").read_text(encoding="utf-8") == A_PY
    assert sorted(emacs_run["git_status"].splitlines()) == ["M  d.py"]


def test_prefix_argument_runs_the_blocks_typed(emacs_run: dict[str, Any]) -> None:
    # C-u M-x llm-edits-apply, "1,3" at the prompt.
    assert emacs_run["chosen_statuses"] == ["applied", "excluded", "applied"]
    assert emacs_run["r_text"] == 'one = "ONE"\ntwo = 2\nthree = "THREE"\n'
    assert emacs_run["chosen_message"] == "llm-edits: 2 applied, 1 excluded"


def test_a_bad_block_list_is_a_clear_error(emacs_run: dict[str, Any]) -> None:
    assert dict(zip(BAD_LISTS, emacs_run["bad_lists"], strict=True)) == BAD_LISTS
    assert emacs_run["r_text_after_bad"] == emacs_run["r_text"]


def test_prefix_argument_previews_the_blocks_typed(emacs_run: dict[str, Any]) -> None:
    # C-u M-x llm-edits-preview, "2" at the prompt (blocks 1 and 3 were applied before).
    assert emacs_run["chosen_preview_statuses"] == ["excluded", "validated", "excluded"]
    assert emacs_run["chosen_preview_message"] == "llm-edits preview: 1 validated, 2 excluded"
    changed = [
        line
        for line in emacs_run["chosen_preview_text"].splitlines()
        if line[:1] in "+-" and not line.startswith(("---", "+++"))
    ]
    assert changed == ["-two = 2", '+two = "TWO"']


def test_an_ambiguous_block_offers_a_quick_fix_per_place(emacs_run: dict[str, Any]) -> None:
    assert emacs_run["amb_statuses"] == ["failed"]
    assert emacs_run["amb_candidates"] == [1, 5]
    offered = emacs_run["amb_offered"]
    assert "Apply block 1 at line 2" in offered and AMBIGUOUS_FIX in offered, offered
    assert emacs_run["amb_text"] == "def f():\n    return 1\n\n\ndef g():\n    return 2\n"


def test_prefix_argument_asks_for_the_target_of_a_chat_answer(emacs_run: dict[str, Any]) -> None:
    # C-u M-x llm-edits-apply on a chat answer, target a.py typed at the prompt: the fence
    # naming no file is merged into a.py's buffer (its unsaved first line kept).
    assert emacs_run["target_statuses"] == ["applied"]
    assert emacs_run["target_files"] == ["a.py"]
    text = emacs_run["a_text_after_target"]
    assert text.startswith("# unsaved line\n")
    assert text.endswith("def compute(x):\n    return x + 2\n")
