"""locate.unified_diff: the match nearest the header's line, offsets carried forward."""

from __future__ import annotations

import pytest

from lsp_server.locate import BlockFailure, LocateOptions, locate_unified_diff
from lsp_server.matching import FileMatcher
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
    with pytest.raises(BlockFailure, match="equally near the header's line 3"):
        locate_unified_diff(_block(hunk), FileMatcher(["x = 1", "q", "r", "s", "x = 1"]),
                            LocateOptions())


def test_a_later_hunk_is_looked_for_at_its_header_shifted_by_the_previous_offset() -> None:
    first = _hunk(1, ("-", "a"), ("+", "A"))  # header: index 0, found at 1: offset +1
    second = _hunk(5, ("+", "tail"))  # pure insertion after old line 5, shifted to 6
    placement = locate_unified_diff(_block(first, second), FileMatcher(LINES), LocateOptions())
    assert placement.replacements == [(1, 2, ["A"]), (6, 6, ["tail"])]
    assert placement.offset == 1


def test_a_hunk_that_matches_nowhere_fails() -> None:
    with pytest.raises(BlockFailure, match="Hunk does not match the file"):
        locate_unified_diff(_block(_hunk(1, ("-", "zz"))), FileMatcher(LINES), LocateOptions())
