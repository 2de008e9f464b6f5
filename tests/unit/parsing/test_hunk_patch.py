"""hunk-patch parsing (seed 003 and docs/formats.md "hunk-patch")."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Block, Hunk
from lsp_server.parsing import hunk_patch, parse_response
from lsp_server.parsing.hunk_syntax import PLAIN_HUNKS, plain_hunks

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


def call(**fields: object) -> str:
    return "edit " + json.dumps(fields)


def blocks(text: str) -> list[Block]:
    return blocks_of(hunk_patch.find_blocks, text)


def warnings(text: str) -> list[str]:
    return warnings_of(hunk_patch.find_blocks, text)


def one_hunk(diff: str) -> Hunk:
    [block] = blocks(call(path="a.py", op="update", diff=diff))
    [hunk] = block.hunks
    return hunk


# ------------------------------------------------------------------ seed 003's examples


def test_seed_create() -> None:
    [block] = blocks('edit {"path":"hello.txt","op":"create","diff":"Hello\\n"}')
    assert (block.format, block.file, block.op) == ("hunk-patch", "hello.txt", "create")
    assert block.new == ["Hello"]
    assert block.create_text == "Hello\n"
    assert block.hunks is None


def test_seed_update_with_anchor() -> None:
    [block] = blocks('edit {"path":"src/app.py","op":"update","diff":"@@ def greet():\\n '
                     "def greet():\\n-print('Hi')\\n+print('Hello')\\n\"}")
    assert (block.file, block.op, block.move_to) == ("src/app.py", "update", None)
    [hunk] = block.hunks
    assert hunk.anchor == "def greet():"
    assert hunk.header == "def greet():"
    assert hunk.lines == [(" ", "def greet():"), ("-", "print('Hi')"), ("+", "print('Hello')")]
    assert hunk.old == ["def greet():", "print('Hi')"]
    assert hunk.new == ["def greet():", "print('Hello')"]


def test_seed_delete() -> None:
    [block] = blocks('edit {"path":"obsolete.txt","op":"delete"}')
    assert (block.file, block.op, block.hunks) == ("obsolete.txt", "delete", None)


def test_seed_rename_example_is_a_no_op_hunk_and_an_error() -> None:
    # Seed 003's rename example carries the placeholder diff "@@\n ...\n": a hunk without a
    # change, which the seed itself calls an error.
    text = ('edit {"path":"src/app.py","op":"update","rename":"src/main.py",'
            '"diff":"@@\\n ...\\n"}')
    assert blocks(text) == []
    assert warnings(text) == ["hunk-patch tool call: hunk 1 of the diff has no '-' or '+' line; "
                              "skipped"]


def test_update_and_rename() -> None:
    [block] = blocks(call(path="src/app.py", op="update", rename="src/main.py",
                          diff="@@\n-a\n+b\n"))
    assert (block.file, block.op, block.move_to) == ("src/app.py", "update", "src/main.py")
    assert block.hunks[0].lines == [("-", "a"), ("+", "b")]


def test_rename_without_diff_is_a_pure_rename() -> None:
    for text in (call(path="a.py", op="update", rename="b.py"),
                 call(path="a.py", op="update", rename="b.py", diff="")):
        [block] = blocks(text)
        assert (block.op, block.file, block.move_to, block.hunks) == ("rename", "a.py", "b.py",
                                                                      None)


# ------------------------------------------------------------------ where calls are found


def test_response_lines_raw_and_prose_around() -> None:
    text = "I'll make two edits:\n\n" + call(path="a.py", op="delete") + "\nand\n" + call(
        path="b.py", op="create", diff="x\n") + "\nDone."
    found = found_by(hunk_patch.find_blocks, text)
    assert [(f.start, f.end) for f in found] == [(2, 3), (4, 5)]
    first, second = (f.blocks[0] for f in found)
    assert (first.response_line, first.end_line) == (2, 3)
    assert first.raw == call(path="a.py", op="delete")
    assert second.response_line == 4


def test_call_spanning_several_lines() -> None:
    pretty = "edit " + json.dumps({"path": "a.py", "op": "update", "diff": "@@\n-a\n+b\n"},
                                  indent=2)
    text = "Here:\n" + pretty + "\nthanks"
    [found] = found_by(hunk_patch.find_blocks, text)
    assert (found.start, found.end) == (1, 1 + pretty.count("\n") + 1)
    assert found.blocks[0].raw == pretty


def test_edit_must_start_the_line() -> None:
    assert blocks("we edit {\"path\": \"a.py\", \"op\": \"delete\"} here") == []
    assert blocks('edit{"path": "a.py", "op": "delete"}')[0].op == "delete"


def test_json_fence_with_an_object_and_an_array() -> None:
    text = "\n".join([
        "```json",
        json.dumps({"path": "a.py", "op": "delete"}),
        "```",
        "prose",
        "```json",
        "[",
        "  " + json.dumps({"path": "b.py", "op": "create", "diff": "hi"}) + ",",
        "  " + json.dumps({"note": "not a tool call"}) + ",",
        "  " + json.dumps({"path": "c.py", "op": "update", "rename": "d.py"}),
        "]",
        "```",
    ])
    found = found_by(hunk_patch.find_blocks, text)
    assert [(f.start, f.end) for f in found] == [(0, 3), (4, 11)]
    assert [(b.file, b.op, b.response_line) for f in found for b in f.blocks] == [
        ("a.py", "delete", 1), ("b.py", "create", 6), ("c.py", "rename", 8)]


def test_json_fence_with_several_objects_one_per_line() -> None:
    text = "```json\n" + call(path="x", op="delete")[5:] + "\n" + call(
        path="y", op="delete")[5:] + "\n```\n"
    assert [b.file for b in blocks(text)] == ["x", "y"]


def test_json_fence_holding_edit_lines_reads_the_edit_lines() -> None:
    text = "```json\n" + call(path="a.py", op="delete") + "\n```\n"
    [found] = found_by(hunk_patch.find_blocks, text)
    assert (found.start, [b.file for b in found.blocks]) == (1, ["a.py"])


def test_json_fences_that_are_not_tool_calls_are_left_alone() -> None:
    text = '```json\n{"name": "x", "version": 2}\n```\n```json\nnot json at all\n```\n'
    assert found_by(hunk_patch.find_blocks, text) == []


def test_broken_json_in_a_fence_that_looks_like_a_tool_call_is_reported() -> None:
    text = '```json\n{"path": "a.py", "op": "update", "diff": "@@\n```\n'
    assert warnings(text) == ["hunk-patch tool call in a json fence is not valid JSON "
                              "(truncated?); skipped"]


def test_fence_wins_over_the_edit_lines_inside_it_in_parse_response() -> None:
    text = "```json\n" + json.dumps([{"path": "a.py", "op": "delete"}]) + "\n```\n"
    result = parse_response(text)
    assert [(b.file, b.format) for b in result.blocks] == [("a.py", "hunk-patch")]


# ------------------------------------------------------------------ diff grammar


def test_bare_header() -> None:
    hunk = one_hunk("@@\n-a\n+b\n")
    assert (hunk.anchor, hunk.header) == (None, "")


def test_placeholder_header_at_at_is_bare() -> None:
    assert one_hunk("@@ @@\n-a\n+b\n").anchor is None


def test_anchor_is_the_text_after_at_at_space() -> None:
    assert one_hunk("@@   def f():  \n-a\n+b\n").anchor == "  def f():  "
    assert one_hunk("@@def f():\n-a\n+b\n").anchor == "def f():"


def test_unified_style_header_is_bare_or_takes_its_heading() -> None:
    hunk = one_hunk("@@ -1,2 +1,2 @@\n-a\n+b\n")
    assert (hunk.anchor, hunk.header, hunk.old_start) == (None, "", None)
    hunk = one_hunk("@@ -10,3 +10,4 @@ def main():\n-a\n+b\n")
    assert (hunk.anchor, hunk.header) == ("def main():", "def main():")


def test_empty_body_line_is_an_empty_context_line() -> None:
    hunk = one_hunk("@@\n def f():\n\n-    pass\n+    return 1\n")
    assert hunk.lines == [(" ", "def f():"), (" ", ""), ("-", "    pass"),
                          ("+", "    return 1")]


def test_trailing_empty_lines_of_a_hunk_are_dropped() -> None:
    block = blocks(call(path="a.py", op="update", diff="@@\n-a\n+b\n\n\n@@ x\n-c\n+d\n\n"))[0]
    assert [h.lines for h in block.hunks] == [[("-", "a"), ("+", "b")], [("-", "c"), ("+", "d")]]
    # A context line written with its space is kept, even at the end.
    assert one_hunk("@@\n-a\n+b\n \n").lines == [("-", "a"), ("+", "b"), (" ", "")]


def test_body_before_the_first_header_is_a_bare_hunk() -> None:
    block = blocks(call(path="a.py", op="update", diff=" x\n-a\n+b\n@@ y\n-c\n+d\n"))[0]
    assert [(h.anchor, h.lines) for h in block.hunks] == [
        (None, [(" ", "x"), ("-", "a"), ("+", "b")]), ("y", [("-", "c"), ("+", "d")])]


def test_several_hunks_and_insert_only_hunk() -> None:
    diff = "@@ import os\n+import sys\n@@ def f():\n-    pass\n+    return 1\n"
    block = blocks(call(path="a.py", op="update", diff=diff))[0]
    assert [(h.anchor, h.old, h.new) for h in block.hunks] == [
        ("import os", [], ["import sys"]), ("def f():", ["    pass"], ["    return 1"])]
    assert all(h.response_line == 0 for h in block.hunks)


def test_crlf_inside_the_json_string_is_normalised() -> None:
    hunk = one_hunk("@@\r\n-a\r\n+b\r\n")
    assert hunk.lines == [("-", "a"), ("+", "b")]


@pytest.mark.parametrize(("diff", "message"), [
    ("@@\n a\n", "hunk 1 of the diff has no '-' or '+' line"),
    ("@@\n-a\n+b\n@@ x\n y\n", "hunk 2 of the diff has no '-' or '+' line"),
    ("@@\n-a\n+b\n@@ empty\n", "hunk 2 of the diff has no '-' or '+' line"),
    ("@@\n-a\nb\n", "diff line 3 does not start with ' ', '-', '+' or '@@': 'b'"),
    ("\n\n", "the update's diff has no hunks"),
])
def test_malformed_diffs(diff: str, message: str) -> None:
    text = call(path="a.py", op="update", diff=diff)
    assert blocks(text) == []
    assert warnings(text) == [f"hunk-patch tool call: {message}; skipped"]


# ------------------------------------------------------------------ create / errors


def test_create_adds_a_final_newline_and_keeps_the_empty_file() -> None:
    [block] = blocks(call(path="a.txt", op="create", diff="one\ntwo"))
    assert (block.new, block.create_text) == (["one", "two"], "one\ntwo\n")
    [empty] = blocks(call(path="b.txt", op="create", diff=""))
    assert (empty.new, empty.create_text) == ([], "")
    [blank] = blocks(call(path="c.txt", op="create", diff="\n"))
    assert (blank.new, blank.create_text) == ([""], "\n")


def test_create_diff_is_verbatim_not_a_hunk() -> None:
    [block] = blocks(call(path="n.md", op="create", diff="@@ not a hunk\n-x\n"))
    assert block.new == ["@@ not a hunk", "-x"]


@pytest.mark.parametrize(("text", "message"), [
    ('edit {"path": "a.py", "op": "update", "diff": "@@\\n-a', "is not valid JSON"),
    ('edit {"path": "a.py", "op": "update" "diff": ""}', "is not valid JSON"),
    ('edit {path: a.py}', "is not valid JSON"),
    (call(op="delete"), 'has no "path" string'),
    (call(path="  ", op="delete"), 'has no "path" string'),
    (call(path="a.py"), 'has no "op" string'),
    (call(path="a.py", op="modify", diff="@@\n-a\n+b\n"),
     "unknown op 'modify' (expected \"create\", \"update\" or \"delete\")"),
    (call(path="a.py", op="update"), 'update without "diff"'),
    (call(path="a.py", op="create"), 'create without "diff" (the file content)'),
    (call(path="a.py", op="update", diff=["@@"]), '"diff" is not a string'),
    (call(path="a.py", op="update", rename=3, diff="@@\n-a\n+b\n"), '"rename" is not a path'),
])
def test_invalid_calls_are_warnings_at_their_line(text: str, message: str) -> None:
    response = "Edits:\n" + text + "\n" + call(path="ok.py", op="delete") + "\n"
    found = found_by(hunk_patch.find_blocks, response)
    assert [b.file for f in found for b in f.blocks] == ["ok.py"]
    [warning] = [w for f in found for w in f.warnings]
    assert warning.response_line == 1
    assert message in warning.message and warning.message.endswith("skipped")


def test_op_is_case_insensitive_and_path_is_trimmed() -> None:
    [block] = blocks(call(path=" a.py ", op="Delete"))
    assert (block.file, block.op) == ("a.py", "delete")


# ------------------------------------------------------------------ render and properties


def test_render_each_op() -> None:
    update = Block("hunk-patch", "a.py", hunks=[Hunk("f", [(" ", "x"), ("-", "a"), ("+", "b")],
                                                     anchor="f")])
    assert hunk_patch.render(update) == (
        'edit {"path": "a.py", "op": "update", "diff": "@@ f\\n x\\n-a\\n+b\\n"}\n')
    assert hunk_patch.render(Block("hunk-patch", "a.py", op="delete")) == (
        'edit {"path": "a.py", "op": "delete"}\n')
    assert hunk_patch.render(Block("hunk-patch", "a.py", op="rename", move_to="b.py")) == (
        'edit {"path": "a.py", "op": "update", "rename": "b.py"}\n')
    assert hunk_patch.render(Block("hunk-patch", "é.txt", op="create", new=["ü"])) == (
        'edit {"path": "é.txt", "op": "create", "diff": "ü\\n"}\n')
    with pytest.raises(ValueError):
        hunk_patch.render(Block("search-replace", "a.py", op="append"))


def test_render_of_a_line_format_block_is_one_bare_hunk() -> None:
    block = Block("edit-v2", "a.py", anchor=["def f():"], old=["    pass"], new=["    return 1"],
                  trailing=["", "x = 1"])
    [parsed] = blocks(hunk_patch.render(block))
    [hunk] = parsed.hunks
    assert hunk.anchor is None
    assert hunk.old == ["def f():", "    pass", "", "x = 1"]
    assert hunk.new == ["def f():", "    return 1", "", "x = 1"]


@st.composite
def hunk_patch_blocks(draw: st.DrawFn) -> Block:
    op = draw(st.sampled_from(["update", "create", "delete", "rename"]))
    block = Block("hunk-patch", draw(path), op=op)
    if op == "update":
        block.hunks = draw(hunks())
        block.move_to = draw(st.one_of(st.none(), path))
    elif op == "create":
        block.new = draw(st.lists(st.text(max_size=10).filter(lambda t: "\n" not in t
                                                              and "\r" not in t), max_size=4))
    elif op == "rename":
        block.move_to = draw(path)
    return block


@given(hunk_patch_blocks())
@settings(max_examples=150, deadline=None)
def test_render_parse_round_trip(block: Block) -> None:
    [parsed] = blocks(hunk_patch.render(block))
    assert block_fields(parsed)[:6] == block_fields(block)[:6]
    if block.hunks is not None:
        assert [(h.anchor, h.lines) for h in parsed.hunks] == [
            (h.anchor, h.lines) for h in block.hunks]


@given(st.text())
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_never_raises(text: str) -> None:
    found_by(hunk_patch.find_blocks, text)
    found_by(hunk_patch.find_blocks, "edit " + text)
    no_internal_errors(text)


@given(near_valid_text())
@settings(max_examples=300, deadline=None)
def test_near_valid_text_never_raises(text: str) -> None:
    found_by(hunk_patch.find_blocks, text)
    no_internal_errors(text)


@given(st.text(max_size=60))
@settings(max_examples=200, deadline=None)
def test_any_diff_string_is_a_block_or_one_warning(diff: str) -> None:
    text = call(path="a.py", op="update", diff=diff)
    found = found_by(hunk_patch.find_blocks, text)
    assert len(found) == 1
    assert len(found[0].blocks) + len(found[0].warnings) == 1


diff_line = st.one_of(
    st.sampled_from(["@@", "@@ def f():", "@@ -1,2 +1,2 @@", "@@ -1 +1 @@ x", "@@ @@", " ", "-",
                     "+", ""]),
    st.builds(lambda kind, text: kind + text, st.sampled_from(" -+"), st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
        max_size=8)),
)


@given(st.lists(diff_line, max_size=12), st.booleans())
@settings(max_examples=400, deadline=None)
def test_plain_diff_fast_path_agrees_with_the_line_rules(lines: list[str], final_newline: bool,
                                                         ) -> None:
    diff = "\n".join(lines) + ("\n" if final_newline else "")
    tidy = diff if diff.endswith("\n") else diff + "\n"
    if PLAIN_HUNKS.fullmatch(tidy):
        assert plain_hunks(tidy) == hunk_patch._parse_diff_lines(diff)


@pytest.mark.parametrize("op", ["create", "delete"])
def test_rename_on_a_create_or_delete_is_a_warning_not_ignored(op: str) -> None:
    # The rename was silently dropped: the file was created or deleted and never moved.
    text = call(path="a.py", op=op, diff="x = 1\n", rename="b.py")
    assert blocks(text) == []
    assert warnings(text) == [f'hunk-patch tool call: "rename" goes with op "update" only, '
                              f'not {op!r} (to move a file: op "update" with "rename"); skipped']


# ------------------------------------------------------------------ hostile input (issue 13)

_HUGE = "9" * 4400  # more digits than int() converts: json's decode raised ValueError


def test_a_huge_number_fails_only_its_own_call() -> None:
    text = (call(path="a.py", op="delete")[:-1] + f', "n": {_HUGE}}}\n'
            + call(path="b.py", op="delete") + f'\nedit {{"path": {_HUGE}, "op": "delete"}}\n')
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["a.py", "b.py"]  # a number no field reads
    assert [w.response_line for w in result.warnings] == [2]
    assert 'has no "path" string' in result.warnings[0].message


def test_a_huge_number_in_a_json_fence_keeps_the_other_calls() -> None:
    text = ('```json\n[{"path": "a.py", "op": "delete", "n": ' + _HUGE + "},\n"
            ' {"path": "b.py", "op": "delete"}]\n```\n')
    assert [b.file for b in parse_response(text).blocks] == ["a.py", "b.py"]


@pytest.mark.parametrize("field", ["path", "rename"])
def test_a_lone_surrogate_escape_in_a_path_fails_its_call_and_the_others_stay(
        field: str) -> None:
    fields = {"path": "a.py", "op": "update", "diff": "@@\n-a\n+b\n"}
    fields[field] = "x\ud800y"
    text = "edit " + json.dumps(fields) + "\n" + call(path="b.py", op="delete") + "\n"
    assert "\\ud800" in text  # json.dumps escapes it, as a model would write it
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["b.py"]
    (warning,) = result.warnings
    assert warning.response_line == 0
    assert f'"{field}" holds a lone surrogate escape (\\ud800): not valid Unicode' in (
        warning.message)


def test_a_surrogate_pair_escape_is_one_character() -> None:
    [block] = blocks('edit {"path": "\\ud83d\\ude00.py", "op": "delete"}\n')
    assert block.file == "\U0001f600.py"


def test_a_diff_past_the_block_line_limit_is_refused_before_it_is_split() -> None:
    diff = "@@\n+x\n" * 6
    text = call(path="a.py", op="update", diff=diff) + "\n" + call(path="b.py", op="delete")
    result = parse_response(text, max_block_lines=10)
    assert [b.file for b in result.blocks] == ["b.py"]
    assert "the diff has 13 lines, more than the limit of 10 (maxBlockLines)" in (
        result.warnings[0].message)
    assert [b.file for b in parse_response(text, max_block_lines=None).blocks] == ["a.py", "b.py"]
    assert [b.file for b in parse_response(text).blocks] == ["a.py", "b.py"]  # default 200,000
