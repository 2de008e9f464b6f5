"""VFile: a file of the plan's virtual file system; here, its rebase (searches and changes
restart from the current lines once many blocks have changed a file) never changes a result."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from lsp_server.block_spans import BlockSpans
from lsp_server.file_text import LineOrigins
from lsp_server.model import FileSnapshot
from lsp_server.parsing import parse_response
from lsp_server.planning import plan_edits
from lsp_server.virtual_file import VFile


def test_origins_through_an_earlier_map_are_the_composition() -> None:
    earlier = LineOrigins(10)  # original lines 0-9
    earlier.replace(2, 4, ["x", "y", "z"])  # 0 1 x y z 4 5 6 7 8 9
    later = LineOrigins(11)
    later.replace(0, 1, [])  # drop original 0
    later.replace(3, 6, [2, "w", 4])  # keep y, write w, keep 4 (now at 3, 4, 5)
    composed = later.through(earlier)
    # Build the expected map line by line: later's line -> earlier's line -> original.
    expected: list[int | None] = []
    for line in range(sum(n for _, n in later.pieces)):
        middle = later.origin(line)
        expected.append(None if middle is None else earlier.origin(middle))
    current = [composed.origin(line) for line in range(len(expected))]
    assert current == expected
    assert sum(n for _, n in composed.pieces) == len(expected)


def _response(edits: list[tuple[int, str, str]]) -> str:
    return "".join(
        f"f.py\n```\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n```\n\n"
        for _, old, new in edits)


def _plan(text: str, file_text: str, monkeypatch: pytest.MonkeyPatch, rebase_min: int):
    monkeypatch.setattr(VFile, "REBASE_PIECES_MIN", rebase_min)
    spans = BlockSpans()
    root = Path("/ws")
    plan = plan_edits(parse_response(text), lambda p: FileSnapshot(text=file_text), [root],
                      on_change=spans.record)
    return plan, spans.spans


@pytest.mark.parametrize("seed", range(6))
def test_many_blocks_on_one_file_plan_the_same_with_rebases(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    lines = [f"line {i}" for i in range(120)]
    edits: list[tuple[int, str, str]] = []
    for i in rng.sample(range(120), 90):  # unique old lines, in random order
        new = rng.choice([f"line {i} changed", f"line {i}\nadded {i}", "", f"a{i}\nb{i}\nc{i}"])
        edits.append((i, lines[i], new))
    text = _response(edits)
    file_text = "\n".join(lines) + "\n"
    never, never_spans = _plan(text, file_text, monkeypatch, 10**9)
    often, often_spans = _plan(text, file_text, monkeypatch, 1)  # rebases every few blocks
    assert [b.status for b in often.blocks] == [b.status for b in never.blocks]
    assert {b.status for b in never.blocks} == {"validated"}
    assert often.changes == never.changes
    assert often_spans == never_spans


def test_the_pieces_a_change_walks_stay_bounded_however_many_blocks() -> None:
    """Each block's search and change walk the pieces since the last rebase: with 600
    blocks on one 1,200-line file they stay under the rebase bound (they reached 1,200 when
    every change walked every piece of the plan, quadratic in the blocks)."""
    lines = [f"line {i}" for i in range(1200)]
    edits = [(i, lines[i], f"line {i} changed") for i in range(0, 1200, 2)]
    walked: list[int] = []

    def on_change(index: int, vf: VFile, replacements: list) -> None:
        walked.append(len(vf._recent.pieces))

    plan = plan_edits(parse_response(_response(edits)),
                      lambda p: FileSnapshot(text="\n".join(lines) + "\n"), [Path("/ws")],
                      on_change=on_change)
    assert {b.status for b in plan.blocks} == {"validated"}
    assert len(walked) == 600
    assert max(walked) <= max(VFile.REBASE_PIECES_MIN, 2 * 35) + 3
