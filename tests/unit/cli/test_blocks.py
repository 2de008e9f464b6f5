"""``llm-edits check/apply --blocks``: only some blocks run, the others are excluded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lsp_server.cli import cli

RESPONSE = """src/a.py
««« EDIT
one
═══════ REPL
ONE
»»» EDIT END

src/a.py
««« EDIT
ONE
two
═══════ REPL
ONE
TWO
»»» EDIT END

src/b.py
««« EDIT
x
═══════ REPL
X
»»» EDIT END
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("one\ntwo\n")
    (tmp_path / "src" / "b.py").write_text("x\n")
    (tmp_path / "response.md").write_text(RESPONSE)
    return tmp_path


def _run(project: Path, *args: str):
    return CliRunner().invoke(cli, [*args, str(project / "response.md"), "--root",
                                    str(project)])


def test_apply_writes_only_the_selected_blocks(project: Path) -> None:
    result = _run(project, "apply", "--blocks", "1,3", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [b["status"] for b in report["blocks"]] == ["applied", "excluded", "applied"]
    assert (project / "src" / "a.py").read_text() == "ONE\ntwo\n"
    assert (project / "src" / "b.py").read_text() == "X\n"


def test_check_with_a_range_shows_excluded_blocks_in_the_table(project: Path) -> None:
    result = _run(project, "check", "--blocks", "2-3")
    assert result.exit_code == 1  # block 2 needed block 1, which did not run
    rows = [line for line in result.output.splitlines() if "│" in line]
    assert "excluded" in rows[0] and "failed" in rows[1] and "validated" in rows[2]
    assert "1 excluded, 1 failed, 1 validated" in result.output
    assert (project / "src" / "a.py").read_text() == "one\ntwo\n"


@pytest.mark.parametrize(("blocks", "message"), [
    ("4", "there is no block 4: the response has 3 blocks (valid: 1-3)"),
    ("0", "'0': blocks are numbered from 1"),
    ("1,x", "'x' is not a block number or a range like 3-5"),
    ("2,1-2", "block 2 is named twice"),
    ("", "no block numbers given (e.g. --blocks 1,3-5)"),
])
@pytest.mark.parametrize("command", ["check", "apply"])
def test_a_bad_block_list_is_one_line_and_exit_2(project: Path, command: str, blocks: str,
                                                 message: str) -> None:
    result = _run(project, command, "--blocks", blocks)
    assert result.exit_code == 2
    assert result.output == f"llm-edits: --blocks: {message}\n"
    assert (project / "src" / "a.py").read_text() == "one\ntwo\n"
