"""did_you_mean: where a failed block's lines first differ from the file's, and the hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.did_you_mean import (
    Difference,
    changed_line_hint,
    difference_hint,
    first_difference,
)
from lsp_server.model import Block, FileSnapshot, Hunk, ParseResult
from lsp_server.planning import plan_edits

FILE = [
    "def greet(name):",
    '    """Say hello."""',
    "    prefix = 'Hello, '",
    "    return prefix + name",
    "",
    "def add(a, b):",
    "    return a + b",
]


def test_a_changed_line_is_shown_cut_around_the_column_with_a_caret() -> None:
    hint = changed_line_hint("    return prefix + name", "    return prefix - name", 3, 2)
    assert hint == (
        "did you mean line 4? The block's line 3 differs from it at column 19:\n"
        "  file:  '    return prefix + name'\n"
        "  block: '    return prefix - name'\n"
        "                            ^")


def test_a_late_difference_in_a_long_line_stays_visible() -> None:
    head = "x = call(" + "argument, " * 20
    hint = changed_line_hint(head + "last=1)", head + "last=2)", 0, 0)
    file_row, block_row, caret_row = hint.splitlines()[1:]
    assert file_row.startswith("  file:  '…") and file_row.endswith("last=1)'")
    assert block_row.endswith("last=2)'")
    assert caret_row.index("^") == file_row.index("last=1") + len("last=")
    assert f"column {len(head) + len('last=') + 1}:" in hint


def test_invisible_differences_are_escaped_and_the_caret_still_lines_up() -> None:
    hint = changed_line_hint("\tx = 1", "    x = 1", 0, 0)
    assert "'\\tx = 1'" in hint and "at column 1:" in hint
    hint = changed_line_hint("a\tb = 1", "a\tb = 2", 0, 0)
    rows = hint.splitlines()
    assert rows[1] == "  file:  'a\\tb = 1'" and rows[3].index("^") == rows[1].index("1")


def test_one_line_a_prefix_of_the_other_differs_where_the_shorter_ends() -> None:
    hint = changed_line_hint("return x", "return x + 1", 0, 0)
    assert "at column 9:" in hint and hint.splitlines()[3].index("^") == len("  file:  'return x")


def test_a_left_out_middle_line_is_named_not_the_blocks_first_line() -> None:
    needle = [FILE[0], FILE[2], FILE[3]]  # leaves out the docstring
    # The best window, by majority, starts one line late (line 1): line 0 of the block
    # would be blamed there although it is correct in the file.
    assert first_difference(FILE, needle, 1) == Difference("missing", 1, 1)
    assert difference_hint(FILE, needle, 1, Difference("missing", 1, 1)) == (
        "the block leaves out line 2 of the file, '    \"\"\"Say hello.\"\"\"', which comes "
        "after the block's line 1")


def test_an_extra_block_line_and_a_changed_later_line() -> None:
    extra = [FILE[0], FILE[1], "    # note", FILE[2]]
    difference = first_difference(FILE, extra, 0)
    assert difference == Difference("extra", 2, 2)
    assert difference_hint(FILE, extra, 0, difference) == (
        "the block's line 3, '    # note', is not in the file between lines 2 and 3")
    changed = [FILE[1], FILE[2], "    return prefix + nom"]
    assert first_difference(FILE, changed, 1) == Difference("changed", 3, 2)


def test_changed_first_lines_pair_with_the_file_lines_just_before_the_match() -> None:
    needle = ["def greet(nom):", FILE[1], FILE[2]]
    assert first_difference(FILE, needle, 0) == Difference("changed", 0, 0)


def test_without_a_line_in_common_lines_compare_from_the_window_start() -> None:
    assert first_difference(FILE, ["def add(a, c):", "    return a + c"], 5) == Difference(
        "changed", 5, 0)
    assert first_difference(["a", ""], ["", ""], 1) == Difference("past-end", 2, 1)
    # A line in common aligns instead: the block's next line is not in the file.
    assert first_difference(FILE, ["    return a + b", "more"], 6) == Difference(
        "extra", 7, 1)
    assert difference_hint(FILE, ["x", "y"], 6, Difference("past-end", 7, 1)) == (
        "the closest match starts at line 7 but runs past the file's end")


def _plan_hint(block: Block) -> str | None:
    text = "\n".join(FILE) + "\n"
    result = plan_edits(ParseResult(blocks=[block]), lambda _p: FileSnapshot(text=text),
                        [Path("/ws")])
    (failed,) = result.blocks
    assert failed.status == "failed"
    return failed.hint


@pytest.mark.parametrize("block", [
    Block(format="edit-v3", file="a.py", anchor=[FILE[0]], old=[FILE[2], FILE[3]],
          new=["    return 'Hi ' + name"]),
    Block(format="apply-patch", file="a.py", hunks=[Hunk(header="", lines=[
        (" ", FILE[0]), ("-", FILE[2]), ("-", FILE[3]), ("+", "    return 'Hi ' + name")])]),
    Block(format="unified-diff", file="a.py", hunks=[Hunk(header="-1,3 +1,2", old_start=1,
          lines=[(" ", FILE[0]), ("-", FILE[2]), ("-", FILE[3]),
                 ("+", "    return 'Hi ' + name")])]),
])
def test_every_format_names_the_left_out_line(block: Block) -> None:
    assert _plan_hint(block) == (
        "the block leaves out line 2 of the file, '    \"\"\"Say hello.\"\"\"', which comes "
        "after the block's line 1")
