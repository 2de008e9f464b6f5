"""What the report says each file undergoes (lsp_server.cli.changes): summaries, diffs and
line counts."""

from __future__ import annotations

from pathlib import Path

from lsp_server.cli.changes import FileSummary, diff_lines, line_counts, summarise
from lsp_server.model import FileEdit, ResourceOp, TextEdit

ROOT = Path("/ws")


def test_lines_that_look_like_diff_headers_are_counted() -> None:
    # Removing "-- old" is the diff line "--- old", adding "++ new" is "+++ new": lines,
    # not file headers.
    summary = FileSummary("edit", ROOT / "q.sql", old_text="-- old\nselect 1;\n",
                          new_text="++ new\nselect 1;\n")
    assert line_counts(summary) == (1, 1)
    assert diff_lines(summary, [ROOT])[-3:] == ["--- old", "+++ new", " select 1;"]


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
    ]
    created, renamed, moved, deleted = summarise(changes)
    assert (created.kind, line_counts(created)) == ("create", (1, 0))
    assert (renamed.kind, renamed.new_path, line_counts(renamed)) == (
        "rename", tmp_path / "b.txt", (1, 1))
    assert (moved.kind, line_counts(moved)) == ("rename", (0, 0))
    assert (deleted.kind, deleted.old_text, line_counts(deleted)) == ("delete", "one\ntwo\n",
                                                                      (0, 2))
    assert diff_lines(moved, [tmp_path]) == ["rename from c.txt", "rename to d.txt"]
    assert diff_lines(created, [tmp_path]) == [
        "--- /dev/null", "+++ b/new.txt", "@@ -0,0 +1 @@", "+hi"]


def test_the_diff_splits_lines_as_the_engine_does() -> None:
    # str.splitlines also breaks at U+2028, U+0085, form feeds...: the diff's line numbers
    # and counts then disagreed with the engine's (and the editor's) lines.
    summary = FileSummary("edit", ROOT / "u.txt", old_text="a\u2028b\x0cc\nd\n",
                          new_text="a\u2028b\x0cc\nD\n")
    assert diff_lines(summary, [ROOT])[2:] == ["@@ -1,2 +1,2 @@", " a\u2028b\x0cc", "-d", "+D"]
    assert line_counts(summary) == (1, 1)
