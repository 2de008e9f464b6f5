"""The ``llm-edits`` commands: through click's CliRunner, and once as the installed console
script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lsp_server.cli import cli
from lsp_server.instructions import TAUGHT_FORMAT_NAMES

PROJECT_ROOT = Path(__file__).resolve().parents[3]
BOM = b"\xef\xbb\xbf"
APP = 'def greet(name):\n    print("Hi " + name)\n\n\ndef farewell(name):\n    print("Bye")\n'

GOOD_V3 = """Fix the greeting:

src/app.py
««« EDIT
def greet(name):
    print("Hi " + name)
═══════ REPL
def greet(name):
    print("Hello " + name)
»»» EDIT END
"""

STALE_V3 = """src/app.py
««« EDIT
def greet(name):
    print("Howdy " + name)
═══════ REPL
def greet(name):
    print("Hey " + name)
»»» EDIT END
"""

CRLF_BOM_V3 = """win.txt
««« EDIT
alpha
beta
═══════ REPL
alpha
BETA
delta
»»» EDIT END
"""

RESOURCE_PATCH = """*** Begin Patch
*** Add File: docs/new.md
+# New
*** Delete File: old.txt
*** Update File: src/app.py
*** Move to: src/main.py
@@
 def farewell(name):
-    print("Bye")
+    print("Goodbye")
*** End Patch
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src/app.py").write_text(APP)
    (root / "win.txt").write_bytes(BOM + b"alpha\r\nbeta\r\ngamma\r\n")
    (root / "old.txt").write_text("obsolete\n")
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _run(args: list[str], input: str | None = None):
    result = CliRunner().invoke(cli, args, input=input)
    assert "Traceback" not in result.output
    return result


def _response(tmp_path: Path, text: str, name: str = "response.md") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# -------------------------------------------------------------------------------- check


def test_check_reports_each_block_and_changes_nothing(workspace: Path, tmp_path: Path) -> None:
    before = _snapshot(workspace)
    result = _run(["check", _response(tmp_path, GOOD_V3), "--root", str(workspace)])
    assert result.exit_code == 0, result.output
    assert "validated" in result.output and "src/app.py" in result.output
    assert "dry run, nothing written" in result.output
    assert _snapshot(workspace) == before


