"""locate.common: what the policies share (levels, placements, forced hunks)."""

from __future__ import annotations

from lsp_server.diagnosis import Diagnosis
from lsp_server.locate.common import (
    BlockFailure,
    ForcedHunk,
    LocateOptions,
    PlacedHunks,
    Placement,
    changes_no_line,
    worst_level,
)
from lsp_server.matching import EXACT_ONLY, WHITESPACE_LADDER, FileMatcher
from lsp_server.model import Block


def test_options_give_the_levels_and_each_blocks_forced_line() -> None:
    assert LocateOptions().levels == EXACT_ONLY
    options = LocateOptions(True, {2: 7})
    assert options.levels == WHITESPACE_LADDER
    assert options.forced_line(Block(format="edit-v3", file="a", index=2)) == 7
    assert options.forced_line(Block(format="edit-v3", file="a", index=1)) is None


def test_worst_level_is_the_loosest_known() -> None:
    assert worst_level(None, "exact") == "exact"
    assert worst_level("whitespace", None) == "whitespace"
    assert worst_level("exact", "unicode") == "unicode"
    assert worst_level("whitespace", "trailing-whitespace") == "whitespace"


def test_placed_hunks_keep_the_first_line_and_the_worst_level() -> None:
    placed = PlacedHunks()
    placed.add(9, 9, ["new"], line=4)  # an insertion after an anchor line reports the anchor
    placed.add(12, 13, [12], "whitespace")
    placed.add(20, 21, [], None)  # placed by a quick fix: no level
    assert placed.placement(3) == ([(9, 9, ["new"]), (12, 13, [12]), (20, 21, [])], 4,
                                   "whitespace", 3)


def test_a_forced_line_places_one_hunk_only_where_it_fits() -> None:
    fm = FileMatcher(["a", "b", "c", "d"])
    assert ForcedHunk(None).take(fm, ["x"], 0) is None
    forced = ForcedHunk(2)
    assert forced.take(fm, ["x", "y", "z"], 0) is None  # runs past the end
    assert forced.take(fm, ["x"], 3) is None  # before where the search began
    assert forced.take(fm, ["x", "y"], 1) == 2
    assert forced.take(fm, ["x"], 0) is None  # used once per block


def test_a_deferred_diagnosis_is_made_once_and_only_when_read() -> None:
    made: list[int] = []

    def explain() -> Diagnosis:
        made.append(1)
        return Diagnosis(7, "Old lines not found in file; line 8 differs", hint="did you mean")

    failure = BlockFailure("Old lines not found in file", explain=explain)
    assert made == [] and not failure.ambiguous
    assert str(failure) == "Old lines not found in file; line 8 differs"
    assert (failure.line, failure.hint, failure.fixes, failure.context) == (
        7, "did you mean", {}, [])
    assert made == [1]
    plain = BlockFailure("File already exists", 0)
    assert (plain.reason, plain.line, plain.fixes) == ("File already exists", 0, {})


def test_a_placement_changes_no_line_when_it_keeps_or_rewrites_every_line_as_it_is() -> None:
    lines = ["a", "b", "c"]
    assert changes_no_line(Placement([(0, 2, [0, 1])], 0, "exact"), lines)
    assert changes_no_line(Placement([(1, 2, ["b"])], 1, "exact"), lines)  # -b/+b
    assert changes_no_line(Placement([], 0, None), lines)
    assert not changes_no_line(Placement([(1, 2, ["B"])], 1, "exact"), lines)
    assert not changes_no_line(Placement([(1, 1, ["x"])], 1, "exact"), lines)  # inserts
    assert not changes_no_line(Placement([(0, 2, [1, 0])], 0, "exact"), lines)  # reorders
    assert not changes_no_line(Placement([(0, 2, [0])], 0, "exact"), lines)  # removes
