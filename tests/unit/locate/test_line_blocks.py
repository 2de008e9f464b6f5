"""locate.line_blocks: anchor + old + trailing found once, replaced minimally."""

from __future__ import annotations

import pytest

from lsp_server.locate import (
    BlockFailure,
    LocateOptions,
    locate_line_block,
    locate_semantic_block,
)
from lsp_server.locate.common import ChosenPlace
from lsp_server.matching import FileMatcher
from lsp_server.model import Block

LINES = ["def f():", "    a = 1", "    return a", "", "def g():", "    return 2"]


def _block(**kw) -> Block:
    return Block(format=kw.pop("format", "edit-v3"), file="m.py", **kw)


def test_kept_lines_stay_items_and_changed_lines_are_text() -> None:
    block = _block(anchor=["def f():"], old=["    a = 1", "    return a"],
                   new=["    a = 2", "    return a"])
    placement = locate_line_block(block, FileMatcher(LINES), LocateOptions())
    assert placement == ([(0, 3, [0, "    a = 2", 2])], 0, "exact", None)


def test_not_found_and_ambiguous_fail_with_a_diagnosis() -> None:
    with pytest.raises(BlockFailure) as missing:
        locate_line_block(_block(old=["    a = 3"], new=["x"]), FileMatcher(LINES),
                          LocateOptions())
    assert missing.value.reason.startswith("Old lines not found")
    with pytest.raises(BlockFailure) as twice:
        locate_line_block(_block(old=["    return 2"], new=["x"]),
                          FileMatcher([*LINES, "    return 2"]), LocateOptions())
    assert "ambiguous" in twice.value.reason and twice.value.line == 5


def test_tolerant_match_reindents_new_lines_but_semantic_diff_writes_them_as_given() -> None:
    block = _block(old=["a = 1", "return a"], new=["a = 1", "b = a", "return b"])
    line_block = locate_line_block(block, FileMatcher(LINES), LocateOptions(tolerant=True))
    assert line_block.match == "whitespace"
    assert line_block.replacements == [(1, 3, [1, "    b = a", "    return b"])]
    semantic = locate_semantic_block(_block(format="semantic-diff", old=block.old,
                                            new=block.new), FileMatcher(LINES), LocateOptions())
    assert semantic.replacements == [(1, 3, [1, "b = a", "return b"])]


def test_a_forced_line_places_the_block_if_it_fits() -> None:
    block = _block(index=0, old=["nothing like it"], new=["x"])
    placement = locate_line_block(block, FileMatcher(LINES), LocateOptions(False, {0: 3}))
    assert placement == ([(3, 4, ["x"])], 3, None, None)
    with pytest.raises(BlockFailure, match="do not fit"):
        locate_line_block(block, FileMatcher(LINES), LocateOptions(False, {0: 6}))


def test_nothing_to_locate_fills_only_an_empty_file() -> None:
    block = _block(new=["x"])
    assert locate_line_block(block, FileMatcher([]), LocateOptions()).replacements == [
        (0, 0, ["x"])]
    with pytest.raises(BlockFailure, match="nothing to locate"):
        locate_line_block(block, FileMatcher(LINES), LocateOptions())


def test_a_chosen_place_holds_only_while_the_text_is_there() -> None:
    lines = [*LINES, "    return 2"]
    block = _block(old=["    return 2"], new=["    return 3"])
    chosen = LocateOptions(False, {0: ChosenPlace(6, 1)})
    assert locate_line_block(block, FileMatcher(lines), chosen) == (
        [(6, 7, ["    return 3"])], 6, "exact", None)
    with pytest.raises(BlockFailure) as moved:  # the text is at lines 7 and 8 now
        locate_line_block(block, FileMatcher(["# new", *lines]), chosen)
    assert moved.value.reason.startswith("Line 7 is no longer the place chosen: the places "
                                         "this block's text matches moved (now lines 7 and 8)")
    assert moved.value.fixes == {"candidateLines": [6, 7], "candidateCount": 2}
    # A tolerant match at the chosen place is re-indented like any other.
    tolerant = _block(old=["return 2"], new=["return 3"])
    placed = locate_line_block(tolerant, FileMatcher(lines),
                               LocateOptions(True, {0: ChosenPlace(5, 0)}))
    assert placed.replacements == [(5, 6, ["    return 3"])] and placed.match == "whitespace"
