"""locate.whole_file: a file's whole new text as minimal line edits, refused when it looks
like part of the file; and planned through plan_edits (create, EOL, BOM, final newline)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.locate import BlockFailure, LocateOptions, locate_whole_file
from lsp_server.locate.already_applied import AlreadyApplied
from lsp_server.locate.whole_file import line_opcodes
from lsp_server.matching import FileMatcher
from lsp_server.model import Block, FileEdit, FileSnapshot, ParseResult, ResourceOp
from lsp_server.planning import plan_edits
from lsp_server.removed_lines import removes_most_of

LINES = ["import os", "", "", "def add(a, b):", "    return a + b", "", "",
         "def main():", "    print(add(1, 2))"]


def _block(new: list[str], file: str = "app.py") -> Block:
    return Block("whole-file", file, op="write", new=new)


def _locate(new: list[str], lines: list[str] = LINES):
    return locate_whole_file(_block(new), FileMatcher(list(lines)), LocateOptions())


def _apply(lines: list[str], items: list) -> list[str]:
    return [lines[i] if isinstance(i, int) else i for i in items]


def test_one_changed_line_is_the_only_new_text() -> None:
    new = list(LINES)
    new[4] = "    return a * b"
    placement = _locate(new)
    [(start, end, items)] = placement.replacements
    assert (start, end) == (0, len(LINES))
    assert items == [0, 1, 2, 3, "    return a * b", 5, 6, 7, 8]
    assert (placement.line, placement.match) == (4, "exact")


def test_inserted_and_deleted_lines_keep_every_other_line() -> None:
    new = ["import os", "import sys", "", "", "def main():", "    print(add(1, 2))",
           "    return 0"]
    [(_, _, items)] = _locate(new).replacements
    assert _apply(LINES, items) == new
    # add() went; every other line of the new text is a line of the file, in order.
    kept = [i for i in items if isinstance(i, int)]
    assert len(kept) == 5 and kept == sorted(kept) and kept[0] == 0 and kept[-2:] == [7, 8]


@pytest.mark.parametrize("new", [[], ["x"], ["a", "b", "c"], ["b", "x", "a"]])
def test_opcodes_rebuild_the_new_text(new: list[str]) -> None:
    old = ["a", "b", "a", "c"]
    rebuilt: list[str] = []
    for tag, i1, i2, j1, j2 in line_opcodes(old, new):
        rebuilt += old[i1:i2] if tag == "equal" else new[j1:j2]
    assert rebuilt == new


def test_the_same_text_is_already_applied() -> None:
    placement = _locate(list(LINES))
    assert isinstance(placement, AlreadyApplied) and placement.replacements == []


def test_an_empty_file_is_filled() -> None:
    placement = _locate(["x = 1"], [])
    assert placement.replacements == [(0, 0, ["x = 1"])]


@pytest.mark.parametrize("placeholder", [
    "# ... rest of the file unchanged ...", "// ...existing code...", "...", "…",
    "    # rest of code", "# unchanged",
])
def test_an_elision_placeholder_is_refused(placeholder: str) -> None:
    new = ["import os", "", "", placeholder, "", "", "def main():", "    print(add(1, 2))"]
    with pytest.raises(BlockFailure) as failed:
        _locate(new)
    reason = failed.value.reason
    assert reason.startswith("Looks like part of the file: line 4 of the new text")
    assert "elision placeholder" in reason
    assert failed.value.line == 3


def test_a_placeholder_line_the_file_already_has_is_code() -> None:
    stub = ["class P(Protocol):", "    def f(self) -> int:", "        ..."]
    new = [*stub, "    def g(self) -> str:", "        ..."]
    assert _apply(stub, _locate(new, stub).replacements[0][2]) == new


def test_deleting_most_of_the_file_and_writing_little_is_refused() -> None:
    with pytest.raises(BlockFailure) as failed:
        _locate(["import os"])
    assert failed.value.reason.startswith(
        "Looks like part of the file: it would remove 4 of the file's 5 non-blank lines;")
    assert failed.value.line == 3  # the first non-blank line it removes
    with pytest.raises(BlockFailure):
        _locate([])


def test_a_reindented_file_and_a_real_deletion_are_accepted() -> None:
    reindented = ["\t" + line if line else line for line in LINES]  # removes no line
    assert _apply(LINES, _locate(reindented).replacements[0][2]) == reindented
    # Deleting a function: 2 of 5 non-blank lines, not more than half.
    without_add = LINES[:3] + LINES[7:]
    assert _apply(LINES, _locate(without_add).replacements[0][2]) == without_add


def test_an_excerpt_with_new_lines_is_refused_whatever_it_adds() -> None:
    # issue 23: 20 lines of a 100-line file, half of them new, deleted 90 of its lines.
    file = [f"line_{i} = {i}" for i in range(100)]
    excerpt = file[40:50] + [f"new_{i} = {i}" for i in range(10)]
    with pytest.raises(BlockFailure, match="would remove 90 of the file's 100 non-blank"):
        _locate(excerpt, file)
    assert removes_most_of(file, excerpt) == (90, 100)


# ------------------------------------------------------------------ through plan_edits


class _Disk:
    def __init__(self, root: Path, files: dict[str, bytes]) -> None:
        self.root = root
        for rel, data in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)

    def read(self, path: Path) -> FileSnapshot:
        if path.is_dir():
            return FileSnapshot(text=None, is_dir=True)
        if not path.exists():
            return FileSnapshot(text=None)
        return FileSnapshot(text=path.read_bytes().decode("utf-8"))


def _plan(tmp_path: Path, files: dict[str, bytes], *blocks: Block):
    disk = _Disk(tmp_path, files)
    parsed = ParseResult(blocks=list(blocks))
    for i, block in enumerate(parsed.blocks):
        block.index = i
    return plan_edits(parsed, disk.read, [tmp_path], dry_run=True)


@pytest.mark.parametrize("original", [
    b"a\r\nb\r\nc\r\n",         # CRLF
    "\ufeffa\nb\nc\n".encode(),  # BOM
    b"a\nb\nc",                  # no final newline
])
def test_the_file_keeps_its_eol_bom_and_final_newline(tmp_path: Path, original: bytes) -> None:
    result = _plan(tmp_path, {"f.txt": original}, _block(["a", "B", "c"], "f.txt"))
    assert [b.status for b in result.blocks] == ["validated"]
    [edit] = [c for c in result.changes if isinstance(c, FileEdit)]
    text = original.decode("utf-8")
    assert edit.new_text == text.replace("\ufeff", "").replace("b", "B")
    assert len(edit.edits) == 1 and edit.edits[0].new_text.strip() == "B"


def test_a_missing_file_is_created(tmp_path: Path) -> None:
    result = _plan(tmp_path, {}, _block(["VALUE = 1"], "pkg/new.py"))
    assert [b.status for b in result.blocks] == ["validated"]
    assert ResourceOp("create", tmp_path / "pkg/new.py") in result.changes
    [edit] = [c for c in result.changes if isinstance(c, FileEdit)]
    assert edit.new_text == "VALUE = 1\n"


def test_a_created_file_with_a_placeholder_is_refused(tmp_path: Path) -> None:
    result = _plan(tmp_path, {}, _block(["import os", "# ... rest of code ..."], "new.py"))
    [block] = result.blocks
    assert block.status == "failed" and "elision placeholder" in (block.reason or "")
    assert result.changes == []


def test_a_directory_and_an_unchanged_file(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    result = _plan(tmp_path, {"same.py": b"x = 1\n"},
                   _block(["x"], "pkg"), _block(["x = 1"], "same.py"))
    assert [(b.status, b.reason) for b in result.blocks] == [
        ("failed", "Path is a directory: pkg"), ("already-applied", None)]
    assert result.changes == []
