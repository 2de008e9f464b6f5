"""locate.already_applied: a block whose new text is already where its old text would be."""

from __future__ import annotations

import pytest

from lsp_server.locate import (
    BlockFailure,
    LocateOptions,
    locate_apply_patch,
    locate_hunk_patch,
    locate_line_block,
    locate_semantic_block,
    locate_unified_diff,
)
from lsp_server.locate.already_applied import (
    AlreadyApplied,
    appended_already,
    created_already,
    locate_or_already_applied,
    undone,
)
from lsp_server.matching import FileMatcher
from lsp_server.model import Block, Hunk

# The file after `return a + b` became `return a * b`.
DONE = ["def add(a, b):", "    return a * b", "", "def sub(a, b):", "    return a - b"]


def _line_block(**kw) -> Block:
    return Block(format=kw.pop("format", "edit-v3"), file="m.py", **kw)


def _hunks(fmt: str, *hunks: Hunk) -> Block:
    return Block(format=fmt, file="m.py", hunks=list(hunks))


def _locate(policy, block: Block, lines: list[str], tolerant: bool = False):
    return locate_or_already_applied(policy, block, FileMatcher(lines), LocateOptions(tolerant))


def test_a_replacement_whose_new_text_is_in_place_is_already_applied() -> None:
    block = _line_block(anchor=["def add(a, b):"], old=["    return a + b"],
                        new=["    return a * b"])
    placement = _locate(locate_line_block, block, DONE)
    assert isinstance(placement, AlreadyApplied)
    assert placement == ([], 0, "exact", None)


def test_a_block_found_nowhere_either_way_keeps_its_own_failure() -> None:
    block = _line_block(old=["    return a / b"], new=["    return a // b"])
    with pytest.raises(BlockFailure, match="Old lines not found in file"):
        _locate(locate_line_block, block, DONE)


def test_old_text_found_twice_is_ambiguous_even_if_the_new_text_is_there() -> None:
    lines = ["x = 1", "y = 2", "x = 1", "x = 2"]
    with pytest.raises(BlockFailure, match="ambiguous"):
        _locate(locate_line_block, _line_block(old=["x = 1"], new=["x = 2"]), lines)


def test_new_text_found_twice_is_not_already_applied() -> None:
    lines = ["x = 2", "y = 2", "x = 2"]
    with pytest.raises(BlockFailure, match="Old lines not found"):
        _locate(locate_line_block, _line_block(old=["x = 1"], new=["x = 2"]), lines)


def test_a_deletion_is_already_applied_only_when_kept_lines_pin_both_sides() -> None:
    lines = ["a = 1", "c = 3"]
    pinned = _line_block(anchor=["a = 1"], old=["b = 2"], new=[], trailing=["c = 3"])
    assert isinstance(_locate(locate_line_block, pinned, lines), AlreadyApplied)
    kept_around = _line_block(old=["a = 1", "b = 2", "c = 3"], new=["a = 1", "c = 3"])
    assert isinstance(_locate(locate_line_block, kept_around, lines), AlreadyApplied)
    # Only an anchor above: `b = 2` may just be misquoted, so the block fails.
    one_side = _line_block(anchor=["a = 1"], old=["b = 2"], new=[])
    with pytest.raises(BlockFailure):
        _locate(locate_line_block, one_side, lines)
    assert undone(one_side) is None


def test_blank_new_text_shows_nothing_unless_pinned() -> None:
    assert undone(_line_block(old=["x = 1"], new=[""])) is None
    assert undone(_line_block(anchor=["a"], old=["x"], new=[""], trailing=["b"])) is not None


def test_a_block_without_change_or_without_anything_to_find_is_never_undone() -> None:
    assert undone(_line_block(old=["x"], new=["x"])) is None
    assert undone(_line_block(new=["x"])) is None


def test_a_pure_insertion_is_already_applied_when_its_lines_follow_its_anchor() -> None:
    block = _line_block(anchor=["def add(a, b):"], new=['    """Add."""'])
    placement = _locate(locate_line_block, block, ["def add(a, b):", "    return a + b"])
    assert not isinstance(placement, AlreadyApplied)
    assert placement.replacements == [(0, 1, [0, '    """Add."""'])]
    again = _locate(locate_line_block, block,
                    ["def add(a, b):", '    """Add."""', "    return a + b"])
    assert again == ([], 0, "exact", None) and isinstance(again, AlreadyApplied)


