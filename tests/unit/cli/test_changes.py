"""What the report says each file undergoes (lsp_server.cli.changes): summaries, and the diff
and line counts taken from the planned edits."""

from __future__ import annotations

import difflib
import random
import re
from pathlib import Path

import pytest

from lsp_server import plan_response
from lsp_server.cli.changes import (
    FileSummary,
    diff_lines,
    line_counts,
    planned_regions,
    summarise,
)
from lsp_server.model import FileEdit, FileSnapshot, ResourceOp, TextEdit, text_to_lines

ROOT = Path("/ws")
_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")


def _patched(old: list[str], diff: list[str]) -> list[str]:
    """``old`` with the hunks of ``diff`` applied, checking every context and removed line
    and every header's ranges."""
    new: list[str] = []
    position = 0
    for line in _body(diff):
        header = _HEADER.match(line)
        if header:
            old_start, old_len, new_start, new_len = header.groups()
            old_len_n = 1 if old_len is None else int(old_len)
            start = int(old_start) - (1 if old_len_n else 0)
            assert start >= position
            new += old[position:start]
            position = start
            assert int(new_start) - (1 if (new_len is None or int(new_len)) else 0) == len(new)
            continue
        kind, text = line[0], line[1:]
        if kind in " -":
            assert old[position] == text
            position += 1
        if kind in " +":
            new.append(text)
    return new + old[position:]


def _body(diff: list[str]) -> list[str]:
    """The hunks: the lines from the first ``@@`` on (a removed "-- x" is "--- x")."""
    first = next((i for i, line in enumerate(diff) if line.startswith("@@")), len(diff))
    return diff[first:]


def _counted(diff: list[str]) -> tuple[int, int]:
    body = [line for line in _body(diff) if not line.startswith("@@")]
    return (sum(line.startswith("+") for line in body),
            sum(line.startswith("-") for line in body))


def _plan_one_file(text: str, response: str) -> FileSummary:
    def read(path: Path) -> FileSnapshot:
        return FileSnapshot(text if path == ROOT / "f.txt" else None)

    plan = plan_response(response, read, [ROOT])
    assert all(b.status == "validated" for b in plan.blocks), [b.reason for b in plan.blocks]
    (summary,) = summarise(plan.changes)
    return summary


def _search_replace(old: list[str], new: list[str]) -> str:
    return ("f.txt\n<<<<<<< SEARCH\n" + "".join(f"{line}\n" for line in old) + "=======\n"
            + "".join(f"{line}\n" for line in new) + ">>>>>>> REPLACE\n")


def _random_plan(seed: int) -> tuple[str, FileSummary]:
    rng = random.Random(seed)
    # Unique lines every 10 (where blocks start) between repeated ones: blanks, braces and
    # lines that look like diff headers.
    lines = [f"line {i}" if i % 10 == 0 or rng.random() < 0.5
             else rng.choice(["", "}", "--", "++ y", "@@ z"]) for i in range(200)]
    eol = rng.choice(["\n", "\r\n", "\r"])
    text = eol.join(lines) + rng.choice([eol, ""])  # with and without a final line break
    blocks = []
    for start in sorted(rng.sample(range(0, 200, 10), 4)):
        old = lines[start : start + rng.randint(1, 4)]
        new = [rng.choice([line, line.upper(), "", "-- added"]) for line in old]
        new += ["inserted"] * rng.randint(0, 2)
        blocks.append(_search_replace(old, new))
    return text, _plan_one_file(text, "".join(blocks))


@pytest.mark.parametrize("seed", range(60))
def test_the_diff_is_the_planned_change_and_the_counts_are_its_lines(seed: int) -> None:
    text, summary = _random_plan(seed)
    assert summary.new_text is not None
    (edit,) = summary.edits
    assert planned_regions(edit) is not None  # the planned edits, not a comparison
    diff = diff_lines(summary, [ROOT])
    assert diff[:2] == ["--- a/f.txt", "+++ b/f.txt"]
    assert _patched(text_to_lines(text), diff) == text_to_lines(summary.new_text)
    assert line_counts(summary) == _counted(diff)


@pytest.mark.parametrize("old, new", [(["last"], ["last", "more"]), (["b", "last"], []),
                                      (["last"], ["LAST"]), (["a", "b", "last"], []),
                                      (["a"], ["A", "A2"])])
def test_the_end_of_a_file_without_a_final_newline(old: list[str], new: list[str]) -> None:
    # There the planner's edits start at the end of a line or end at the end of the file,
    # not at line starts.
    text = "a\nb\nlast"
    summary = _plan_one_file(text, _search_replace(old, new))
    assert summary.new_text is not None and planned_regions(summary.edits[0]) is not None
    diff = diff_lines(summary, [ROOT])
    assert _patched(text_to_lines(text), diff) == text_to_lines(summary.new_text)
    assert line_counts(summary) == _counted(diff)


