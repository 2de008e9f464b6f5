"""locate.apply_patch: Codex's ladder, @@ context lines, End of File, no overlaps."""

from __future__ import annotations

import pytest

from lsp_server.locate import BlockFailure, LocateOptions, locate_apply_patch
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
