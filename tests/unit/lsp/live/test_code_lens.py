"""The titles of a response document's code lenses (lsp/code_lens.py); the lenses end to end:
tests/e2e/test_code_lens.py."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from lsp_server.lsp.live.code_lens import (
    LensCache,
    apply_all_title,
    code_lens_json,
    lens_block_key,
    status_title,
)
from lsp_server.lsp.live.lens_resolve import find_block, lens_reference
from lsp_server.model import Block, BlockResult, ParseResult


@pytest.mark.parametrize(("ready", "title"), [
    (0, "Apply all 0 ready blocks"), (1, "Apply 1 ready block"), (2, "Apply all 2 ready blocks"),
])
def test_the_apply_all_title_counts_ready_blocks(ready: int, title: str) -> None:
    assert apply_all_title(ready) == title


@pytest.mark.parametrize(("result", "title"), [
    (BlockResult(0, "src/app.py", "edit-v3", "validated", line=41), "✓ src/app.py:42"),
    (BlockResult(0, "src/app.py", "edit-v3", "applied", line=41), "✓ applied src/app.py:42"),
    (BlockResult(0, "a.py", "edit-v3", "failed", reason="Anchor not found\nmore", line=3,
                 fixes={"closestLine": 56}), "✗ Anchor not found — closest line 57"),
    (BlockResult(0, "a.py", "edit-v3", "failed", reason="File not found: a.py", line=0),
     "✗ File not found: a.py"),
    (BlockResult(0, "a.py", "edit-v3", "skipped"), "⊘ skipped"),
    (BlockResult(0, "a.py", "edit-v3", "already-applied", line=3), "= already applied"),
    (BlockResult(0, "a.py", "edit-v3", "failed", reason="x" * 200), "✗ " + "x" * 79 + "…"),
    (BlockResult(0, "a\u202eb.py", "edit-v3", "validated", line=0), "✓ a\\u202eb.py:1"),
])
def test_status_titles(result: BlockResult, title: str) -> None:
    assert status_title(result) == title


def _blocks(count: int) -> list[Block]:
    return [Block("edit-v3", f"f{n}.py", old=[f"a{n}"], new=[f"b{n}"], response_line=7 * n,
                  end_line=7 * n + 6, index=n) for n in range(count)]


def _results(blocks: list[Block], status: str = "validated") -> list[BlockResult]:
    return [BlockResult(b.index, b.file, b.format, status, line=0) for b in blocks]


def test_a_validation_that_changes_results_rebuilds_no_block_lens() -> None:
    # The lenses are unresolved: a block's JSON depends on the block and its place, never on
    # its result, so a validation (new results) costs the count of ready blocks only.
    blocks = _blocks(500)
    cache = LensCache()
    first = code_lens_json("file:///a.llm.md", "doc1", ParseResult(blocks), _results(blocks),
                           cache)
    parts = list(cache._parts)
    failed = _results(blocks, "failed")
    again = code_lens_json("file:///a.llm.md", "doc1", ParseResult(list(blocks)), failed, cache)
    assert all(now is before for now, before in zip(cache._parts, parts, strict=True))
    assert json.loads(first)[1:] == json.loads(again)[1:]
    assert json.loads(first)[0]["command"]["title"] == "Apply all 500 ready blocks"
    assert json.loads(again)[0]["command"]["title"] == "Apply all 0 ready blocks"


def test_a_block_edited_in_place_gets_new_lenses_naming_it() -> None:
    blocks = _blocks(3)
    cache = LensCache()
    code_lens_json("u", "doc1", ParseResult(blocks), _results(blocks), cache)
    edited = [blocks[0], replace(blocks[1], new=["changed"]), blocks[2]]
    lenses = json.loads(code_lens_json("u", "doc1", ParseResult(edited), _results(edited),
                                       cache))
    assert [lens["data"] for lens in lenses[3:5]] == [
        ["doc1", lens_block_key(edited[1]), 0], ["doc1", lens_block_key(edited[1]), 1]]
    assert lens_block_key(edited[1]) != lens_block_key(blocks[1])


def test_a_lens_finds_its_block_only_while_it_is_the_same_at_the_same_place() -> None:
    blocks = _blocks(40)
    key = lens_block_key(blocks[17])
    assert find_block(blocks, key) is blocks[17]
    moved = [replace(b, response_line=b.response_line + 1, end_line=b.end_line + 1)
             for b in blocks]
    assert find_block(moved, key) is None
    assert find_block(blocks, "x-1-2") is None
    assert lens_reference(["doc1", key, 0]) == ("doc1", key, 0)
    assert lens_reference(["doc1", key, True]) is None
    assert lens_reference({"uri": "x"}) is None
