"""removed_lines: the one rule refusing a whole file that removes most of a file's lines,
applied by the whole-file policy and the code-block merge alike."""

from __future__ import annotations

import pytest

from lsp_server.locate import BlockFailure, LocateOptions, locate_whole_file
from lsp_server.matching import FileMatcher
from lsp_server.merge import MergeFailure, MergeRequest, merge_code_block
from lsp_server.model import Block
from lsp_server.removed_lines import non_blank, removed_non_blank, removes_most_of


def test_non_blank_lines_are_stripped_and_blank_ones_dropped() -> None:
    assert non_blank(["  a ", "", " \t", "b"]) == ["a", "b"]


def test_removes_most_of_counts_lines_ignoring_surrounding_whitespace() -> None:
    old = ["a", "b", "", "c", "  d"]
    assert removes_most_of(old, ["  a", "b\t", "x", "y"]) is None  # c and d removed: 2 of 4
    assert removes_most_of(old, ["a", "x", "y", "z"]) == (3, 4)
    assert removes_most_of(["a", "a", "a"], ["a"]) == (2, 3)  # copies count
    assert removes_most_of(["", " "], []) is None  # nothing to remove
    assert removes_most_of(["d", "c", "b", "a"], ["a", "b", "c", "d"]) is None  # moved


def test_removed_non_blank_says_how_many_of_how_many() -> None:
    assert removed_non_blank(["a", "b", "", "b"], ["b", "new"]) == (2, 3)
    assert removed_non_blank([], ["x"]) == (0, 0)


def test_the_whole_file_policy_and_the_code_block_merge_refuse_the_same_text() -> None:
    file = [f"line_{i} = {i}" for i in range(10)]
    half = [file[0], *file[1:5], file[-1]]  # 4 of 10 removed: not most
    assert removes_most_of(file, half) is None
    ends = [file[0], file[-1]]  # the first and last lines (the merge's "whole file"), 8 removed
    assert removes_most_of(file, ends) == (8, 10)
    with pytest.raises(BlockFailure, match="remove 8 of the file's 10 non-blank lines"):
        locate_whole_file(Block(format="whole-file", file="a.py", new=ends),
                          FileMatcher(file), LocateOptions())
    merged = merge_code_block(MergeRequest(file, ends, "a.py"))
    assert isinstance(merged, MergeFailure) and merged.kind == "looks-partial"
    assert "remove 8 of the file's 10 non-blank lines" in merged.reason
    assert merge_code_block(MergeRequest(file, half, "a.py")).kind == "whole"
