"""Which block made which edit of a plan (for change annotations)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from lsp_server.block_spans import (
    BlockSpans,
    changed_lines,
    operation_blocks,
    original_region,
)
from lsp_server.model import FileEdit, FileSnapshot, ResourceOp, TextEdit
from lsp_server.parsing import parse_response
from lsp_server.planning import plan_edits


def _block(path: str, old: list[str], new: list[str]) -> str:
    return (f"{path}\n««« EDIT\n" + "".join(f"{line}\n" for line in old) + "═══════ REPL\n"
            + "".join(f"{line}\n" for line in new) + "»»» EDIT END\n\n")


def _plan(tmp_path: Path, files: dict[str, str], response: str):
    texts = {tmp_path / name: text for name, text in files.items()}
    spans = BlockSpans()
    plan = plan_edits(parse_response(response), lambda p: FileSnapshot(texts.get(p)),
                      [tmp_path], on_change=spans.record)
    return plan, spans


def _owners(plan, spans) -> list[tuple[int, ...]]:
    return [owners for change in plan.changes if isinstance(change, FileEdit)
            for owners in spans.edit_blocks(change)]


def test_each_edit_names_the_block_that_made_it(tmp_path: Path) -> None:
    text = "".join(f"line {i}\n" for i in range(20))
    response = (_block("a.py", ["line 12"], ["twelve"]) + _block("a.py", ["line 3"], ["three"])
                + _block("b.py", ["b"], ["B"]) + _block("a.py", ["line 18"], []))
    plan, spans = _plan(tmp_path, {"a.py": text, "b.py": "b\n"}, response)
    assert [b.status for b in plan.blocks] == ["validated"] * 4
    assert _owners(plan, spans) == [(1,), (0,), (3,), (2,)]


def test_changes_that_touch_share_one_edit_and_both_blocks(tmp_path: Path) -> None:
    response = (_block("a.py", ["b"], ["B"]) + _block("a.py", ["a", "B"], ["A", "B"]))
    plan, spans = _plan(tmp_path, {"a.py": "a\nb\nc\n"}, response)
    assert _owners(plan, spans) == [(0, 1)]


def test_a_later_block_editing_an_earlier_blocks_lines(tmp_path: Path) -> None:
    response = (_block("a.py", ["b"], ["B", "B2"]) + _block("a.py", ["B2"], ["bee"])
                + _block("a.py", ["e"], ["E"]))
    plan, spans = _plan(tmp_path, {"a.py": "a\nb\nc\nd\ne\n"}, response)
    assert _owners(plan, spans) == [(0, 1), (2,)]


def test_created_and_end_of_file_edits(tmp_path: Path) -> None:
    response = ("new.py\n««« EDIT\n═══════ REPL\nhello\n»»» EDIT END\n\n"
                + _block("a.py", ["z"], ["z", "tail"]) + _block("a.py", ["a"], ["A"]))
    plan, spans = _plan(tmp_path, {"a.py": "a\nm\nz"}, response)  # no final newline
    assert [b.status for b in plan.blocks] == ["validated"] * 3
    assert _owners(plan, spans) == [(2,), (1,), (0,)]  # a.py's edits first, then the create
    ops = [c for c in plan.changes if isinstance(c, ResourceOp)]
    assert [operation_blocks(plan)[id(op)] for op in ops] == [0]


def test_random_blocks_each_edit_has_an_owner(tmp_path: Path) -> None:
    rng = random.Random(15)
    for _ in range(30):
        lines = [f"l{i}" for i in range(30)]
        picks = rng.sample(range(30), 6)
        response = "".join(_block("a.py", [lines[i]], rng.choice([[], [f"N{i}"],
                                                                    [f"N{i}", "x"]]))
                           for i in picks)
        plan, spans = _plan(tmp_path, {"a.py": "".join(f"{x}\n" for x in lines)}, response)
        (change,) = plan.changes
        for edit, owners in zip(change.edits, spans.edit_blocks(change), strict=True):
            a, b = original_region(edit)
            # Each block replaced its one line: the edit covering it names it, and only it.
            assert owners == tuple(i for i in range(6) if a <= picks[i] < b), (picks, edit)
        assert sorted(i for o in spans.edit_blocks(change) for i in o) == list(range(6))


@pytest.mark.parametrize(("start", "end", "items", "changed"), [
    (2, 5, [2, 3, 4], None),
    (2, 5, [2, "x", 4], (3, 4)),
    (2, 5, [2, 3], (4, 5)),
    (2, 2, ["x"], (2, 2)),
    (2, 4, [2, "x", "y", 3], (3, 3)),
    (0, 0, [], None),
])
def test_changed_lines_drop_kept_ends(start: int, end: int, items: list,
                                      changed: tuple[int, int] | None) -> None:
    assert changed_lines(start, end, items) == changed


@pytest.mark.parametrize(("edit", "region"), [
    (TextEdit(3, 0, 5, 0, "x\n"), (3, 5)),
    (TextEdit(4, 7, 4, 7, "\nz"), (5, 5)),  # appended after a last line without newline
    (TextEdit(2, 0, 4, 3, "y"), (2, 5)),
    (TextEdit(1, 2, 4, 3, ""), (2, 5)),
])
def test_original_region(edit: TextEdit, region: tuple[int, int]) -> None:
    assert original_region(edit) == region