def test_an_insertion_above_a_trailing_anchor_looks_above_it() -> None:
    block = _line_block(new=["import sys"], trailing=["import os"])
    assert isinstance(_locate(locate_line_block, block, ["import sys", "import os"]),
                      AlreadyApplied)
    assert not isinstance(_locate(locate_line_block, block, ["import os", "import sys"]),
                          AlreadyApplied)


def test_an_insertion_between_two_anchors_applies_while_they_are_adjacent() -> None:
    block = _line_block(anchor=["a"], new=["b"], trailing=["c"])
    assert not isinstance(_locate(locate_line_block, block, ["a", "c", "b"]), AlreadyApplied)
    assert isinstance(_locate(locate_line_block, block, ["a", "b", "c"]), AlreadyApplied)


def test_a_blank_insertion_is_inserted_again() -> None:
    block = _line_block(anchor=["a"], new=[""])
    assert not isinstance(_locate(locate_line_block, block, ["a", "", "b"]), AlreadyApplied)


def test_semantic_diff_finds_its_new_text_ignoring_whitespace() -> None:
    block = _line_block(format="semantic-diff", old=["def add(a, b):", "return a + b"],
                        new=["def add(a, b):", "return a * b"])
    placement = _locate(locate_semantic_block, block, DONE)
    assert isinstance(placement, AlreadyApplied) and placement.line == 0
    assert placement.match == "whitespace"


def test_exact_mode_does_not_take_new_text_found_only_ignoring_whitespace() -> None:
    block = _line_block(old=["def add(a, b):", "return a + b"],
                        new=["def add(a, b):", "return a * b"])
    with pytest.raises(BlockFailure):
        _locate(locate_line_block, block, DONE)
    assert isinstance(_locate(locate_line_block, block, DONE, tolerant=True), AlreadyApplied)


def test_apply_patch_hunks_already_applied() -> None:
    hunk = Hunk(header="def add(a, b):", anchor="def add(a, b):",
                lines=[("-", "    return a + b"), ("+", "    return a * b")])
    placement = _locate(locate_apply_patch, _hunks("apply-patch", hunk), DONE)
    assert isinstance(placement, AlreadyApplied) and placement.line == 0
    appended = Hunk(header="", lines=[("+", "# end")])
    block = _hunks("apply-patch", appended)
    assert not isinstance(_locate(locate_apply_patch, block, DONE), AlreadyApplied)
    assert isinstance(_locate(locate_apply_patch, block, [*DONE, "# end"]), AlreadyApplied)


def test_hunk_patch_and_unified_diff_hunks_already_applied() -> None:
    hunk = Hunk(header="", lines=[(" ", "def sub(a, b):"), ("-", "    return b - a"),
                                  ("+", "    return a - b")])
    assert _locate(locate_hunk_patch, _hunks("hunk-patch", hunk), DONE) == ([], 3, "exact", None)
    diff = Hunk(header="-1,2 +3,2", old_start=1, lines=hunk.lines)
    placement = _locate(locate_unified_diff, _hunks("unified-diff", diff), DONE)
    assert isinstance(placement, AlreadyApplied) and placement.line == 3
    assert placement.offset == 1  # from the new side's start line (3), 1-based: line 4


def test_a_block_only_partly_applied_fails() -> None:
    done = Hunk(header="", lines=[("-", "    return a + b"), ("+", "    return a * b")])
    pending = Hunk(header="", lines=[("-", "    return a - b"), ("+", "    return b - a")])
    block = _hunks("hunk-patch", done, pending)
    with pytest.raises(BlockFailure, match="hunk 1 of 2"):
        _locate(locate_hunk_patch, block, DONE)


def test_a_removed_line_without_context_on_both_sides_cannot_show_it_was_applied() -> None:
    assert undone(_hunks("apply-patch", Hunk(header="", lines=[("-", "x")]))) is None
    assert undone(_hunks("apply-patch", Hunk(header="", lines=[(" ", "a"), ("-", "x")]))) is None
    pinned = undone(_hunks("apply-patch", Hunk(header="", lines=[(" ", "a"), ("-", "x"),
                                                                (" ", "b")])))
    assert pinned is not None and pinned.hunks is not None
    assert pinned.hunks[0].lines == [(" ", "a"), ("+", "x"), (" ", "b")]


