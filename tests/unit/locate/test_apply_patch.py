"""locate.apply_patch: Codex's ladder, @@ context lines, End of File, no overlaps."""

from __future__ import annotations

import pytest

from lsp_server.locate import BlockFailure, LocateOptions, locate_apply_patch
from lsp_server.locate.common import ChosenPlace
from lsp_server.matching import FileMatcher
from lsp_server.model import Block, Hunk

LINES = ["def f():", "    return 1", "", "def g():", "    return 1"]


def _block(*hunks: Hunk) -> Block:
    return Block(format="apply-patch", file="m.py", hunks=list(hunks))


def test_the_context_line_moves_the_search_and_counts_as_the_block_line() -> None:
    hunk = Hunk(header="def g():", anchor="def g():",
                lines=[("-", "    return 1"), ("+", "    return 2")])
    placement = locate_apply_patch(_block(hunk), FileMatcher(LINES), LocateOptions())
    assert placement == ([(4, 5, ["    return 2"])], 3, "exact", None)


def test_the_ladder_level_needed_is_reported() -> None:
    hunk = Hunk(header="", lines=[("-", "def f():  "), ("+", "def f(x):")])
    placement = locate_apply_patch(_block(hunk), FileMatcher(LINES), LocateOptions())
    assert placement.match == "trailing-whitespace" and placement.line == 0


def test_end_of_file_prefers_the_last_match_and_an_insert_goes_at_the_end() -> None:
    last = Hunk(header="", end_of_file=True, lines=[("-", "    return 1"), ("+", "    pass")])
    assert locate_apply_patch(_block(last), FileMatcher(LINES), LocateOptions()).line == 4
    insert = Hunk(header="", lines=[("+", "# end")])
    assert locate_apply_patch(_block(insert), FileMatcher(LINES), LocateOptions()
                              ).replacements == [(5, 5, ["# end"])]


def test_missing_lines_or_context_fail() -> None:
    with pytest.raises(BlockFailure, match="Failed to find expected lines"):
        locate_apply_patch(_block(Hunk(header="", lines=[("-", "nope")])), FileMatcher(LINES),
                           LocateOptions())
    with pytest.raises(BlockFailure, match="Failed to find context 'def h\\(\\):'"):
        locate_apply_patch(_block(Hunk(header="def h():", anchor="def h():",
                                       lines=[("+", "x")])), FileMatcher(LINES), LocateOptions())


def test_a_bare_hunk_must_be_unique_in_what_is_left_of_the_file() -> None:
    block = _block(Hunk(header="", lines=[("-", "    return 1"), ("+", "    return 2")]))
    with pytest.raises(BlockFailure, match=r"Found multiple matches \(lines 2 and 5\)") as twice:
        locate_apply_patch(block, FileMatcher(LINES), LocateOptions())
    assert twice.value.ambiguous and twice.value.line == 1
    # Every place is offered (the at fix), the first included: Codex would take it.
    assert twice.value.fixes == {"candidateLines": [1, 4], "candidateCount": 2,
                                 "candidateHunk": 0}
    forced = locate_apply_patch(block, FileMatcher(LINES), LocateOptions(False, {0: 4}))
    assert (forced.replacements, forced.line) == ([(4, 5, ["    return 2"])], 4)
    after_first = _block(Hunk(header="", lines=[("-", "def f():"), ("+", "def f(x):")]),
                         Hunk(header="", lines=[("-", "    return 1"), ("+", "    return 2")]))
    with pytest.raises(BlockFailure, match="hunk 2 of 2"):
        locate_apply_patch(after_first, FileMatcher(LINES), LocateOptions())
    after_g = _block(Hunk(header="", lines=[("-", "def g():"), ("+", "def g(x):")]),
                     Hunk(header="", lines=[("-", "    return 1"), ("+", "    return 2")]))
    assert locate_apply_patch(after_g, FileMatcher(LINES), LocateOptions()).replacements == [
        (3, 4, ["def g(x):"]), (4, 5, ["    return 2"])]


def test_end_of_file_pins_a_bare_hunk_to_the_last_lines() -> None:
    last = _block(Hunk(header="", end_of_file=True, lines=[("-", "    return 1"),
                                                          ("+", "    pass")]))
    assert locate_apply_patch(last, FileMatcher(LINES), LocateOptions()).line == 4


