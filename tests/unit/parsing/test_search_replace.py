"""search-replace parsing: aider's SEARCH/REPLACE blocks and the slips docs/formats.md accepts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Block
from lsp_server.parsing import normalize_response, parse_response, search_replace

from .marker_strategies import (
    assert_no_internal_error,
    content_lines,
    fields,
    near_valid_text,
    parse_directly,
    path,
)
from .parser_calls import spans_of

ADD = """app.py
```python
<<<<<<< SEARCH
def add(a, b):
    return a + b
=======
def add(a, b):
    return a * b
>>>>>>> REPLACE
```
"""


def _found(text: str):
    text = normalize_response(text)
    return spans_of(search_replace.find_blocks, text)


def _blocks(text: str) -> list[Block]:
    return [b for f in _found(text) for b in f.blocks]


def _sr(old: str, new: str, head: str = "<<<<<<< SEARCH", divider: str = "=======",
        close: str = ">>>>>>> REPLACE") -> str:
    return "\n".join(x for x in [head, old, divider, new, close] if x is not None) + "\n"


def test_single_block_fields() -> None:
    result = parse_response(ADD)
    [block] = result.blocks
    assert block.format == "search-replace"
    assert block.file == "app.py"
    assert block.op == "update"
    assert block.old == ["def add(a, b):", "    return a + b"]
    assert block.new == ["def add(a, b):", "    return a * b"]
    assert (block.anchor, block.trailing) == ([], [])
    assert (block.response_line, block.end_line) == (0, 9)
    assert block.raw == "\n".join(ADD.split("\n")[:9])
    assert result.warnings == []


def test_unfenced_block() -> None:
    [block] = _blocks("src/a.py\n" + _sr("x", "y"))
    assert (block.file, block.old, block.new) == ("src/a.py", ["x"], ["y"])


def test_empty_search_is_append() -> None:
    [block] = _blocks("app.py\n```\n<<<<<<< SEARCH\n=======\n\n\nif __name__ == '__main__':\n"
                      "    main()\n>>>>>>> REPLACE\n```\n")
    assert block.op == "append"
    assert block.old == []
    assert block.new == ["", "", "if __name__ == '__main__':", "    main()"]


def test_blank_only_search_is_append_as_in_aider() -> None:
    [block] = _blocks("app.py\n" + _sr("\n   ", "x = 1"))
    assert (block.op, block.old, block.new) == ("append", [], ["x = 1"])


def test_several_blocks_in_one_fence_share_the_path_without_warning() -> None:
    text = ("app.py\n```python\n" + _sr("a", "b") + _sr("c", "d") + "\n" + _sr("e", "f")
            + "```\n")
    result = parse_response(text)
    assert [(b.file, b.old, b.response_line) for b in result.blocks] == [
        ("app.py", ["a"], 0), ("app.py", ["c"], 7), ("app.py", ["e"], 13)]
    assert result.warnings == []


def test_a_new_path_line_inside_the_fence_switches_file() -> None:
    text = "```\na.py\n" + _sr("a", "b") + "b.py\n" + _sr("c", "d") + "```\n"
    assert [b.file for b in _blocks(text)] == ["a.py", "b.py"]


def test_block_after_prose_carries_over_the_path_with_a_warning() -> None:
    text = ADD + "\nAnd the docstring:\n\n```python\n" + _sr('    """Say hello."""',
                                                            '    """Greet."""') + "```\n"
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["app.py", "app.py"]
    [warning] = result.warnings
    assert "previous block's path" in warning.message
    assert warning.response_line == 14


def test_block_after_a_closed_fence_is_not_in_the_same_fence() -> None:
    result = parse_response(ADD + "```\n" + _sr("x", "y") + "```\n")
    assert [b.file for b in result.blocks] == ["app.py", "app.py"]
    assert len(result.warnings) == 1


@pytest.mark.parametrize("n", [5, 6, 8, 9])
def test_five_to_nine_marker_characters_are_accepted_with_warnings(n: int) -> None:
    text = "app.py\n" + _sr("x", "y", "<" * n + " SEARCH", "=" * n, ">" * n + " REPLACE")
    result = parse_response(text)
    [block] = result.blocks
    assert (block.old, block.new) == (["x"], ["y"])
    assert [w.response_line for w in result.warnings] == [1, 3, 5]
    assert all(f"has {n} " in w.message and "instead of 7" in w.message
               for w in result.warnings)


@pytest.mark.parametrize("n", [4, 10])
def test_four_or_ten_marker_characters_are_not_markers(n: int) -> None:
    text = "app.py\n" + _sr("x", "y", "<" * n + " SEARCH", "=" * n, ">" * n + " REPLACE")
    assert parse_response(text).blocks == []


def test_only_the_odd_marker_is_warned_about() -> None:
    result = parse_response("app.py\n" + _sr("x", "y", divider="======"))
    assert [b.new for b in result.blocks] == [["y"]]
    assert [w.response_line for w in result.warnings] == [3]


def test_second_divider_closes_the_block_with_a_warning() -> None:
    text = "app.py\n```python\n" + _sr("x", "y", close="=======") + "```\n\nb.py\n" + _sr(
        "p", "q")
    result = parse_response(text)
    assert [(b.file, b.old, b.new) for b in result.blocks] == [
        ("app.py", ["x"], ["y"]), ("b.py", ["p"], ["q"])]
    [warning] = result.warnings
    assert warning.response_line == 6
    assert "second '======='" in warning.message


def test_aiders_search_variant_with_a_closing_angle() -> None:
    [block] = _blocks("app.py\n" + _sr("x", "y", head="<<<<<<< SEARCH>"))
    assert block.old == ["x"]


def test_source_tag_fence() -> None:
    result = parse_response("app.py\n<source>python\n" + _sr("x", "y") + "</source>\n")
    assert [b.file for b in result.blocks] == ["app.py"]
    assert result.warnings == []


def test_path_with_spaces() -> None:
    [block] = _blocks("my dir/some file.py\n```\n" + _sr("x", "y") + "```\n")
    assert block.file == "my dir/some file.py"


def test_empty_or_whitespace_path_is_skipped() -> None:
    result = parse_response("   \n" + _sr("x", "y") + "\n" + ADD)
    assert [b.file for b in result.blocks] == ["app.py"]
    assert [w.response_line for w in result.warnings] == [1]


def test_trailing_whitespace_on_markers() -> None:
    [block] = _blocks("app.py\n" + _sr("x", "y", "<<<<<<< SEARCH  ", "=======\t",
                                       ">>>>>>> REPLACE "))
    assert (block.old, block.new) == (["x"], ["y"])


def test_markers_not_at_line_start_are_content() -> None:
    [block] = _blocks("app.py\n" + _sr(" <<<<<<< SEARCH\n =======\nx ======= y", "y\n"
                                       "  >>>>>>> REPLACE"))
    assert block.old == [" <<<<<<< SEARCH", " =======", "x ======= y"]
    assert block.new == ["y", "  >>>>>>> REPLACE"]


def test_missing_divider_is_reported_and_parsing_continues() -> None:
    text = "a.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n\n" + ADD
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["app.py"]
    [warning] = result.warnings
    assert warning.response_line == 1
    assert "=======" in warning.message and "skipped" in warning.message


def test_unclosed_block_does_not_swallow_the_next_one() -> None:
    text = "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n\n" + ADD
    result = parse_response(text)
    assert [(b.file, b.old) for b in result.blocks] == [
        ("app.py", ["def add(a, b):", "    return a + b"])]
    [warning] = result.warnings
    assert warning.response_line == 0  # its path line: where the block would start
    assert "not closed" in warning.message


def test_unclosed_block_at_the_end() -> None:
    result = parse_response(ADD + "\nb.py\n<<<<<<< SEARCH\nx\n")
    assert [b.file for b in result.blocks] == ["app.py"]
    [warning] = result.warnings
    assert warning.response_line == 11  # b.py's line
    assert "no '=======' or '>>>>>>> REPLACE' line" in warning.message


def test_nested_block_is_content() -> None:
    inner = ["a.py", "<<<<<<< SEARCH", "x", "=======", "y", ">>>>>>> REPLACE"]
    text = "\n".join(["docs/aider.md", "<<<<<<< SEARCH", "Old text.", "=======", "Example:",
                      *inner, ">>>>>>> REPLACE", ""])
    result = parse_response(text)
    [block] = result.blocks
    assert (block.file, block.old, block.new) == ("docs/aider.md", ["Old text."],
                                                  ["Example:", *inner])
    assert result.warnings == []


def test_empty_response_and_no_blocks() -> None:
    assert parse_response("").blocks == []
    result = parse_response("Title\n=======\n\nNo SEARCH blocks here.\n")
    assert (result.blocks, result.warnings) == ([], [])


def test_malformed_utf8_surrogates_do_not_break_parsing() -> None:
    [block] = parse_response("app.py\n" + _sr("\udc80x", "y")).blocks
    [old] = block.old
    old.encode("utf-8")


def test_found_span_from_path_line_to_closing_marker() -> None:
    [found] = _found("Intro\n\n" + ADD)
    assert (found.start, found.end) == (2, 11)


def test_render_uses_a_fence_longer_than_any_inside() -> None:
    block = Block(format="search-replace", file="README.md", old=["```sh", "x", "```"],
                  new=["````", "y"])
    text = search_replace.render(block)
    assert text.split("\n")[1] == "`````" and text.endswith("`````\n")
    [parsed] = _blocks(text)
    assert fields(parsed) == fields(block)


def test_render_append() -> None:
    block = Block(format="search-replace", file="a.py", op="append", new=["x"])
    assert search_replace.render(block) == (
        "a.py\n```\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n```\n")


@st.composite
def sr_blocks(draw: st.DrawFn) -> Block:
    old, new = draw(content_lines), draw(content_lines)
    if any(line.strip() for line in old):
        return Block(format="search-replace", file=draw(path), old=old, new=new)
    return Block(format="search-replace", file=draw(path), op="append", new=new)


@settings(max_examples=200, deadline=None)
@given(sr_blocks())
def test_render_then_parse_round_trips(block: Block) -> None:
    [parsed] = _blocks(search_replace.render(block))
    assert fields(parsed) == fields(block)


@settings(max_examples=100, deadline=None)
@given(st.lists(sr_blocks(), min_size=1, max_size=4))
def test_several_rendered_blocks_round_trip_through_parse_response(blocks: list[Block]) -> None:
    text = "\n".join("Next:\n\n" + search_replace.render(b) for b in blocks)
    parsed = parse_response(text, formats={"search-replace"})
    assert [fields(b) for b in parsed.blocks] == [fields(b) for b in blocks]


@settings(max_examples=500, deadline=None)
@given(near_valid_text())
def test_parse_never_raises_on_near_valid_text(text: str) -> None:
    parse_directly(text)
    result = parse_response(text)
    assert_no_internal_error(result)
    for block in result.blocks:
        assert block.response_line < block.end_line