def test_creates_and_appends_whose_text_is_there() -> None:
    assert created_already(["a", "b"], ["a", "b"]) == ([], 0, "exact", None)
    assert created_already(["a"], ["a", "b"]) is None
    assert created_already([], []) is None
    assert appended_already(["b"], ["a", "b"]) == ([], 1, "exact", None)
    assert appended_already(["a"], ["a", "b"]) is None
    assert appended_already([""], ["a", ""]) is None  # blank lines show nothing
    assert appended_already(["a", "b", "c"], ["b", "c"]) is None


# The case: the block's SEARCH text is nowhere (the file has 45), its REPLACE text
# is in another function. Its new text is not where its old text would have been.
TIMEOUTS = ["def connect():", "    timeout = 45", "", "def retry():", "    timeout = 60"]


def test_new_text_found_away_from_the_block_is_not_already_applied() -> None:
    block = _line_block(format="search-replace", old=["    timeout = 30"],
                        new=["    timeout = 60"])
    with pytest.raises(BlockFailure, match="Old lines not found"):
        _locate(locate_line_block, block, TIMEOUTS)


def test_kept_lines_that_fit_many_places_do_not_place_the_new_text() -> None:
    lines = ["def a():", "    x = 1", "}", "def b():", "    x = 2", "}"]
    block = _line_block(old=["    x = 3", "}"], new=["    x = 2", "}"])
    with pytest.raises(BlockFailure, match="Old lines not found"):
        _locate(locate_line_block, block, lines)
    placed = _line_block(old=["def b():", "    x = 3"], new=["def b():", "    x = 2"])
    assert isinstance(_locate(locate_line_block, placed, lines), AlreadyApplied)


def test_a_hunk_under_its_anchor_is_already_applied_only_right_below_it() -> None:
    hunk = Hunk(header="def connect():", anchor="def connect():",
                lines=[("-", "    timeout = 30"), ("+", "    timeout = 60")])
    for policy, fmt in ((locate_apply_patch, "apply-patch"), (locate_hunk_patch, "hunk-patch")):
        with pytest.raises(BlockFailure):
            _locate(policy, _hunks(fmt, hunk), TIMEOUTS)
        done = ["def connect():", "    timeout = 60", "", "def retry():", "    timeout = 60"]
        assert isinstance(_locate(policy, _hunks(fmt, hunk), done), AlreadyApplied)




def test_the_words_a_changed_line_keeps_place_it_when_no_line_is_kept() -> None:
    block = _line_block(format="search-replace", old=["y = 2"], new=["y = 20"])
    placed = _locate(locate_line_block, block, ["x = 1", "y = 20", "z = 3"])
    assert isinstance(placed, AlreadyApplied) and placed.line == 1
    # Two lines start with "y =": either may be where "y = 2" was.
    with pytest.raises(BlockFailure, match="Old lines not found"):
        _locate(locate_line_block, block, ["y = 7", "y = 20", "z = 3"])
    # A changed line that keeps no word places nothing.
    swapped = _line_block(old=["alpha()"], new=["beta = 1"])
    with pytest.raises(BlockFailure):
        _locate(locate_line_block, swapped, ["x = 1", "beta = 1"])


def test_kept_lines_found_at_too_many_places_place_nothing() -> None:
    # Bounded work: past MAX_CANDIDATES places of its kept lines, the block is not counted as
    # applied (a failure, never a wrong "already applied").
    from lsp_server.locate.kept_lines import MAX_CANDIDATES

    block = _line_block(old=["value = 1", "}"], new=["value = 2", "}"])
    few = ["return", "}"] * 10 + ["value = 2", "}"]
    assert isinstance(_locate(locate_line_block, block, few), AlreadyApplied)
    many = ["return", "}"] * MAX_CANDIDATES + ["value = 2", "}"]
    with pytest.raises(BlockFailure, match="not counted as applied"):
        _locate(locate_line_block, block, many)
