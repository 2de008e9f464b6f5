"""unified-diff parsing (``git diff`` / ``diff -u`` output, docs/formats.md "unified-diff")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Block, Hunk
from lsp_server.parsing import parse_response, unified_diff
from lsp_server.parsing.headerless_hunks import HEADERLESS

from .hunk_strategies import (
    block_fields,
    blocks_of,
    found_by,
    hunks,
    near_valid_text,
    no_internal_errors,
    path,
    warnings_of,
)


def blocks(text: str) -> list[Block]:
    return blocks_of(unified_diff.find_blocks, text)


def warnings(text: str) -> list[str]:
    return warnings_of(unified_diff.find_blocks, text)


def fenced(*lines: str) -> str:
    return "\n".join(["```diff", *lines, "```"]) + "\n"


UPDATE = fenced(
    "--- a/src/app.py",
    "+++ b/src/app.py",
    "@@ -4,3 +4,3 @@ def greet(name):",
    " def greet(name):",
    '-    print("Hi " + name)',
    '+    print(f"Hello, {name}!")',
    " ",
    "@@ -20 +20,2 @@",
    "-x = 1",
    "+x = 2",
    "+y = 3",
)


def test_update_with_two_hunks() -> None:
    [block] = blocks(UPDATE)
    assert (block.format, block.file, block.op, block.move_to) == (
        "unified-diff", "src/app.py", "update", None)
    first, second = block.hunks
    assert (first.header, first.old_start, first.anchor) == ("-4,3 +4,3", 4, None)
    assert first.lines == [(" ", "def greet(name):"), ("-", '    print("Hi " + name)'),
                           ("+", '    print(f"Hello, {name}!")'), (" ", "")]
    assert (second.header, second.old_start) == ("-20 +20,2", 20)
    assert (second.old, second.new) == (["x = 1"], ["x = 2", "y = 3"])
    assert (block.response_line, block.end_line) == (1, 12)
    assert [h.response_line for h in block.hunks] == [3, 8]
    assert block.raw == "\n".join(UPDATE.split("\n")[1:12])


def test_create_and_delete_with_dev_null() -> None:
    text = ("--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1,3 @@\n+# New\n+\n+Text.\n"
            "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n")
    created, deleted = blocks(text)
    assert (created.file, created.op, created.new, created.hunks) == (
        "docs/new.md", "create", ["# New", "", "Text."], None)
    assert (deleted.file, deleted.op, deleted.hunks) == ("old.txt", "delete", None)


def test_prefixes_timestamps_and_quoting() -> None:
    text = ("--- src/a.py\t2024-01-01 10:00:00.000000000 +0100\n"
            "+++ src/a.py\t2024-01-02 10:00:00.000000000 +0100\n@@ -1 +1 @@\n-a\n+b\n\n"
            '--- "a/na\\303\\257ve file.txt"\n+++ "b/na\\303\\257ve file.txt"\n'
            "@@ -1 +1 @@\n-a\n+b\n\n--- a/\n+++ b/\n@@ -1 +1 @@\n-a\n+b\n")
    assert [b.file for b in blocks(text)] == ["src/a.py", "naïve file.txt", "a/"]


def test_git_extended_headers_and_renames() -> None:
    text = "\n".join([
        "diff --git a/src/old.py b/src/new.py", "similarity index 90%",
        "rename from src/old.py", "rename to src/new.py", "index 83db48f..bf269f4 100644",
        "--- a/src/old.py", "+++ b/src/new.py", "@@ -1,2 +1,2 @@", " x", "-a", "+b",
        "diff --git a/m.sh b/m.sh", "old mode 100644", "new mode 100755",
        "diff --git a/same.txt b/moved/same.txt", "similarity index 100%",
        "rename from same.txt", "rename to moved/same.txt",
        "diff --git a/empty.txt b/empty.txt", "new file mode 100644",
        "index 0000000..e69de29",
        "diff --git a/gone.txt b/gone.txt", "deleted file mode 100644",
        "index e69de29..0000000",
        "diff --git a/logo.png b/logo.png", "index 1..2 100644",
        "Binary files a/logo.png and b/logo.png differ",
        "The end.", "",
    ])
    assert [(b.file, b.op, b.move_to) for b in blocks(text)] == [
        ("src/old.py", "update", "src/new.py"), ("same.txt", "rename", "moved/same.txt"),
        ("empty.txt", "create", None), ("gone.txt", "delete", None)]
    assert warnings(text) == [
        "unified diff: a git header with no changes to apply (mode change only?); skipped",
        "unified diff: binary diffs cannot be applied; skipped"]


def test_different_paths_without_git_header_are_a_move() -> None:
    [block] = blocks("--- a/old/name.py\n+++ b/new/name.py\n@@ -1 +1 @@\n-a\n+b\n")
    assert (block.file, block.move_to, block.op) == ("old/name.py", "new/name.py", "update")


def test_no_newline_marker_is_ignored() -> None:
    [block] = blocks("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"
                     "\\ No newline at end of file\n")
    assert block.hunks[0].lines == [("-", "a"), ("+", "b")]


def test_wrong_counts_do_not_delimit_hunks() -> None:
    too_small = fenced("--- a/x", "+++ b/x", "@@ -1,1 +1,1 @@", " a", "-b", "+c", " d", " e")
    assert blocks(too_small)[0].hunks[0].old == ["a", "b", "d", "e"]
    too_large = fenced("--- a/x", "+++ b/x", "@@ -1,9 +1,9 @@", "-b", "+c")
    assert blocks(too_large)[0].hunks[0].lines == [("-", "b"), ("+", "c")]
    assert warnings(too_small) == warnings(too_large) == []


def test_empty_lines_inside_are_context_and_trailing_ones_are_not() -> None:
    text = "--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n a\n\n-b\n+c\n\n\n@@ -9 +9 @@\n-y\n+z\n\n\nDone.\n"
    first, second = blocks(text)[0].hunks
    assert first.lines == [(" ", "a"), (" ", ""), ("-", "b"), ("+", "c")]
    assert second.lines == [("-", "y"), ("+", "z")]


def test_counts_met_at_an_empty_line_end_the_hunk_before_a_list() -> None:
    text = "--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-a\n+b\n\n- first point\n- second point\n"
    [found] = found_by(unified_diff.find_blocks, text)
    assert found.blocks[0].hunks[0].lines == [("-", "a"), ("+", "b")]
    assert (found.blocks[0].end_line, found.end) == (5, 5)
    assert [w.message for w in found.warnings] == [
        "unified diff: the hunk ends here as its header's counts say; 2 diff-like line(s) "
        "after this empty line are not part of it"]


def test_a_following_file_header_ends_the_hunk() -> None:
    text = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n"
    assert [(b.file, b.hunks[0].lines) for b in blocks(text)] == [
        ("x", [("-", "a"), ("+", "b")]), ("y", [("-", "c"), ("+", "d")])]


def test_lenient_hunk_headers() -> None:
    [block] = blocks(fenced("--- a/x", "+++ b/x", "@@ ... @@", "-a", "+b", "@@", "-c", "+d",
                            "@@ -3,1 +3,1@@", "-e", "+f"))
    assert [(h.header, h.old_start) for h in block.hunks] == [("...", None), ("", None),
                                                              ("-3,1 +3,1", 3)]


@pytest.mark.parametrize(("text", "message"), [
    ("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n", "the response ends inside this diff"),
    ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b", "the response ends inside this diff"),
    ("--- a/x\n+++ b/x\n", "the response ends inside this diff"),
    ("--- /dev/null\n+++ b/x\n", "the response ends inside this diff"),
    # Naming two paths is a move, yet at the very end its hunks (or the rest of the second
    # path: a response streamed in) may still come.
    ("--- a/src/app.py\n+++ b/src/ap", "the response ends inside this diff"),
    ("--- a/x\n+++ b/y\n", "the response ends inside this diff"),
    ("diff --git a/e b/e\nnew file mode 100644\n", "the response ends after this git header"),
    ("--- a/x\n+++ b/x\nprose\n", "no hunks after the '---'/'+++' lines"),
    ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n@@ -2 +2 @@\n-a\n+b\n```\n", "has no lines"),
    ("--- /dev/null\n+++ /dev/null\n@@ -0,0 +0,0 @@\n```\n", "both sides are /dev/null"),
])
def test_truncated_and_malformed_files_are_warnings(text: str, message: str) -> None:
    assert blocks(text) == []
    [warning] = warnings(text)
    assert message in warning and warning.endswith("; skipped")


def test_complete_at_the_very_end() -> None:
    assert blocks("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")[0].file == "x"
    assert blocks("--- a/x\n+++ /dev/null\n")[0].op == "delete"


def test_start_candidates_need_their_partner_line() -> None:
    assert found_by(unified_diff.find_blocks, "--- a/x\nno plus line\n--- \n") == []
    assert found_by(unified_diff.find_blocks, "diff --git a/x b/x\nprose\n") == []


def test_in_parse_response_the_diff_is_one_block_per_file() -> None:
    result = parse_response("Apply:\n\n" + UPDATE + "\nand\n\n" + fenced(
        "--- a/y.py", "+++ b/y.py", "@@ -1 +1 @@", "-a", "+b"))
    assert [(b.format, b.file, b.index) for b in result.blocks] == [
        ("unified-diff", "src/app.py", 0), ("unified-diff", "y.py", 1)]


# ------------------------------------------------------------------ render and properties


def test_render_computes_consistent_headers() -> None:
    block = Block("unified-diff", "a.py", hunks=[
        Hunk("-3,9 +3,9", [(" ", "x"), ("-", "a"), ("+", "b"), ("+", "c")], old_start=3),
        Hunk("", [("+", "tail")], old_start=10),
    ])
    assert unified_diff.render(block) == (
        "```diff\n--- a/a.py\n+++ b/a.py\n@@ -3,2 +3,3 @@\n x\n-a\n+b\n+c\n"
        "@@ -10,0 +12,1 @@\n+tail\n```\n")
    assert unified_diff.render(Block("unified-diff", "n.txt", op="create", new=["x"])) == (
        "```diff\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,1 @@\n+x\n```\n")
    renamed = unified_diff.render(Block("unified-diff", "a.py", op="rename", move_to="b.py"))
    assert renamed == "```diff\ndiff --git a/a.py b/b.py\nrename from a.py\nrename to b.py\n```\n"
    assert unified_diff.render(Block("unified-diff", "q.py", hunks=[
        Hunk("", [(" ", "```")])])).startswith("````diff\n")
    with pytest.raises(ValueError):
        unified_diff.render(Block("search-replace", "a.py", op="append"))


@st.composite
def unified_blocks(draw: st.DrawFn) -> Block:
    op = draw(st.sampled_from(["update", "create", "delete", "rename"]))
    block = Block("unified-diff", draw(path), op=op)
    if op == "update":
        block.hunks = draw(hunks(anchors=False))
        start = 1
        for hunk in block.hunks:
            hunk.old_start = start
            start += len(hunk.old) + draw(st.integers(1, 5))
        block.move_to = draw(st.one_of(st.none(), path.filter(lambda p: p != block.file)))
    elif op == "create":
        block.new = draw(st.lists(st.text(max_size=10).filter(lambda t: "\n" not in t
                                                              and "\r" not in t), max_size=4))
    elif op == "rename":
        block.move_to = draw(path.filter(lambda p: p != block.file))
    return block


@given(st.lists(unified_blocks(), min_size=1, max_size=4))
@settings(max_examples=150, deadline=None)
def test_render_parse_round_trip(original: list[Block]) -> None:
    text = "".join(unified_diff.render(b) for b in original)
    parsed = blocks(text)
    assert [block_fields(b) for b in parsed] == [block_fields(b) for b in original]
    for before, after in zip(original, parsed, strict=True):
        if before.hunks is not None:
            assert [h.old_start for h in after.hunks] == [h.old_start for h in before.hunks]
    assert warnings(text) == []


@given(st.text())
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_never_raises(text: str) -> None:
    found_by(unified_diff.find_blocks, text)
    found_by(unified_diff.find_blocks, "--- a/x\n+++ b/x\n@@ -1 +1 @@\n" + text)
    no_internal_errors(text)


@given(near_valid_text())
@settings(max_examples=300, deadline=None)
def test_near_valid_text_never_raises(text: str) -> None:
    found_by(unified_diff.find_blocks, text)
    no_internal_errors(text)


def test_zero_counts_met_before_any_line() -> None:
    text = "--- a/x\n+++ b/x\n@@ -0,0 +0,0 @@\n\n+a\n```\n"
    assert blocks(text) == []
    assert warnings(text) == [
        "unified diff: the hunk ends here as its header's counts say; 1 diff-like line(s) after "
        "this empty line are not part of it",
        "unified diff: the hunk '@@ -0,0 +0,0 @@' has no lines; skipped"]


# ------------------------------------------------------------------ hostile input (issue 13)


@pytest.mark.parametrize("header", [
    "@@ -" + "1" * 4400 + ",1 +1,1 @@", "@@ -1," + "2" * 4400 + " +1,1 @@",
    "@@ -1,1 +1," + "3" * 5000 + " @@", "@@ -" + "1" * 19 + " +1 @@",
])
def test_a_line_number_of_thousands_of_digits_fails_only_its_file(header: str) -> None:
    # int() raises past 4,300 digits: the parser raised and every unified-diff block was lost
    text = ("--- a/x.py\n+++ b/x.py\n" + header + "\n-a\n+b\n"
            "--- a/y.py\n+++ b/y.py\n@@ -1 +1 @@\n-a\n+b\n")
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["y.py"]
    (warning,) = result.warnings
    assert warning.response_line == 0
    assert "the hunk header on response line 3 has a line number of more than 18 digits" in (
        warning.message)


def test_a_file_past_the_block_line_limit_is_skipped_and_the_next_file_read() -> None:
    text = ("--- a/x.py\n+++ b/x.py\n" + "@@ -1 +1 @@\n+x\n" * 6
            + "--- a/y.py\n+++ b/y.py\n@@ -1 +1 @@\n-a\n+b\n")
    result = parse_response(text, max_block_lines=5)
    assert [b.file for b in result.blocks] == ["y.py"]
    assert "its hunks run over more than 5 lines (maxBlockLines)" in result.warnings[0].message
    assert [b.file for b in parse_response(text).blocks] == ["x.py", "y.py"]


# ------------------------------------------------------------------ text between hunks (issue 18)


def test_prose_between_two_hunks_is_ignored_with_a_warning_and_later_hunks_read() -> None:
    text = fenced("--- a/x.py", "+++ b/x.py", "@@ -1,3 +1,3 @@", " a", "-b", "+c",
                  "Then also change the end:", "", "@@ -10,3 +10,3 @@", " x", "-y", "+z")
    result = parse_response(text)
    [block] = result.blocks
    assert [h.header for h in block.hunks] == ["-1,3 +1,3", "-10,3 +10,3"]
    (warning,) = result.warnings
    assert warning.response_line == 7
    assert "1 line(s) of text between two hunks are not part of the diff and are ignored: " \
           "'Then also change the end:'" in warning.message


@pytest.mark.parametrize("between", [
    ["```", "Then:", "```diff"],  # the fence closed: the diff is over
    ["--- a/y.py", "+++ b/y.py"],  # the next file
    ["Text."] * 12,  # too far to be the same diff
    ["Text.", "@@ def f():"],  # an anchor-style header is another format's
])
def test_text_between_hunks_that_ends_the_diff(between: list[str]) -> None:
    text = "\n".join(["--- a/x.py", "+++ b/x.py", "@@ -1 +1 @@", "-b", "+c", *between,
                      "@@ -10 +10 @@", "-y", "+z"]) + "\n"
    first = parse_response(text).blocks[0]
    assert first.file == "x.py" and len(first.hunks) == 1


# issue 23: @@ hunks in a fence with no ---/+++ above them vanished without a word.
@pytest.mark.parametrize("fence", ["```diff\n@@ -1,2 +1,2 @@", "app.py\n```\n@@ -1,2 +1,2 @@",
                                   "```diff\n@@"])
def test_hunks_without_file_headers_in_a_fence_are_a_warning(fence: str) -> None:
    text = f"Change it:\n\n{fence}\n def f():\n-    return 1\n+    return 2\n```\n"
    result = parse_response(text)
    assert result.blocks == []
    [warning] = result.warnings
    assert warning.message == HEADERLESS
    assert text.split("\n")[warning.response_line].startswith("@@")


def test_hunks_with_their_headers_or_in_another_format_say_nothing_more() -> None:
    headed = "```diff\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n```\n"
    assert parse_response(headed).warnings == [] and len(parse_response(headed).blocks) == 1
    patched = ("```\n*** Begin Patch\n*** Update File: x.py\n@@ -1 +1 @@\n-a\n+b\n"
               "*** End Patch\n```\n")
    assert parse_response(patched).warnings == [] and len(parse_response(patched).blocks) == 1
    prose = "@@ -1 +1 @@ is a hunk header.\n"  # outside any fence
    assert parse_response(prose).warnings == []

