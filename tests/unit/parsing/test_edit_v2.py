"""edit-v2 parsing (seed 002, docs/formats.md; seed 002's parser edge cases and test list)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Block
from lsp_server.parsing import edit_v2, edit_v3, normalize_response, parse_response

from .marker_strategies import (
    assert_no_internal_error,
    content_lines,
    fields,
    near_valid_text,
    parse_directly,
    path,
)
from .parser_calls import spans_of

MULTIPLY = """src/math.py
««« EDIT
def multiply(a, b):
───────
    return a + b
═══════
    return a * b
───────

def other_function():
»»»
"""


def _blocks(text: str) -> list[Block]:
    """edit-v2 blocks found by the module itself (no dispatcher)."""
    text = normalize_response(text)
    return [b for f in spans_of(edit_v2.find_blocks, text) for b in f.blocks]


def _v2(file: str, anchor: str, old: str, new: str, trailing: str) -> str:
    sections = [anchor, "───────", old, "═══════", new, "───────", trailing]
    body = "\n".join(s for s in sections if s != "")
    return f"{file}\n««« EDIT\n{body}\n»»»\n"


def test_single_block_fields() -> None:
    [block] = parse_response(MULTIPLY).blocks
    assert block.format == "edit-v2"
    assert block.file == "src/math.py"
    assert block.op == "update"
    assert block.anchor == ["def multiply(a, b):"]
    assert block.old == ["    return a + b"]
    assert block.new == ["    return a * b"]
    assert block.trailing == ["", "def other_function():"]
    assert (block.response_line, block.end_line) == (0, 11)
    assert block.raw == MULTIPLY.rstrip("\n")


def test_insert_new_code() -> None:
    [block] = _blocks("src/utils.py\n««« EDIT\ndef existing():\n    pass\n───────\n═══════\n\n"
                      "def new_function():\n    return 42\n───────\n\ndef another():\n»»»\n")
    assert block.anchor == ["def existing():", "    pass"]
    assert block.old == []
    assert block.new == ["", "def new_function():", "    return 42"]
    assert block.trailing == ["", "def another():"]
    assert block.op == "update"


def test_delete_code() -> None:
    [block] = _blocks(_v2("src/utils.py", "def main():", "    deprecated_call()", "",
                          "    important_call()"))
    assert (block.anchor, block.old, block.new, block.trailing) == (
        ["def main():"], ["    deprecated_call()"], [], ["    important_call()"])


def test_all_empty_but_new_is_a_create() -> None:
    [block] = _blocks('src/new.py\n««« EDIT\n───────\n═══════\n"""New module."""\n\n'
                      'def hello():\n    print("Hello!")\n───────\n»»»\n')
    assert block.op == "create"
    assert block.new == ['"""New module."""', "", "def hello():", '    print("Hello!")']
    assert (block.anchor, block.old, block.trailing) == ([], [], [])


def test_append_at_end_and_insert_at_start_are_updates() -> None:
    [append] = _blocks(_v2("u.py", "    return final_value", "", "\ndef f():\n    pass", ""))
    assert append.op == "update" and append.trailing == []
    [start] = _blocks(_v2("u.py", "", "", '"""Doc."""\n', "import os"))
    assert start.op == "update" and start.anchor == [] and start.trailing == ["import os"]


def test_multiple_blocks_with_surrounding_markdown() -> None:
    text = "First:\n\n" + MULTIPLY + "\nSecond, fenced:\n\n```\nsrc/b.py\n" + _v2(
        "", "a", "b", "c", "d").lstrip("\n") + "```\n"
    result = parse_response(text)
    assert [(b.file, b.response_line) for b in result.blocks] == [
        ("src/math.py", 2), ("src/b.py", 17)]
    assert result.warnings == []


def test_path_with_spaces() -> None:
    [block] = _blocks(_v2("my dir/file name.py", "a", "b", "c", "d"))
    assert block.file == "my dir/file name.py"


def test_empty_or_whitespace_path_is_skipped() -> None:
    text = "  \n" + _v2("", "a", "b", "c", "d").lstrip("\n") + "\n" + MULTIPLY
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["src/math.py"]
    assert [w.response_line for w in result.warnings] == [1]


def test_trailing_whitespace_on_markers() -> None:
    [block] = _blocks("a.py\n««« EDIT  \nk\n─────── \nx\n═══════\t\ny\n───────   \nt\n»»» \n")
    assert (block.anchor, block.old, block.new, block.trailing) == (["k"], ["x"], ["y"], ["t"])


def test_markers_mid_line_are_content() -> None:
    [block] = _blocks("a.py\n««« EDIT\nline ─────── here\n ───────\n───────\nx = '═══════'\n"
                      "═══════\n»»» not the end\n───────\n»»»\n")
    assert block.anchor == ["line ─────── here", " ───────"]
    assert block.old == ["x = '═══════'"]
    assert block.new == ["»»» not the end"]
    assert block.trailing == []


def test_unclosed_block_is_skipped_and_parsing_continues() -> None:
    text = "a.py\n««« EDIT\nk\n───────\nx\n═══════\ny\n\n" + MULTIPLY
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["src/math.py"]
    [warning] = result.warnings
    assert warning.response_line == 0  # its path line: where the block would start
    assert "edit-v2" in warning.message and "not closed" in warning.message


def test_truncated_at_the_end() -> None:
    result = parse_response(MULTIPLY + "\nb.py\n««« EDIT\nk\n───────\n")
    assert [b.file for b in result.blocks] == ["src/math.py"]
    assert [w.response_line for w in result.warnings] == [12]  # b.py's line


def test_missing_internal_markers_are_reported_and_skipped() -> None:
    cases = {
        "a.py\n««« EDIT\nk\nx\n»»»\n": "───────",  # no structural marker at all
        "a.py\n««« EDIT\nk\n───────\nx\n»»»\n": "═══════",  # no ═══════
        "a.py\n««« EDIT\nk\n───────\nx\n═══════\ny\n»»»\n": "second",  # no second ───────
    }
    for text, missing in cases.items():
        result = parse_response(text + "\n" + MULTIPLY)
        assert [b.file for b in result.blocks] == ["src/math.py"], text
        [warning] = result.warnings
        assert warning.response_line == 1
        assert missing in warning.message and "skipped" in warning.message


def test_v3_end_marker_is_content_in_a_v2_block() -> None:
    [block] = _blocks("a.py\n««« EDIT\n───────\nx\n═══════\n»»» EDIT END\n───────\n»»»\n")
    assert block.new == ["»»» EDIT END"]


def test_nested_blocks_are_content() -> None:
    inner_v2 = ["x.py", "««« EDIT", "a", "───────", "b", "═══════", "c", "───────", "»»»"]
    inner_v3 = ["y.py", "««« EDIT", "p", "═══════ REPL", "q", "»»» EDIT END"]
    text = "\n".join(["docs/f.md", "««« EDIT", "Examples:", "───────", *inner_v2, "═══════",
                      *inner_v3, "───────", "End.", "»»»", ""])
    result = parse_response(text)
    [block] = result.blocks
    assert (block.file, block.format) == ("docs/f.md", "edit-v2")
    assert block.old == inner_v2
    assert block.new == inner_v3
    assert block.trailing == ["End."]
    assert result.warnings == []


def test_v3_blocks_are_not_reported_by_the_v2_parser() -> None:
    text = "a.py\n««« EDIT\nx\n═══════ REPL\ny\n»»» EDIT END\n"
    assert _blocks(text) == []
    assert [b.format for f in spans_of(edit_v3.find_blocks, text) for b in f.blocks] == [
        "edit-v3"]


def test_empty_response_and_no_blocks() -> None:
    assert parse_response("").blocks == []
    result = parse_response("Nothing to change.\n───────\n»»»\n")
    assert (result.blocks, result.warnings) == ([], [])


def test_malformed_utf8_surrogates_do_not_break_parsing() -> None:
    text = "a.py\n««« EDIT\n\udcc3\n───────\nx\n═══════\ny\n───────\n»»»\n"
    [block] = parse_response(text).blocks
    [anchor] = block.anchor
    anchor.encode("utf-8")


def test_render() -> None:
    block = Block(format="edit-v2", file="a.py", anchor=["k"], old=["x"], new=["y"],
                  trailing=["t"])
    assert edit_v2.render(block) == "a.py\n««« EDIT\nk\n───────\nx\n═══════\ny\n───────\nt\n»»»\n"
    create = Block(format="edit-v2", file="n.py", op="create", new=["v"])
    assert edit_v2.render(create) == "n.py\n««« EDIT\n───────\n═══════\nv\n───────\n»»»\n"


@st.composite
def v2_blocks(draw: st.DrawFn) -> Block:
    anchor, old, new, trailing = (draw(content_lines) for _ in range(4))
    op = "update" if anchor or old or trailing else "create"
    return Block(format="edit-v2", file=draw(path), op=op, anchor=anchor, old=old, new=new,
                 trailing=trailing)


@settings(max_examples=200, deadline=None)
@given(v2_blocks())
def test_render_then_parse_round_trips(block: Block) -> None:
    [parsed] = _blocks(edit_v2.render(block))
    assert fields(parsed) == fields(block)


@settings(max_examples=100, deadline=None)
@given(st.lists(v2_blocks(), min_size=1, max_size=4))
def test_several_rendered_blocks_round_trip_through_parse_response(blocks: list[Block]) -> None:
    text = "\n".join("Then:\n\n" + edit_v2.render(b) for b in blocks)
    parsed = parse_response(text, formats={"edit-v2"})
    assert [fields(b) for b in parsed.blocks] == [fields(b) for b in blocks]


@settings(max_examples=500, deadline=None)
@given(near_valid_text())
def test_parse_never_raises_on_near_valid_text(text: str) -> None:
    parse_directly(text)
    result = parse_response(text)
    assert_no_internal_error(result)
    for block in result.blocks:
        assert block.response_line < block.end_line