def test_counts_are_the_lines_the_edit_replaces_and_writes() -> None:
    # The block keeps its blank line and replaces "b" by a "}" before it: 1 line removed,
    # 1 added. A diff of the whole files pairs the file's blank lines otherwise and counts
    # 2 and 2 (difflib: "", "b" replaced by "}", "").
    text = "}\nx\na\n\nb\n\n\n\n"
    summary = _plan_one_file(text, _search_replace(["", "b"], ["}", ""]))
    assert summary.new_text == "}\nx\na\n}\n\n\n\n\n"
    assert line_counts(summary) == (1, 1)
    assert diff_lines(summary, [ROOT])[2:] == [
        "@@ -1,8 +1,8 @@", " }", " x", " a", "+}", " ", "-b", " ", " ", " "]


@pytest.mark.parametrize("changed", [(2, 9, 20), (0, 29), (5, 12), (5, 13), (0, 1, 2)])
def test_on_distinct_lines_the_diff_is_difflibs(changed: tuple[int, ...]) -> None:
    # Where there is one way to pair the lines, the hunks, their context (shared when two
    # changes are at most 6 lines apart) and headers are those of difflib's unified_diff.
    text = "".join(f"{i}\n" for i in range(30))
    blocks = "".join(_search_replace([str(i)], [f"x{i}", "new"] if i % 2 else [])
                     for i in changed)
    summary = _plan_one_file(text, blocks)
    assert summary.new_text is not None
    expected = difflib.unified_diff(text_to_lines(text), text_to_lines(summary.new_text),
                                    "a/f.txt", "b/f.txt", lineterm="")
    assert diff_lines(summary, [ROOT]) == list(expected)


def test_lines_that_look_like_diff_headers_are_counted() -> None:
    # Removing "-- old" is the diff line "--- old", adding "++ new" is "+++ new": lines,
    # not file headers.
    summary = _plan_one_file("-- old\nselect 1;\n", _search_replace(["-- old"], ["++ new"]))
    assert line_counts(summary) == (1, 1)
    assert diff_lines(summary, [ROOT])[-3:] == ["--- old", "+++ new", " select 1;"]


def test_the_diff_splits_lines_as_the_engine_does() -> None:
    # str.splitlines also breaks at U+2028, U+0085, form feeds...: the diff's line numbers
    # and counts then disagreed with the engine's (and the editor's) lines.
    summary = _plan_one_file("a\u2028b\x0cc\nd\n", _search_replace(["d"], ["D"]))
    assert diff_lines(summary, [ROOT])[2:] == ["@@ -1,2 +1,2 @@", " a\u2028b\x0cc", "-d", "+D"]
    assert line_counts(summary) == (1, 1)


def test_edits_of_another_shape_are_compared_whole() -> None:
    # Not what the planner makes (a change inside a line): the texts are compared instead.
    edit = FileEdit(ROOT / "w.txt", None, [TextEdit(1, 1, 1, 2, "X")], "ab\ncd\n", "ab\ncX\n")
    assert planned_regions(edit) is None
    (summary,) = summarise([edit])
    assert line_counts(summary) == (1, 1)
    assert diff_lines(summary, [ROOT])[2:] == ["@@ -1,2 +1,2 @@", " ab", "-cd", "+cX"]


def test_summaries_fold_a_create_and_its_fill_and_an_edit_and_its_rename(tmp_path: Path) -> None:
    gone = tmp_path / "gone.txt"
    gone.write_text("one\ntwo\n")
    changes: list[FileEdit | ResourceOp] = [
        ResourceOp("create", tmp_path / "new.txt"),
        FileEdit(tmp_path / "new.txt", None, [TextEdit(0, 0, 0, 0, "hi\n")], "", "hi\n"),
        FileEdit(tmp_path / "a.txt", 1, [TextEdit(0, 0, 1, 0, "A\n")], "a\n", "A\n"),
        ResourceOp("rename", tmp_path / "a.txt", tmp_path / "b.txt"),
        ResourceOp("rename", tmp_path / "c.txt", tmp_path / "d.txt"),
        ResourceOp("delete", gone),
        ResourceOp("create", tmp_path / "empty.txt"),
    ]
    created, renamed, moved, deleted, empty = summarise(changes)
    assert (created.kind, line_counts(created)) == ("create", (1, 0))
    assert (renamed.kind, renamed.new_path, line_counts(renamed)) == (
        "rename", tmp_path / "b.txt", (1, 1))
    assert (moved.kind, line_counts(moved)) == ("rename", (0, 0))
    assert (deleted.kind, deleted.old_text, line_counts(deleted)) == ("delete", "one\ntwo\n",
                                                                      (0, 2))
    assert diff_lines(moved, [tmp_path]) == ["rename from c.txt", "rename to d.txt"]
    assert diff_lines(created, [tmp_path]) == [
        "--- /dev/null", "+++ b/new.txt", "@@ -0,0 +1 @@", "+hi"]
    assert diff_lines(renamed, [tmp_path]) == [
        "rename from a.txt", "rename to b.txt", "--- a/a.txt", "+++ b/b.txt", "@@ -1 +1 @@",
        "-a", "+A"]
    assert diff_lines(deleted, [tmp_path]) == [
        "--- a/gone.txt", "+++ /dev/null", "@@ -1,2 +0,0 @@", "-one", "-two"]
    assert diff_lines(empty, [tmp_path]) == [
        "--- /dev/null", "+++ b/empty.txt", "(new empty file)"]
