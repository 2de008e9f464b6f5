"""Which blocks a run plans (options.blocks, --blocks) and the excluded results of the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.feedback import build_feedback, without_excluded
from lsp_server.model import FileSnapshot
from lsp_server.parsing import parse_response
from lsp_server.planning import plan_edits
from lsp_server.session.options import CLI, PROTOCOL, checked_block_list
from lsp_server.session.selection import check_in_range, parse_block_ranges, with_excluded

RESPONSE = """a.py
««« EDIT
one
═══════ REPL
ONE
»»» EDIT END

a.py
««« EDIT
ONE
═══════ REPL
1
»»» EDIT END

b.py
««« EDIT
x
═══════ REPL
X
»»» EDIT END
"""


def _plan(tmp_path: Path, selected: tuple[int, ...]):
    files = {tmp_path / "a.py": "one\n", tmp_path / "b.py": "x\n"}
    parsed = parse_response(RESPONSE)
    plan = plan_edits(parsed, lambda p: FileSnapshot(files.get(p)), [tmp_path],
                      only=set(selected))
    return with_excluded(plan, parsed, selected)


def test_excluded_blocks_are_reported_in_response_order(tmp_path: Path) -> None:
    plan = _plan(tmp_path, (2, 0))
    assert [(b.index, b.status) for b in plan.blocks] == [
        (0, "validated"), (1, "excluded"), (2, "validated")]
    excluded = plan.blocks[1]
    assert (excluded.file, excluded.line, excluded.path, excluded.response_line) == (
        "a.py", None, None, 7)
    assert plan.ok


def test_a_block_depending_on_an_excluded_one_fails(tmp_path: Path) -> None:
    plan = _plan(tmp_path, (1,))
    assert [b.status for b in plan.blocks] == ["excluded", "failed", "excluded"]
    assert plan.changes == []


def test_feedback_leaves_excluded_blocks_out(tmp_path: Path) -> None:
    text = build_feedback(_plan(tmp_path, (1, 2)))
    assert "### Block 2: a.py" in text
    assert "block 1:" not in text and "block 3: b.py" in text
    assert build_feedback(_plan(tmp_path, ())) == (
        "No block was selected to run, so nothing was changed.\n")
    kept, nothing = without_excluded(_plan(tmp_path, (0,)))
    assert [b.index for b in kept.blocks] == [0] and not nothing


@pytest.mark.parametrize(("value", "message"), [
    ({}, "must be a list of block indices, got dict"),
    ([0, "1"], "options.blocks[1] must be an integer block index, got '1'"),
    ([0, False], "options.blocks[1] must be an integer block index, got False"),
    ([2, -3], "options.blocks[1] is negative (-3)"),
    ([4, 2, 4], "options.blocks[2] repeats block index 4"),
])
def test_bad_lists_name_the_entry(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")
                       .replace(")", r"\)")):
        checked_block_list(value)


def test_lists_and_options() -> None:
    assert checked_block_list([3, 0]) == (3, 0)
    assert checked_block_list([]) == ()


def test_range_is_checked_against_the_response() -> None:
    check_in_range((0, 2), 3, PROTOCOL)
    with pytest.raises(ValueError, match=r"^options.blocks: there is no block 3: the response "
                                         r"has 3 blocks \(valid: 0-2\)"):
        check_in_range((3,), 3, PROTOCOL)
    with pytest.raises(ValueError, match=r"^--blocks: there is no block 4: the response has 3 "
                                         r"blocks \(valid: 1-3\)"):
        check_in_range((3,), 3, CLI)
    with pytest.raises(ValueError, match=r"has 0 blocks \(valid: none\)"):
        check_in_range((0,), 0, PROTOCOL)


@pytest.mark.parametrize(("text", "indices"), [
    ("1", (0,)), ("1,3-5", (0, 2, 3, 4)), (" 2 , 1 ", (1, 0)), ("4-4", (3,)),
])
def test_cli_ranges(text: str, indices: tuple[int, ...]) -> None:
    assert parse_block_ranges(text) == indices


@pytest.mark.parametrize(("text", "message"), [
    ("", "no block numbers given"), ("1,", "'' is not a block number"),
    ("0", "numbered from 1"), ("a-b", "'a-b' is not a block number"),
    ("5-3", "lower number to the higher"), ("1,2,1-3", "block 1 is named twice"),
    ("-1", "'-1' is not a block number"),
])
def test_bad_cli_ranges(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_block_ranges(text)
