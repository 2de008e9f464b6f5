"""locate.unified_diff: the match nearest the header's line, offsets carried forward."""

from __future__ import annotations

import pytest

from lsp_server.locate import BlockFailure, LocateOptions, locate_unified_diff
from lsp_server.locate.common import ChosenPlace
from lsp_server.locate.unified_diff import nearest
from lsp_server.matching import FileMatcher, LineIndex
from lsp_server.model import Block, Hunk

LINES = ["x = 1", "a", "b", "x = 1", "c", "d", "e", "x = 1"]


def _hunk(old_start: int, *lines: tuple[str, str]) -> Hunk:
    return Hunk(header=f"-{old_start},1 +{old_start},1", old_start=old_start, lines=list(lines))


def _block(*hunks: Hunk) -> Block:
    return Block(format="unified-diff", file="m.py", hunks=list(hunks))


def test_the_nearest_match_to_the_header_wins_and_its_offset_is_reported() -> None:
    hunk = _hunk(3, ("-", "x = 1"), ("+", "x = 2"))  # header: line 3 (index 2), nearest 3
    placement = locate_unified_diff(_block(hunk), FileMatcher(LINES), LocateOptions())
    assert placement == ([(3, 4, ["x = 2"])], 3, "exact", 1)


def test_equally_near_matches_are_ambiguous() -> None:
    hunk = _hunk(3, ("-", "x = 1"), ("+", "x = 2"))
    lines = ["x = 1", "q", "r", "s", "x = 1", "t", "u", "x = 1"]
    with pytest.raises(BlockFailure, match="equally near the header's line 3") as failure:
        locate_unified_diff(_block(hunk), FileMatcher(lines), LocateOptions())
    # The two equally near are the candidates (line 8 is farther: never the hunk's place).
    assert failure.value.fixes == {"candidateLines": [0, 4], "candidateCount": 2,
                                   "candidateHunk": 0}
    placement = locate_unified_diff(_block(hunk), FileMatcher(lines),
                                    LocateOptions(False, {0: ChosenPlace(4, 1, hunk=0)}))
    assert placement.replacements == [(4, 5, ["x = 2"])] and placement.offset == 2


def test_without_line_numbers_every_place_is_a_candidate() -> None:
    hunk = Hunk(header="", lines=[("-", "x = 1"), ("+", "x = 2")])
    with pytest.raises(BlockFailure) as failure:
        locate_unified_diff(_block(hunk), FileMatcher(LINES), LocateOptions())
    assert failure.value.reason == "Edit location is ambiguous (matches at lines 1, 4 and 8)"
    assert failure.value.fixes["candidateLines"] == [0, 3, 7]
    later = _hunk(8, ("-", "e"), ("+", "E"))  # after the chosen place: found as usual
    placement = locate_unified_diff(_block(hunk, later), FileMatcher(LINES),
                                    LocateOptions(False, {0: ChosenPlace(3, 1, hunk=0)}))
    assert placement.replacements == [(3, 4, ["x = 2"]), (6, 7, ["E"])]


def test_a_later_hunk_is_looked_for_at_its_header_shifted_by_the_previous_offset() -> None:
    first = _hunk(1, ("-", "a"), ("+", "A"))  # header: index 0, found at 1: offset +1
    second = _hunk(5, ("+", "tail"))  # pure insertion after old line 5, shifted to 6
    placement = locate_unified_diff(_block(first, second), FileMatcher(LINES), LocateOptions())
    assert placement.replacements == [(1, 2, ["A"]), (6, 6, ["tail"])]
    assert placement.offset == 1


def test_a_hunk_that_matches_nowhere_fails() -> None:
    with pytest.raises(BlockFailure, match="Hunk does not match the file"):
        locate_unified_diff(_block(_hunk(1, ("-", "zz"))), FileMatcher(LINES), LocateOptions())


FILE = ["import os", "", "def add(a, b):", "    return a + b", "", "def sub(a, b):",
        "    return a + b"]


def test_nearest_uses_the_hint_only_to_break_ties() -> None:
    fm = FileMatcher(FILE)
    loc, tie = nearest(fm, ["    return a + b"], hint=6)
    assert loc.starts[0] == 6 and not tie
    loc, tie = nearest(fm, ["    return a + b"], hint=0)
    assert loc.starts[0] == 3 and not tie
    loc, tie = nearest(fm, ["    return a + b"], hint=None)
    assert tie
    loc, tie = nearest(fm, ["    return a + b"], hint=5)  # 2 away from 3, 1 away from 6
    assert loc.starts[0] == 6 and not tie
    fm2 = FileMatcher(["x", "m", "x"])
    loc, tie = nearest(fm2, ["x"], hint=1)
    assert tie and loc.starts == [0, 2]
    # a unique match wins however far from the header
    loc, tie = nearest(fm, ["import os"], hint=500)
    assert loc.starts == [0] and not tie


def test_a_zero_context_diff_finds_each_hunk_without_enumerating_every_match(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # `git diff -U0` removing every blank line of a 12,000-line file: each hunk's old text is
    # one blank line, found at 6,000 places. Each hunk must cost a bounded number of matches
    # (counted as the offsets converted to lines), not every blank line after the previous
    # hunk (18 million conversions, 108 s, before).
    lines = [("" if i % 2 else f"x{i}") for i in range(12_000)]
    hunks = [Hunk(header=f"-{i + 1} +{i // 2 + 1},0", old_start=i + 1, lines=[("-", "")])
             for i in range(1, 12_000, 2)]
    converted = []
    line_at = LineIndex.line_at
    monkeypatch.setattr(LineIndex, "line_at",
                        lambda self, offset: converted.append(offset) or line_at(self, offset))
    placement = locate_unified_diff(_block(*hunks), FileMatcher(lines), LocateOptions())
    assert [start for start, _, _ in placement.replacements] == list(range(1, 12_000, 2))
    assert len(converted) <= 2 * len(hunks)


def test_the_nearest_match_before_the_header_is_found_past_many_earlier_ones() -> None:
    # 50 matches before the header's line and none after: the last one wins, found by one
    # reverse search rather than by enumerating the 50.
    lines = ["x"] * 50 + ["a"] * 20
    hunk = _hunk(60, ("-", "x"), ("+", "y"))
    placement = locate_unified_diff(_block(hunk), FileMatcher(lines), LocateOptions())
    assert placement.replacements == [(49, 50, ["y"])]