def test_a_context_line_must_be_unique_after_the_previous_hunk() -> None:
    lines = ["class A:", "    def f(self):", "        return 1", "class B:", "    def f(self):",
             "        return 1"]
    hunk = Hunk(header="def f(self):", anchor="def f(self):",
                lines=[("-", "        return 1"), ("+", "        return 2")])
    with pytest.raises(BlockFailure, match="multiple matches for context 'def f\\(self\\):' "
                                           "\\(lines 2 and 5\\)") as twice:
        locate_apply_patch(_block(hunk), FileMatcher(lines), LocateOptions())
    assert twice.value.ambiguous and twice.value.fixes == {
        "candidateLines": [1, 4], "candidateCount": 2, "candidateHunk": 0}
    first = Hunk(header="class A:", anchor="class A:",
                 lines=[("-", "        return 1"), ("+", "        return 0")])
    placement = locate_apply_patch(_block(first, hunk), FileMatcher(lines), LocateOptions())
    assert placement.replacements == [(2, 3, ["        return 0"]), (5, 6, ["        return 2"])]


def test_an_update_without_hunks_fails_unless_the_block_moves_its_file() -> None:
    with pytest.raises(BlockFailure, match="Empty update"):
        locate_apply_patch(_block(), FileMatcher(LINES), LocateOptions())
    moved = Block(format="apply-patch", file="m.py", move_to="n.py")
    assert locate_apply_patch(moved, FileMatcher(LINES), LocateOptions()).replacements == []


# ------------------------------------------------------------------ the at fix

THRICE = ["def f():", "    v = 1", "def g():", "    v = 1", "def h():", "    v = 1", "# end"]


def test_an_ambiguous_bare_hunk_names_every_place_and_shows_them() -> None:
    block = _block(Hunk(header="", lines=[("-", "def f():"), ("+", "def f(x):")]),
                   Hunk(header="", lines=[("-", "    v = 1"), ("+", "    v = 2")]))
    with pytest.raises(BlockFailure) as failure:
        locate_apply_patch(block, FileMatcher(THRICE), LocateOptions())
    assert failure.value.reason.startswith(
        "Found multiple matches (lines 2, 4 and 6): under a bare @@")
    assert failure.value.reason.endswith("(hunk 2 of 2)")
    assert failure.value.fixes == {"candidateLines": [1, 3, 5], "candidateCount": 3,
                                   "candidateHunk": 1}
    assert [n for n, _ in failure.value.context] == list(range(7))


def test_the_chosen_place_takes_the_ambiguous_hunk_and_the_later_ones_follow_it() -> None:
    block = _block(Hunk(header="", lines=[("-", "def f():"), ("+", "def f(x):")]),
                   Hunk(header="", lines=[("-", "    v = 1"), ("+", "    v = 2")]),
                   Hunk(header="", lines=[("-", "    v = 1"), ("+", "    v = 3")]))
    placement = locate_apply_patch(block, FileMatcher(THRICE),
                                   LocateOptions(False, {0: ChosenPlace(3, 1, hunk=1)}))
    # Hunk 3 is unique after line 4: only line 6 is left.
    assert placement.replacements == [(0, 1, ["def f(x):"]), (3, 4, ["    v = 2"]),
                                      (5, 6, ["    v = 3"])]
    assert placement.match == "exact"


def test_a_chosen_place_that_no_longer_holds_the_text_places_nothing() -> None:
    block = _block(Hunk(header="", lines=[("-", "    v = 1"), ("+", "    v = 2")]))
    moved = ["# new", *THRICE]  # a line added above since the preview
    with pytest.raises(BlockFailure) as failure:
        locate_apply_patch(block, FileMatcher(moved),
                           LocateOptions(False, {0: ChosenPlace(3, 1, hunk=0)}))
    assert failure.value.reason.startswith(
        "Line 4 is no longer the place chosen: the places this block's text matches "
        "moved (now lines 3, 5 and 7)")
    assert failure.value.fixes["candidateLines"] == [2, 4, 6]
    gone = ["def f():", "    v = 0"]
    with pytest.raises(BlockFailure, match="this block's text is no longer found"):
        locate_apply_patch(block, FileMatcher(gone),
                           LocateOptions(False, {0: ChosenPlace(1, 0, hunk=0)}))


def test_an_ambiguous_context_line_is_placed_at_the_chosen_one() -> None:
    lines = ["class A:", "    def f(self):", "        return 1", "class B:", "    def f(self):",
             "        return 1"]
    hunk = Hunk(header="def f(self):", anchor="    def f(self):",
                lines=[("-", "        return 1"), ("+", "        return 2")])
    placement = locate_apply_patch(_block(hunk), FileMatcher(lines),
                                   LocateOptions(False, {0: ChosenPlace(4, 1, hunk=0)}))
    assert placement.replacements == [(5, 6, ["        return 2"])] and placement.line == 4
    with pytest.raises(BlockFailure, match=r"Line 3 is no longer the place .*now lines 2 and 5"):
        locate_apply_patch(_block(hunk), FileMatcher(lines),
                           LocateOptions(False, {0: ChosenPlace(2, 0, hunk=0)}))
