"""locate.str_replace: an agent's old string as an exact substring, unique unless
replace_all; tolerance, diagnosis and already-applied on the lines it spans."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.locate import BlockFailure, LocateOptions, locate_str_replace
from lsp_server.locate.already_applied import AlreadyApplied
from lsp_server.locate.common import ChosenPlace
from lsp_server.matching import FileMatcher
from lsp_server.model import Block, FileSnapshot, ParseResult, ToolEdit
from lsp_server.parsing.str_replace import str_replace_block
from lsp_server.planning import plan_edits

LINES = ["def f():", "    x = 1", "    return x", "", "def g():", "    x = 1", "    return x"]


def _locate(block: Block, lines: list[str] = LINES, **options: object):
    return locate_str_replace(block, FileMatcher(list(lines)), LocateOptions(**options))


def _edit(old: str, new: str, replace_all: bool = False, **kw: object) -> Block:
    return str_replace_block("m.py", old, new, replace_all, **kw)


def test_a_substring_inside_a_line_rewrites_that_line_only() -> None:
    placement = _locate(_edit("def g", "def h"))
    assert placement == ([(4, 5, ["def h():"])], 4, "exact", None)


def test_lines_the_change_keeps_stay_the_files() -> None:
    placement = _locate(_edit("def g():\n    x = 1\n", "def g():\n    x = 2\n"))
    assert placement.replacements == [(4, 6, [4, "    x = 2"])]


def test_a_string_found_twice_fails_naming_both_lines_and_the_at_fix_picks_one() -> None:
    block = _edit("x = 1", "x = 5")
    with pytest.raises(BlockFailure) as twice:
        _locate(block)
    failure = twice.value
    assert failure.ambiguous and failure.line == 1
    assert "occurs 2 times (lines 2 and 6)" in failure.reason and "replace_all" in failure.reason
    assert failure.fixes["candidateLines"] == [1, 5]
    block.index = 3
    chosen = _locate(block, force_at={3: ChosenPlace(5, 1)})
    assert chosen.replacements == [(5, 6, ["    x = 5"])]
    with pytest.raises(BlockFailure, match="no longer"):  # the places moved since
        _locate(block, ["# new line", *LINES], force_at={3: ChosenPlace(5, 1)})


def test_replace_all_writes_every_occurrence_sharing_lines_as_one_replacement() -> None:
    lines = ["a a", "b", "a"]
    placement = _locate(_edit("a", "c", True), lines)
    assert placement.replacements == [(0, 1, ["c c"]), (2, 3, ["c"])]
    # An occurrence running over a line break joins its lines with the next one's.
    joined = _locate(_edit("a\nb", "z", True), lines)
    assert joined.replacements == [(0, 2, ["a z"])]


def test_an_expected_count_must_be_the_count_found() -> None:
    assert len(_locate(_edit("x = 1", "x = 2", expected=2)).replacements) == 2
    with pytest.raises(BlockFailure, match="expected 3 occurrences of old_string, found 2"):
        _locate(_edit("x = 1", "x = 2", expected=3))


def test_a_new_string_without_its_line_break_joins_the_next_line() -> None:
    placement = _locate(_edit("    return x\n\n", "    return x "), LINES)
    assert placement.replacements == [(2, 5, ["    return x def g():"])]


def test_not_found_is_diagnosed_on_the_lines_it_spans() -> None:
    with pytest.raises(BlockFailure) as missing:
        _locate(_edit("def g():\n    x = 2\n", "def g():\n    x = 3\n"))
    failure = missing.value
    assert failure.reason.startswith("old_string not found in the file")
    assert failure.line == 4 and "x = 1" in (failure.hint or "")
    assert "closestLine" not in failure.fixes  # a substring has no line to be forced to


def test_whitespace_tolerance_is_offered_then_applied_with_the_files_indentation() -> None:
    block = _edit("x = 1\nreturn x", "y = 1\nreturn y")
    lines = ["def f():", "    x = 1", "    return x"]
    with pytest.raises(BlockFailure) as exact:
        _locate(block, lines)
    assert exact.value.fixes == {"matching": "whitespace"} and exact.value.line == 1
    tolerant = _locate(block, lines, tolerant=True)
    assert tolerant.match == "whitespace"
    assert tolerant.replacements == [(1, 3, ["    y = 1", "    return y"])]
    with pytest.raises(BlockFailure, match="matches ignoring whitespace at 2 places"):
        _locate(_edit("x = 1\nreturn x", "y"), LINES, tolerant=True)


def test_already_applied_only_where_kept_lines_pin_the_new_text() -> None:
    applied = ["def f():", "    x = 1", "    return x", "", "def g():", "    x = 7",
               "    return x"]
    pinned = _locate(_edit("def g():\n    x = 1", "def g():\n    x = 7"), applied)
    assert isinstance(pinned, AlreadyApplied) and pinned.line == 4
    # The kept line occurs twice: it does not say where the old text was.
    with pytest.raises(BlockFailure, match="not found"):
        _locate(_edit("a()\nx = 2", "a()\nx = 7"), ["a()", "x = 7", "a()", "x = 1"])
    # One changed line and nothing kept: the new text elsewhere proves nothing.
    with pytest.raises(BlockFailure, match="not found"):
        _locate(_edit("x = 3", "x = 7"), applied)


def test_insert_after_a_one_based_line() -> None:
    top = _insert(0, "# header\n")
    assert _locate(top).replacements == [(0, 0, ["# header"])]
    end = _insert(len(LINES), "tail")
    assert _locate(end).replacements == [(7, 7, ["tail"])]
    with pytest.raises(BlockFailure, match="insert_line 9 is past the end of the file"):
        _locate(_insert(9, "x"))
    assert isinstance(_locate(_insert(3, "# note"), [*LINES[:3], "# note", *LINES[3:]]),
                      AlreadyApplied)


def _insert(after: int, text: str) -> Block:
    block = Block("str-replace", "m.py", new=text.splitlines())
    block.tool = ToolEdit(new_text=text, insert_line=after)
    return block


def test_a_block_without_its_tool_call_is_refused() -> None:
    with pytest.raises(BlockFailure):
        _locate(Block("str-replace", "m.py", old=["x = 1"], new=["x = 2"]))


# ------------------------------------------------------------- through the planner


def _plan(files: dict[str, bytes], *blocks: Block, matching: str = "exact"):
    root = Path("/ws")

    def read(path: Path) -> FileSnapshot:
        data = files.get(path.relative_to(root).as_posix())
        return FileSnapshot(None if data is None else data.decode("utf-8"))

    for i, block in enumerate(blocks):
        block.index = i
    return plan_edits(ParseResult(blocks=list(blocks)), read, [root], matching=matching)


def test_crlf_bom_and_a_missing_final_newline_are_kept() -> None:
    text = "\ufeffalpha\r\nbeta\r\ngamma"
    result = _plan({"w.txt": text.encode()},
                   str_replace_block("w.txt", "beta\ngam", "BETA\nGAM"),
                   str_replace_block("w.txt", "alpha\n", "alpha\nfirst\n"))
    assert [b.status for b in result.blocks] == ["validated", "validated"]
    [edit] = result.changes
    assert edit.has_bom and edit.new_text == "alpha\r\nfirst\r\nBETA\r\nGAMma"


def test_create_never_clobbers_and_fills_an_empty_file() -> None:
    result = _plan({"a.py": b"x = 1\n", "empty.py": b""},
                   str_replace_block("a.py", "", "y = 2\n"),
                   str_replace_block("empty.py", "", "z = 3"))
    assert [(b.status, b.reason) for b in result.blocks] == [
        ("failed", "File already exists"), ("validated", None)]
    assert result.changes[-1].new_text == "z = 3\n"


def test_later_edits_see_earlier_ones_and_a_failure_skips_the_rest_of_its_file() -> None:
    result = _plan({"a.py": b"a = 1\nb = 2\n"},
                   str_replace_block("a.py", "a = 1", "a = 10"),
                   str_replace_block("a.py", "a = 10\nb", "a = 11\nb"),
                   str_replace_block("a.py", "nope", "x"),
                   str_replace_block("a.py", "b = 2", "b = 3"))
    assert [b.status for b in result.blocks] == ["validated", "validated", "failed", "skipped"]
