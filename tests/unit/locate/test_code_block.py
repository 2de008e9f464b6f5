"""locate.code_block: the merge's new lines as minimal line edits, its failures as the
engine's (ambiguous with the ``at`` fix, not found with the estimated line and did-you-mean),
and code blocks planned through plan_edits (create, skip after a failure, EOL and BOM)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.locate import BlockFailure, LocateOptions, locate_code_block
from lsp_server.locate.already_applied import AlreadyApplied
from lsp_server.locate.common import ChosenPlace
from lsp_server.matching import FileMatcher
from lsp_server.model import Block, FileEdit, FileSnapshot, ParseResult, ResourceOp
from lsp_server.planning import plan_edits

STORE = ["import json", "", "", "def load(path):", "    with open(path) as f:",
         "        return json.load(f)", "", "", "def save(path, data):",
         '    with open(path, "w") as f:', "        json.dump(data, f)"]
SAVE = ["def save(path, data):", '    with open(path, "w") as f:',
        "        json.dump(data, f, indent=2)"]
MODELS = ["class User:", "    def save(self):", '        db.write("users", self)', "", "",
          "class Order:", "    def save(self):", '        db.write("orders", self)']


def _block(new: list[str], file: str = "conf/store.py", index: int = 0) -> Block:
    return Block("code-block", file, op="write", new=new, info="python", index=index)


def _locate(new: list[str], lines: list[str] = STORE, options: LocateOptions | None = None,
            file: str = "conf/store.py"):
    return locate_code_block(_block(new, file), FileMatcher(list(lines)),
                             options or LocateOptions())


def _apply(lines: list[str], items: list) -> list[str]:
    return [lines[i] if isinstance(i, int) else i for i in items]


def test_a_merged_definition_is_one_changed_line_among_kept_ones() -> None:
    placement = _locate(SAVE)
    [(start, end, items)] = placement.replacements
    assert (start, end) == (0, len(STORE))
    assert items == [*range(10), "        json.dump(data, f, indent=2)"]
    assert (placement.line, placement.match) == (10, "syntax")


def test_a_merge_that_changes_nothing_is_already_applied() -> None:
    done = [*STORE[:-1], "        json.dump(data, f, indent=2)"]
    placement = _locate(SAVE, done)
    assert isinstance(placement, AlreadyApplied) and placement.replacements == []


def test_an_empty_file_is_filled_as_a_new_one() -> None:
    placement = _locate(SAVE, [])
    assert placement.replacements == [(0, 0, SAVE)]


def test_two_candidates_fail_as_ambiguous_listing_both_and_the_at_fix_picks_one() -> None:
    snippet = ["def save(self):", '    db.write("users", self, flush=True)']
    with pytest.raises(BlockFailure) as caught:
        _locate(snippet, MODELS, file="app/models.py")
    failure = caught.value
    assert failure.ambiguous
    assert failure.fixes["candidateLines"] == [1, 6]
    assert failure.line == 1 and "save" in failure.reason
    # The `at` quick fix: the second candidate, chosen among the places the failure listed.
    chosen = LocateOptions(force_at={0: ChosenPlace(6, 1)})
    placement = _locate(snippet, MODELS, chosen, file="app/models.py")
    [(_, _, items)] = placement.replacements
    assert _apply(MODELS, items) == [
        *MODELS[:6], "    def save(self):", '        db.write("users", self, flush=True)']


def test_lines_that_cannot_be_placed_fail_with_an_estimated_line_and_a_did_you_mean() -> None:
    lua = ["local M = {}", "", "function M.greet(name)", '  print("Hi " .. name)', "end"]
    snippet = ["function M.greet(nam)", '  print("Hello " .. nam)', "end"]
    with pytest.raises(BlockFailure) as caught:
        _locate(snippet, lua, file="lua/greet.lua")
    failure = caught.value
    assert not failure.ambiguous
    assert failure.line == 2
    assert failure.hint and "M.greet(name)" in failure.hint


def test_a_whole_file_removing_most_of_the_file_fails_as_part_of_the_file() -> None:
    with pytest.raises(BlockFailure, match="part of the file"):
        _locate(["import json", "", "        json.dump(data, f)"])


# ------------------------------------------------------------------------ planning


def _plan(files: dict[str, str], *blocks: Block) -> tuple:
    root = Path("/ws")

    def read(path: Path) -> FileSnapshot:
        return FileSnapshot(text=files.get(path.relative_to(root).as_posix()))

    parsed = ParseResult(blocks=list(blocks))
    for i, block in enumerate(parsed.blocks):
        block.index = i
    return plan_edits(parsed, read, [root]), root


def test_planned_a_snippet_keeps_crlf_and_the_bom() -> None:
    text = "\ufeff" + "\r\n".join(STORE) + "\r\n"
    result, _root = _plan({"conf/store.py": text}, _block(SAVE))
    [edit] = result.changes
    assert isinstance(edit, FileEdit) and edit.has_bom
    assert edit.new_text == "\r\n".join([*STORE[:-1], SAVE[-1]]) + "\r\n"
    [one] = edit.edits
    assert (one.start_line, one.end_line) == (10, 11)  # the one changed line


def test_planned_a_missing_file_is_created_and_a_failure_skips_the_file_s_later_blocks() -> None:
    result, root = _plan({"conf/store.py": "\n".join(STORE) + "\n"},
                         _block(["X = 1"], "conf/new.py"),
                         _block(["def nowhere(:", "    pass"]),
                         _block(SAVE))
    assert [b.status for b in result.blocks] == ["validated", "failed", "skipped"]
    assert result.changes[0] == ResourceOp("create", root / "conf/new.py")
    assert result.changes[1].new_text == "X = 1\n"