def test_check_exits_1_and_shows_the_failure_with_a_1_based_line(
        workspace: Path, tmp_path: Path) -> None:
    result = _run(["check", _response(tmp_path, GOOD_V3 + "\n" + STALE_V3),
                   "--root", str(workspace), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert [b["status"] for b in data["blocks"]] == ["validated", "failed"]
    failed = data["blocks"][1]
    assert failed["line"] == 0 and failed["reason"]
    table = _run(["check", _response(tmp_path, STALE_V3), "--root", str(workspace)])
    assert table.exit_code == 1
    row = next(line for line in table.output.splitlines() if "failed" in line)
    assert "src/app.py" in row and " 1 " in row  # line 0 shown as 1
    # Details under the table: the real lines of the file, numbered from 1, the line marked.
    assert "Block 1 failed: src/app.py (edit-v3, response line 1)" in table.output
    assert '> 1 | def greet(name):' in table.output
    assert '  2 |     print("Hi " + name)' in table.output


def test_json_output_has_the_server_result_shape_without_edit(
        workspace: Path, tmp_path: Path) -> None:
    result = _run(["check", _response(tmp_path, GOOD_V3), "--root", str(workspace), "--json"])
    data = json.loads(result.output)
    assert "edit" not in data
    assert set(data) >= {"blocks", "shellSuggestions", "warnings", "files", "ok", "dryRun"}
    block = data["blocks"][0]
    assert block["index"] == 0 and block["file"] == "src/app.py"
    assert block["uri"] == (workspace / "src/app.py").as_uri()
    assert block["format"] == "edit-v3" and block["status"] == "validated"
    assert block["line"] == 0 and block["match"] == "exact"
    assert block["responseLine"] == 2
    assert data["files"] == [{
        "path": "src/app.py", "uri": (workspace / "src/app.py").as_uri(), "kind": "edit",
        "linesAdded": 1, "linesRemoved": 1,
    }]
    assert data["ok"] is True and data["dryRun"] is True


def test_diff_shows_a_unified_diff_of_what_would_change(workspace: Path, tmp_path: Path) -> None:
    result = _run(["check", _response(tmp_path, GOOD_V3), "--root", str(workspace), "--diff"])
    lines = result.output.splitlines()
    assert "--- a/src/app.py" in lines and "+++ b/src/app.py" in lines
    assert '-    print("Hi " + name)' in lines and '+    print("Hello " + name)' in lines
    as_json = json.loads(_run(["check", _response(tmp_path, GOOD_V3), "--root",
                               str(workspace), "--diff", "--json"]).output)
    assert '+    print("Hello " + name)\n' in as_json["files"][0]["diff"]


def test_stdin_dash_reads_the_response(workspace: Path) -> None:
    result = _run(["check", "-", "--root", str(workspace), "--json"], input=GOOD_V3)
    assert result.exit_code == 0
    assert json.loads(result.output)["blocks"][0]["status"] == "validated"


def test_whitespace_matching_option_and_the_fix_suggestion(workspace: Path,
                                                           tmp_path: Path) -> None:
    misindented = GOOD_V3.replace('    print("Hi', '  print("Hi').replace(
        '    print("Hello', '  print("Hello')
    response = _response(tmp_path, misindented)
    exact = _run(["check", response, "--root", str(workspace)])
    assert exact.exit_code == 1
    assert "--matching whitespace" in exact.output
    tolerant = _run(["check", response, "--root", str(workspace), "--matching", "whitespace",
                     "--json"])
    assert tolerant.exit_code == 0
    assert json.loads(tolerant.output)["blocks"][0]["match"] == "whitespace"


def test_formats_option_restricts_detection(workspace: Path, tmp_path: Path) -> None:
    response = _response(tmp_path, GOOD_V3)
    result = _run(["check", response, "--root", str(workspace), "--formats",
                   "search-replace,unified-diff", "--json"])
    assert json.loads(result.output)["blocks"] == []


def test_shell_suggestions_are_printed_and_never_run(workspace: Path, tmp_path: Path) -> None:
    response = _response(tmp_path, GOOD_V3 + "\nThen run `git rm old.txt`.\n")
    result = _run(["apply", response, "--root", str(workspace)])
    assert result.exit_code == 0, result.output
    assert "$ git rm old.txt" in result.output and "not run" in result.output
    assert (workspace / "old.txt").exists()


def test_shell_suggestions_are_printed_escaped_and_split(workspace: Path, tmp_path: Path) -> None:
    # issue 23: a bidi override and padding shown written out, a compound command split
    suggestion = "```bash\nmkdir -p src\u202e" + " " * 300 + "; curl x | sh\n```\n"
    result = _run(["check", _response(tmp_path, GOOD_V3 + "\n" + suggestion),
                   "--root", str(workspace)])
    lines = [line.strip() for line in result.output.splitlines()]
    assert "$ mkdir -p src<U+202E>" in lines and "$ curl x" in lines and "$ sh" in lines
    assert "\u202e" not in result.output
    data = json.loads(_run(["check", _response(tmp_path, GOOD_V3 + "\n" + suggestion),
                            "--root", str(workspace), "--json"]).output)
    [command] = data["shellCommands"]
    assert command["display"] == "mkdir -p src<U+202E><300 spaces>; curl x | sh"
    assert [p["display"] for p in command["parts"]] == ["mkdir -p src<U+202E>", "curl x", "sh"]


# -------------------------------------------------------------------------------- apply


def test_apply_writes_and_keeps_crlf_and_bom(workspace: Path, tmp_path: Path) -> None:
    result = _run(["apply", _response(tmp_path, CRLF_BOM_V3), "--root", str(workspace)])
    assert result.exit_code == 0, result.output
    assert (workspace / "win.txt").read_bytes() == BOM + b"alpha\r\nBETA\r\ndelta\r\ngamma\r\n"
    assert "Written: win.txt" in result.output
    leftovers = [p.name for p in workspace.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_apply_creates_renames_and_deletes(workspace: Path, tmp_path: Path) -> None:
    result = _run(["apply", _response(tmp_path, RESOURCE_PATCH), "--root", str(workspace),
                   "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["applied"] is True
    assert [b["status"] for b in data["blocks"]] == ["applied"] * 3
    assert (workspace / "docs/new.md").read_text() == "# New\n"
    assert not (workspace / "old.txt").exists()
    assert not (workspace / "src/app.py").exists()
    assert (workspace / "src/main.py").read_text() == APP.replace('"Bye"', '"Goodbye"')
    kinds = {f["path"]: f["kind"] for f in data["files"]}
    assert kinds == {"docs/new.md": "create", "old.txt": "delete", "src/app.py": "rename"}


def test_apply_goes_on_with_other_files_after_a_failure(workspace: Path, tmp_path: Path) -> None:
    before = _snapshot(workspace)
    response = _response(tmp_path, STALE_V3 + "\n" + GOOD_V3 + "\n" + CRLF_BOM_V3)
    result = _run(["apply", response, "--root", str(workspace), "--json"])
    assert result.exit_code == 1
    statuses = [b["status"] for b in json.loads(result.output)["blocks"]]
    assert statuses == ["failed", "skipped", "applied"]
    assert (workspace / "src/app.py").read_bytes() == before["src/app.py"]
    assert (workspace / "win.txt").read_bytes() != before["win.txt"]


def test_apply_atomic_writes_nothing_when_a_block_fails(workspace: Path, tmp_path: Path) -> None:
    before = _snapshot(workspace)
    response = _response(tmp_path, CRLF_BOM_V3 + "\n" + STALE_V3)
    result = _run(["apply", response, "--root", str(workspace), "--atomic", "--json"])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert [b["status"] for b in data["blocks"]] == ["validated", "failed"]
    assert data["applied"] is False
    assert _snapshot(workspace) == before


def test_apply_feedback_file_describes_the_failure(workspace: Path, tmp_path: Path) -> None:
    feedback_path = tmp_path / "feedback.txt"
    response = _response(tmp_path, CRLF_BOM_V3 + "\n" + STALE_V3)
    result = _run(["apply", response, "--root", str(workspace), "--feedback-file",
                   str(feedback_path)])
    assert result.exit_code == 1
    text = feedback_path.read_text()
    assert "Block 2: src/app.py" in text
    assert '1 | def greet(name):' in text  # the real line, numbered from 1
    assert "block 1: win.txt" in text.split("## Applied")[1]


def test_apply_keeps_permissions_and_a_missing_final_newline(workspace: Path,
                                                             tmp_path: Path) -> None:
    script = workspace / "run.sh"
    script.write_bytes(b"#!/bin/sh\necho hi")  # no final newline
    script.chmod(0o755)
    response = ("run.sh\n««« EDIT\n#!/bin/sh\necho hi\n═══════ REPL\n#!/bin/sh\necho hello\n"
                "»»» EDIT END\n")
    result = _run(["apply", _response(tmp_path, response), "--root", str(workspace)])
    assert result.exit_code == 0, result.output
    assert script.read_bytes() == b"#!/bin/sh\necho hello"
    assert script.stat().st_mode & 0o777 == 0o755


def test_a_path_outside_the_root_fails_and_nothing_is_written(workspace: Path,
                                                              tmp_path: Path) -> None:
    response = "../escape.txt\n««« EDIT\n═══════ REPL\nowned\n»»» EDIT END\n"
    result = _run(["apply", _response(tmp_path, response), "--root", str(workspace),
                   "--json"])
    assert result.exit_code == 1
    block = json.loads(result.output)["blocks"][0]
    assert block["status"] == "failed" and "outside" in block["reason"]
    assert not (workspace.parent / "escape.txt").exists()


def test_several_roots(workspace: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "lib.txt").write_text("x = 1\n")
    response = GOOD_V3 + "\nlib.txt\n««« EDIT\nx = 1\n═══════ REPL\nx = 2\n»»» EDIT END\n"
    result = _run(["apply", _response(tmp_path, response), "--root", str(workspace),
                   "--root", str(other)])
    assert result.exit_code == 0, result.output
    assert (other / "lib.txt").read_text() == "x = 2\n"
    assert 'print("Hello " + name)' in (workspace / "src/app.py").read_text()


# -------------------------------------------------------------------- parse / feedback / …


def test_parse_json_gives_the_contract_parse_output(tmp_path: Path) -> None:
    response = _response(tmp_path, GOOD_V3 + "\n" + RESOURCE_PATCH)
    data = json.loads(_run(["parse", response, "--json"]).output)
    first = data["blocks"][0]
    assert first == {
        "index": 0, "file": "src/app.py", "format": "edit-v3", "op": "update",
        "responseLine": 2, "anchor": "def greet(name):\n",
        "old": '    print("Hi " + name)\n', "new": '    print("Hello " + name)\n',
        "trailing": "",
    }
    ops = [(b["format"], b["op"], b["file"]) for b in data["blocks"][1:]]
    assert ops == [("apply-patch", "create", "docs/new.md"),
                   ("apply-patch", "delete", "old.txt"),
                   ("apply-patch", "update", "src/app.py")]
    move = data["blocks"][3]
    assert move["moveTo"] == "src/main.py"
    assert move["hunks"][0]["old"] == 'def farewell(name):\n    print("Bye")\n'
    assert data["warnings"] == []


def test_parse_table_lists_the_blocks(tmp_path: Path) -> None:
    result = _run(["parse", _response(tmp_path, RESOURCE_PATCH)])
    assert result.exit_code == 0
    assert "src/app.py → src/main.py" in result.output
    assert "apply-patch" in result.output


def test_feedback_command_prints_the_retry_text(workspace: Path, tmp_path: Path) -> None:
    result = _run(["feedback", _response(tmp_path, STALE_V3), "--root", str(workspace)])
    assert result.exit_code == 1
    assert "Reason:" in result.output and "src/app.py" in result.output
    assert '> 1 | def greet(name):' in result.output
    ok = _run(["feedback", _response(tmp_path, GOOD_V3), "--root", str(workspace), "--json"])
    assert ok.exit_code == 0
    assert "nothing to correct" in json.loads(ok.output)["text"]


def test_instructions_command(tmp_path: Path) -> None:
    one = _run(["instructions", "apply-patch"])
    assert one.exit_code == 0 and "*** Begin Patch" in one.output
    assert "## Format `edit-v3`" not in one.output
    data = json.loads(_run(["instructions", "--json"]).output)
    assert data["formats"] == list(TAUGHT_FORMAT_NAMES) and data["formats"][0] == "edit-v3"
    assert "## Format `unified-diff`" in data["text"]
    bad = _run(["instructions", "markdown"])
    assert bad.exit_code == 2
    # Agents' tool-call formats have nothing to teach: their tools define them.
    assert "str-replace" not in data["formats"]
    assert _run(["instructions", "str-replace"]).exit_code == 2


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize("args, message", [
    (["check", "missing.md"], "cannot read 'missing.md'"),
    (["check", "."], "cannot read '.'"),
    (["check", "-", "--root", "no/such/dir"], "does not exist"),
    (["check", "-", "--matching", "fuzzy"], "'fuzzy' is not one of"),
    (["check", "-", "--formats", "edit-v3,markdown"], "unknown format(s) markdown"),
    (["apply", "-", "--formats", ","], "unknown format(s) (none given)"),
    (["check"], "Missing argument 'RESPONSE'"),
])
def test_usage_errors_exit_2_without_a_traceback(args: list[str], message: str,
                                                 tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = _run(args, input="")
    assert result.exit_code == 2
    assert message in result.output


def test_root_that_is_a_file_is_refused(tmp_path: Path) -> None:
    a_file = tmp_path / "f.txt"
    a_file.write_text("x\n")
    result = _run(["check", "-", "--root", str(a_file)], input=GOOD_V3)
    assert result.exit_code == 2 and "is a file" in result.output


def test_response_without_blocks(workspace: Path) -> None:
    result = _run(["check", "-", "--root", str(workspace)], input="Just prose, no edits.\n")
    assert result.exit_code == 1 and "No edit blocks found" in result.output  # issue 18
    assert "(looked for: edit-v3, edit-v2, search-replace," in result.output
    result = _run(["check", "-", "--root", str(workspace), "--formats", "unified-diff,edit-v3"],
                  input="Just prose.\n")
    assert result.exit_code == 1
    assert "No edit blocks found (looked for: edit-v3, unified-diff)." in result.output
    malformed = "src/app.py\n««« EDIT\ndef greet(name):\n═══════ REPL\n"  # never closed
    result = _run(["check", "-", "--root", str(workspace)], input=malformed)
    assert result.exit_code == 1 and "Warnings" in result.output


def test_an_internal_error_is_one_line_with_exit_3(workspace: Path, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise RuntimeError("engine exploded")

    # Fault injection: the CLI must report an engine bug briefly, not with a traceback.
    monkeypatch.setattr("lsp_server.session.run.plan_edits", broken)
    monkeypatch.delenv("LLM_EDITS_DEBUG", raising=False)
    result = _run(["check", "-", "--root", str(workspace)], input=GOOD_V3)
    assert result.exit_code == 3
    assert "internal error: RuntimeError: engine exploded" in result.output


# ------------------------------------------------------------------ the example and demo


def test_bundled_example_shows_several_formats_and_an_instructive_failure() -> None:
    examples = PROJECT_ROOT / "examples"
    before = _snapshot(examples / "workspace")
    result = _run(["check", str(examples / "response.md"), "--root",
                   str(examples / "workspace"), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.output)
    rows = [(b["format"], b["file"], b["status"]) for b in data["blocks"]]
    assert rows == [
        ("edit-v3", "src/shop/pricing.py", "validated"),
        ("search-replace", "src/shop/cart.py", "validated"),
        ("edit-v2", "src/shop/cart.py", "failed"),
        ("hunk-patch", "src/shop/cart.py", "skipped"),
        ("unified-diff", "README.md", "validated"),
        ("apply-patch", "src/shop/receipt.py", "validated"),
        ("semantic-diff", "config/settings.toml", "validated"),
    ]
    failed = data["blocks"][2]
    # `def total(self, discount_percent=0):` is line 16 of the file (1-based); block 2 added
    # three lines above it, and block 3 sees the file as block 2 left it: 0-based 18.
    assert failed["line"] == 18
    assert "def total(self, discount_percent=0):" in (failed["hint"] or "")
    assert data["shellSuggestions"] == ["git rm scripts/old_report.sh"]
    assert data["warnings"] == []
    assert _snapshot(examples / "workspace") == before


# ------------------------------------------------------------- the installed console script


def _installed_cli() -> str:
    script = Path(sys.executable).parent / "llm-edits"
    if not script.exists():
        pytest.skip(f"llm-edits console script not installed next to {sys.executable}")
    return str(script)


def test_installed_console_script_end_to_end(workspace: Path, tmp_path: Path) -> None:
    exe = _installed_cli()
    response = _response(tmp_path, CRLF_BOM_V3 + "\n" + GOOD_V3)
    checked = subprocess.run([exe, "check", "-", "--root", str(workspace)], input=GOOD_V3,
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr
    applied = subprocess.run([exe, "apply", response, "--root", str(workspace), "--diff"],
                             capture_output=True, text=True, timeout=60)
    assert applied.returncode == 0, applied.stderr
    assert "+++ b/win.txt" in applied.stdout
    assert (workspace / "win.txt").read_bytes() == BOM + b"alpha\r\nBETA\r\ndelta\r\ngamma\r\n"
    assert 'print("Hello " + name)' in (workspace / "src/app.py").read_text()
    parsed = subprocess.run([exe, "parse", response, "--json"], capture_output=True,
                            text=True, encoding="utf-8", timeout=60)
    assert parsed.returncode == 0, parsed.stderr
    assert [b["file"] for b in json.loads(parsed.stdout)["blocks"]] == ["win.txt", "src/app.py"]
    missing = subprocess.run([exe, "check", str(tmp_path / "nope.md")], capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode == 2
    assert "cannot read" in missing.stderr and "Traceback" not in missing.stderr


def test_python_api_doc_example_runs_and_prints_what_the_doc_shows(tmp_path: Path) -> None:
    import re

    # The page's "Example" section (earlier sections show fragments of a call).
    page = (PROJECT_ROOT / "docs/python-api.md").read_text(encoding="utf-8")
    doc = page.split("\n## Example\n")[1]
    code = re.search(r"^```python\n(.*?)^```$", doc, re.S | re.M).group(1)
    shown = re.search(r"^````text\n(.*?)^````$", doc, re.S | re.M).group(1)
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True, encoding="utf-8", timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == shown


@pytest.mark.parametrize("args, must_not_load", [
    (["--version"], ["lsp_server.parsing", "lsp_server.planning", "rich", "lsprotocol"]),
    (["--help"], ["lsp_server.parsing", "lsp_server.planning", "rich", "lsprotocol"]),
    (["instructions", "edit-v3"], ["lsp_server.planning", "rich", "lsprotocol"]),
    (["parse", "-", "--json"], ["lsp_server.planning", "rich", "lsprotocol"]),
])
def test_start_up_loads_only_what_the_command_needs(args: list[str],
                                                    must_not_load: list[str]) -> None:
    # A shell command pays its imports on every run: the engine and Rich load only in the
    # commands that use them (which modules load is behaviour; no timing is asserted).
    code = (
        "import json, sys\n"
        "from lsp_server.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit:\n"
        "    print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    run = subprocess.run([sys.executable, "-c", code, *args], input="", capture_output=True,
                         text=True, timeout=60, cwd=PROJECT_ROOT)
    loaded = set(json.loads(run.stderr.strip().splitlines()[-1]))
    assert not loaded & set(must_not_load), sorted(loaded & set(must_not_load))


@pytest.mark.parametrize("as_json", [False, True])
def test_paths_with_bidi_or_zero_width_characters_are_shown_escaped(
        tmp_path: Path, as_json: bool) -> None:
    # "a\u202etxt.exe" displays as "aexe.txt"; "a\u200b.txt" as "a.txt".
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a\u200b.txt").write_text("one\n")
    response = ("*** Begin Patch\n*** Add File: a\u202etxt.exe\n+x\n"
                "*** Update File: a\u200b.txt\n@@\n-one\n+two\n*** End Patch\n"
                "missing\u2067.txt\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n")
    args = ["check", _response(tmp_path, response), "--root", str(root), "--diff"]
    output = _run(args + (["--json"] if as_json else [])).output
    # Whether the engine accepts such paths or refuses them, they are shown escaped.
    assert not {"\u202e", "\u200b", "\u2067"} & set(output), output
    assert "\\u202e" in output and "\\u200b" in output and "\\u2067" in output
    if as_json:  # the JSON strings themselves are exact
        files = [b["file"] for b in json.loads(output)["blocks"]]
        assert files == ["a\u202etxt.exe", "a\u200b.txt", "missing\u2067.txt"]


def test_a_response_applied_twice_is_already_applied_the_second_time(
        workspace: Path, tmp_path: Path) -> None:
    response = _response(tmp_path, GOOD_V3)
    assert _run(["apply", response, "--root", str(workspace)]).exit_code == 0
    again = _run(["apply", response, "--root", str(workspace), "--json"])
    assert again.exit_code == 0, again.output
    data = json.loads(again.output)
    assert [b["status"] for b in data["blocks"]] == ["already-applied"]
    assert data["ok"] is True and data["files"] == [] and data["applied"] is False
    table = _run(["check", response, "--root", str(workspace)])
    assert table.exit_code == 0 and "1 already-applied" in table.output


@pytest.mark.parametrize("command", ["check", "apply"])
def test_a_path_too_long_for_the_file_system_says_so(tmp_path: Path, command: str) -> None:
    # It failed as "File already exists" (the unreadable path counted as existing).
    root = tmp_path / "ws"
    root.mkdir()
    long_name = "x" * 300  # over NAME_MAX (255 bytes) on common file systems
    response = "".join(
        f'edit {json.dumps({"path": path, "op": "create", "diff": "hi"})}\n'
        for path in (f"{long_name}.txt", f"d/{long_name}/y.txt"))
    result = _run([command, _response(tmp_path, response), "--root", str(root), "--json"])
    assert result.exit_code == 1, result.output
    in_root, in_new_directory = json.loads(result.output)["blocks"]
    # A name in a directory still to be made can only fail when it is made (by apply).
    for block in [in_root] + ([in_new_directory] if command == "apply" else []):
        assert block["status"] == "failed"
        assert "File name too long" in block["reason"] and "exists" not in block["reason"]
    assert list(root.iterdir()) == []  # nor the directory "d" left behind


def test_the_written_line_names_only_the_files_written(workspace: Path, tmp_path: Path) -> None:
    # A file that could not be written was listed under "Written:" with the others.
    (workspace / "win.txt").chmod(0o444)
    response = _response(tmp_path, GOOD_V3 + "\n" + CRLF_BOM_V3)
    result = _run(["apply", response, "--root", str(workspace)])
    assert result.exit_code == 1
    assert "Could not write" in result.output and "read-only" in result.output
    written = next(line for line in result.output.splitlines() if line.startswith("Written:"))
    assert written == "Written: src/app.py"


@pytest.mark.parametrize("args", [["check", "--diff"], ["check", "--json", "--diff"],
                                  ["parse"], ["parse", "--json"], ["feedback"]])
def test_a_lone_surrogate_in_a_block_is_shown_escaped(tmp_path: Path, args: list[str]) -> None:
    # A hunk-patch call's JSON can spell "\ud800": printing it raw raised UnicodeEncodeError
    # (an internal error, exit 3) in the diff, parse's output and the feedback.
    (tmp_path / "f.txt").write_text("a\nb\n")
    response = _response(tmp_path, 'edit {"path":"f.txt","op":"update",'
                                   '"diff":"@@\\n a\\n-b\\n+B\\ud800\\n"}\n')
    roots = [] if args[0] == "parse" else ["--root", str(tmp_path)]
    run = subprocess.run([sys.executable, "-m", "lsp_server.cli", args[0], response, *roots,
                          *args[1:]], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    if args not in (["parse"], ["feedback"]):  # those two do not quote the new text
        assert "\\ud800" in run.stdout
