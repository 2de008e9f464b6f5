"""locate.hunk_patch: hunks in order, an @@ anchor narrowing the search."""

from __future__ import annotations

import pytest

from lsp_server.locate import BlockFailure, LocateOptions, locate_hunk_patch
from lsp_server.locate.common import ChosenPlace
from lsp_server.matching import FileMatcher
from lsp_server.model import Block, Hunk

LINES = ["class A:", "    x = 1", "class B:", "    x = 1", "    y = 2"]


def _block(*hunks: Hunk) -> Block:
    return Block(format="hunk-patch", file="m.py", hunks=list(hunks))


def test_the_anchor_picks_which_of_two_equal_places() -> None:
    hunk = Hunk(header="class B:", anchor="class B:",
                lines=[("-", "    x = 1"), ("+", "    x = 3")])
    placement = locate_hunk_patch(_block(hunk), FileMatcher(LINES), LocateOptions())
    assert placement == ([(3, 4, ["    x = 3"])], 3, "exact", None)


def test_without_an_anchor_the_hunk_must_be_unique() -> None:
    hunk = Hunk(header="", lines=[("-", "    x = 1"), ("+", "    x = 3")])
    with pytest.raises(BlockFailure, match="Found multiple matches"):
        locate_hunk_patch(_block(hunk), FileMatcher(LINES), LocateOptions())


def test_an_added_only_hunk_goes_after_its_anchor_and_reports_the_anchor_line() -> None:
    hunk = Hunk(header="class A:", anchor="class A:", lines=[("+", "    z = 0")])
    placement = locate_hunk_patch(_block(hunk), FileMatcher(LINES), LocateOptions())
    assert placement == ([(1, 1, ["    z = 0"])], 0, "exact", None)


def test_a_hunk_without_changes_and_a_missing_anchor_fail() -> None:
    with pytest.raises(BlockFailure, match="no \\+ or - line"):
        locate_hunk_patch(_block(Hunk(header="", lines=[(" ", "class A:")])),
                          FileMatcher(LINES), LocateOptions())
    with pytest.raises(BlockFailure, match="No match found for anchor 'class C:'"):
        locate_hunk_patch(_block(Hunk(header="class C:", anchor="class C:",
                                      lines=[("+", "x")])), FileMatcher(LINES), LocateOptions())


def test_no_hunks_change_no_text() -> None:
    assert locate_hunk_patch(_block(), FileMatcher(LINES), LocateOptions()) == ([], 0, None, None)


# ------------------------------------------------------------------ the at fix

THRICE = ["a = 0", "    x = 1", "b = 0", "    x = 1", "c = 0", "    x = 1"]


def test_an_ambiguous_hunk_offers_every_place_after_the_previous_hunk() -> None:
    block = _block(Hunk(header="", lines=[("-", "b = 0"), ("+", "b = 9")]),
                   Hunk(header="", lines=[("-", "    x = 1"), ("+", "    x = 3")]))
    with pytest.raises(BlockFailure) as failure:
        locate_hunk_patch(block, FileMatcher(THRICE), LocateOptions())
    assert failure.value.reason == "Found multiple matches (lines 4 and 6) (hunk 2 of 2)"
    assert failure.value.fixes == {"candidateLines": [3, 5], "candidateCount": 2,
                                   "candidateHunk": 1}
    placement = locate_hunk_patch(block, FileMatcher(THRICE),
                                  LocateOptions(False, {0: ChosenPlace(5, 1, hunk=1)}))
    assert placement.replacements == [(2, 3, ["b = 9"]), (5, 6, ["    x = 3"])]
    with pytest.raises(BlockFailure, match=r"Line 2 is no longer the place .*now lines 4 and 6"):
        locate_hunk_patch(block, FileMatcher(THRICE),
                          LocateOptions(False, {0: ChosenPlace(1, 0, hunk=1)}))


def test_an_ambiguous_anchor_is_placed_at_the_chosen_line() -> None:
    lines = ["def f():", "    x = 1", "def f():", "    x = 1", "def f():", "    x = 1"]
    hunk = Hunk(header="def f():", anchor="def f():",
                lines=[("-", "    x = 1"), ("+", "    x = 2")])
    with pytest.raises(BlockFailure) as failure:
        locate_hunk_patch(_block(hunk), FileMatcher(lines), LocateOptions())
    assert failure.value.reason == ("Found multiple matches for anchor 'def f():' "
                                    "(lines 1, 3 and 5)")
    assert failure.value.fixes == {"candidateLines": [0, 2, 4], "candidateCount": 3,
                                   "candidateHunk": 0}
    placement = locate_hunk_patch(_block(hunk), FileMatcher(lines),
                                  LocateOptions(False, {0: ChosenPlace(2, 1, hunk=0)}))
    assert placement.replacements == [(3, 4, ["    x = 2"])]
