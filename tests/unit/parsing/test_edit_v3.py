"""edit-v3 parsing (seeds 000/001, docs/formats.md; seed 002's parser edge cases and test list)."""

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
    return a + b  # BUG
═══════ REPL
def multiply(a, b):
    return a * b
»»» EDIT END
"""


def _blocks(text: str) -> list[Block]:
    """edit-v3 blocks found by the module itself (no dispatcher)."""
    text = normalize_response(text)
    return [b for f in spans_of(edit_v3.find_blocks, text) for b in f.blocks]


def test_single_block_fields() -> None:
    [block] = parse_response(MULTIPLY).blocks
    assert block.format == "edit-v3"
    assert block.file == "src/math.py"
    assert block.op == "update"
    assert block.anchor == ["def multiply(a, b):"]
    assert block.old == ["    return a + b  # BUG"]
    assert block.new == ["    return a * b"]
    assert block.trailing == []
    assert block.response_line == 0
    assert block.end_line == 8
    assert block.raw == MULTIPLY.rstrip("\n")
    assert block.index == 0


def test_insert_after_anchor() -> None:
    [block] = _blocks("src/utils.py\n««« EDIT\nimport os\n═══════ REPL\nimport os\nimport sys\n"
                      "»»» EDIT END\n")
    assert (block.anchor, block.old, block.new) == (["import os"], [], ["import sys"])


def test_delete_lines() -> None:
    [block] = _blocks("src/utils.py\n««« EDIT\nimport os\nimport deprecated_module\nimport sys\n"
                      "═══════ REPL\nimport os\nimport sys\n»»» EDIT END\n")
    assert block.anchor == ["import os"]
    assert block.old == ["import deprecated_module", "import sys"]
    assert block.new == ["import sys"]


def test_anchor_is_the_common_prefix_of_whole_lines() -> None:
    [block] = _blocks("a.py\n««« EDIT\ndef f():\n    x = 1\n    y = 2\n═══════ REPL\ndef f():\n"
                      "    x = 1\n    y = 3\n»»» EDIT END\n")
    assert block.anchor == ["def f():", "    x = 1"]
    assert (block.old, block.new) == (["    y = 2"], ["    y = 3"])
    # a line that only starts the same is not part of the anchor
    [block] = _blocks("a.py\n««« EDIT\nx = 1\n═══════ REPL\nx = 10\n»»» EDIT END\n")
    assert (block.anchor, block.old, block.new) == ([], ["x = 1"], ["x = 10"])


def test_empty_edit_section_is_a_create() -> None:
    [block] = _blocks('src/new_module.py\n««« EDIT\n═══════ REPL\ndef hello():\n'
                      '    print("Hello, world!")\n»»» EDIT END\n')
    assert block.op == "create"
    assert block.new == ["def hello():", '    print("Hello, world!")']
    assert (block.anchor, block.old) == ([], [])


def test_content_is_verbatim() -> None:
    [block] = _blocks("a.py\n««« EDIT\n\tx = 1   \n\n═══════ REPL\n\tx = 2   \n\n»»» EDIT END\n")
    assert (block.old, block.new) == (["\tx = 1   ", ""], ["\tx = 2   ", ""])


def test_multiple_blocks_in_order_with_surrounding_markdown() -> None:
    text = ("I'll fix both functions.\n\n" + MULTIPLY + "\nThen the helper:\n\n"
            "src/util.py\n```python\n««« EDIT\nA\n═══════ REPL\nB\n»»» EDIT END\n```\n\nDone.\n")
    result = parse_response(text)
    assert [(b.file, b.index, b.response_line) for b in result.blocks] == [
        ("src/math.py", 0, 2), ("src/util.py", 1, 13)]
    assert result.warnings == []


def test_path_with_spaces() -> None:
    [block] = _blocks("my project/src/my file.py\n««« EDIT\na\n═══════ REPL\nb\n»»» EDIT END\n")
    assert block.file == "my project/src/my file.py"


def test_empty_or_whitespace_path_is_skipped_and_parsing_continues() -> None:
    text = "\n   \n««« EDIT\nx\n═══════ REPL\ny\n»»» EDIT END\n\n" + MULTIPLY
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["src/math.py"]
    assert [w.response_line for w in result.warnings] == [2]


def test_trailing_whitespace_on_markers() -> None:
    [block] = _blocks("a.py\n««« EDIT \t\nx\n═══════ REPL  \ny\n»»» EDIT END   \n")
    assert (block.old, block.new) == (["x"], ["y"])


def test_markers_not_at_line_start_are_content() -> None:
    text = ("m.py\n««« EDIT\nx = 1\ns = '««« EDIT'\n ═══════ REPL\n═══════ REPL\nx = 2\n"
            "s = '««« EDIT'\n »»» EDIT END\n»»» EDIT END\n")
    [block] = parse_response(text).blocks
    assert block.old == ["x = 1", "s = '««« EDIT'", " ═══════ REPL"]
    assert block.new == ["x = 2", "s = '««« EDIT'", " »»» EDIT END"]


def test_a_marker_followed_by_text_is_content() -> None:
    [block] = _blocks("a.py\n««« EDIT\n═══════ REPL ok\n═══════ REPL\nz\n»»» EDIT END\n")
    assert (block.old, block.new) == (["═══════ REPL ok"], ["z"])


def test_unclosed_block_at_the_end_is_reported_and_skipped() -> None:
    text = MULTIPLY + "\napp.py\n««« EDIT\ndef main():\n═══════ REPL\n"
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["src/math.py"]
    [warning] = result.warnings
    assert warning.response_line == 9  # app.py's line: where the block would start
    assert "not closed" in warning.message and "»»» EDIT END" in warning.message


def test_unclosed_block_does_not_swallow_the_next_block() -> None:
    text = ("app.py\n««« EDIT\ndef main():\n═══════ REPL\ndef main():\n    pass\n\n" + MULTIPLY
            + "\nother.py\n««« EDIT\np\n═══════ REPL\nq\n»»» EDIT END\n")
    result = parse_response(text)
    assert [(b.file, b.response_line) for b in result.blocks] == [
        ("src/math.py", 7), ("other.py", 16)]
    assert [w.response_line for w in result.warnings] == [0]
    assert "not closed" in result.warnings[0].message


def test_unclosed_block_in_the_edit_section_then_a_complete_block() -> None:
    text = "a.py\n««« EDIT\nhalf a block\n\n" + MULTIPLY
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["src/math.py"]
    assert [w.response_line for w in result.warnings] == [0]


def test_missing_repl_marker_is_reported_and_parsing_continues() -> None:
    text = "a.py\n««« EDIT\nold\nnew\n»»» EDIT END\n\n" + MULTIPLY
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["src/math.py"]
    [warning] = result.warnings
    assert warning.response_line == 1
    assert "═══════ REPL" in warning.message and "skipped" in warning.message


def test_a_v2_end_marker_does_not_end_a_v3_block() -> None:
    # `»»»` is edit-v2's end marker: content in a v3 REPL section; the block stays open.
    text = "a.py\n««« EDIT\nx\n═══════ REPL\n»»»\ny\n»»» EDIT END\n"
    [block] = _blocks(text)
    assert block.new == ["»»»", "y"]


def test_nested_block_is_content_of_the_outer_block() -> None:
    example = ["path/to/file.py", "««« EDIT", "a", "═══════ REPL", "b", "»»» EDIT END"]
    text = "\n".join(["docs/format.md", "««« EDIT", "Example:", *example, "═══════ REPL",
                      "Example:", *example, "More.", "»»» EDIT END", ""])
    result = parse_response(text)
    [block] = result.blocks
    assert block.file == "docs/format.md"
    assert block.anchor == ["Example:", *example]
    assert (block.old, block.new) == ([], ["More."])
    assert result.warnings == []


def test_v2_blocks_are_not_reported_by_the_v3_parser() -> None:
    text = "a.py\n««« EDIT\nx\n───────\ny\n═══════\nz\n───────\n»»»\n" + MULTIPLY
    text = normalize_response(text)
    assert [b.format for f in spans_of(edit_v3.find_blocks, text) for b in f.blocks] == ["edit-v3"]
    assert [b.format for f in spans_of(edit_v2.find_blocks, text) for b in f.blocks] == ["edit-v2"]


def test_found_span_covers_path_line_to_end_marker() -> None:
    text = "Intro\n\n" + MULTIPLY
    [found] = spans_of(edit_v3.find_blocks, text)
    assert (found.start, found.end) == (2, 10)


def test_empty_response_and_no_blocks() -> None:
    assert parse_response("").blocks == []
    result = parse_response("I think the code is fine as it is.\n")
    assert (result.blocks, result.warnings) == ([], [])


def test_malformed_utf8_surrogates_do_not_break_parsing() -> None:
    bad = b"a.py\n\xc0\xaf\n\xab EDIT\n".decode("utf-8", "surrogateescape")
    text = bad + "a.py\n««« EDIT\nx = '\udcff'\n═══════ REPL\nx = 1\n»»» EDIT END\n"
    [block] = parse_response(text).blocks
    assert block.file == "a.py"
    [old] = block.old
    old.encode("utf-8")  # no lone surrogate is left
    assert old.startswith("x = '") and old != "x = '\udcff'"


def test_crlf_response() -> None:
    [block] = parse_response(MULTIPLY.replace("\n", "\r\n")).blocks
    assert block.new == ["    return a * b"]


def test_render_create_and_update() -> None:
    update = Block(format="edit-v3", file="a.py", anchor=["k"], old=["x"], new=["y"])
    assert edit_v3.render(update) == "a.py\n««« EDIT\nk\nx\n═══════ REPL\nk\ny\n»»» EDIT END\n"
    create = Block(format="edit-v3", file="n.py", op="create", new=["v = 1"])
    assert edit_v3.render(create) == "n.py\n««« EDIT\n═══════ REPL\nv = 1\n»»» EDIT END\n"


def test_render_refuses_what_v3_cannot_express() -> None:
    for op in ("delete", "rename", "append"):
        try:
            edit_v3.render(Block(format="edit-v3", file="a.py", op=op))
        except ValueError:
            continue
        raise AssertionError(f"render accepted op {op}")


@st.composite
def v3_blocks(draw: st.DrawFn) -> Block:
    """Blocks whose v3 text is unambiguous: old and new do not start with the same line."""
    anchor, old, new = draw(content_lines), draw(content_lines), draw(content_lines)
    if old and new and old[0] == new[0]:
        new = ["changed " + new[0], *new[1:]]
    if not anchor and not old:
        return Block(format="edit-v3", file=draw(path), op="create", new=new)
    return Block(format="edit-v3", file=draw(path), anchor=anchor, old=old, new=new)


@settings(max_examples=200, deadline=None)
@given(v3_blocks())
def test_render_then_parse_round_trips(block: Block) -> None:
    [parsed] = _blocks(edit_v3.render(block))
    assert fields(parsed) == fields(block)


@settings(max_examples=100, deadline=None)
@given(st.lists(v3_blocks(), min_size=1, max_size=4))
def test_several_rendered_blocks_round_trip_through_parse_response(blocks: list[Block]) -> None:
    text = "\n".join("Prose before.\n" + edit_v3.render(b) for b in blocks)
    parsed = parse_response(text, formats={"edit-v3"})
    assert [fields(b) for b in parsed.blocks] == [fields(b) for b in blocks]


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parse_never_raises_on_arbitrary_text(text: str) -> None:
    parse_directly(text)
    assert_no_internal_error(parse_response(text))


@settings(max_examples=500, deadline=None)
@given(near_valid_text())
def test_parse_never_raises_on_near_valid_text(text: str) -> None:
    parse_directly(text)
    result = parse_response(text)
    assert_no_internal_error(result)
    normalized = normalize_response(text)
    n_lines = normalized.count("\n") + 1
    for block in result.blocks:
        if block.format in ("edit-v3", "edit-v2", "search-replace"):
            assert 0 <= block.response_line < block.end_line <= n_lines
            assert block.raw in normalized
    for warning in result.warnings:
        assert 0 <= warning.response_line < n_lines
