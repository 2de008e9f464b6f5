"""The nesting rules shared by edit-v3, edit-v2 and search-replace."""

from __future__ import annotations

from lsp_server.parsing import parse_response

V3 = "a.py\n««« EDIT\nx\n═══════ REPL\ny\n»»» EDIT END\n"


def test_parsing_the_same_text_object_twice_gives_the_same_result() -> None:
    # The dispatcher fills in carried-over paths on the blocks it receives, so a second parse
    # must not see the first parse's blocks.
    text = V3 + "\nThen:\n\n" + V3.split("\n", 1)[1]
    first = parse_response(text)
    second = parse_response(text)
    assert [b.file for b in first.blocks] == [b.file for b in second.blocks] == ["a.py"] * 2
    assert len(first.warnings) == len(second.warnings) == 1


def test_many_unclosed_blocks_are_each_reported_and_a_later_block_still_parses() -> None:
    text = "x.py\n««« EDIT\n" * 3000 + V3
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["a.py"]
    assert len(result.warnings) == 3000
    # Each at its path line: where its block would start once closed.
    assert [w.response_line for w in result.warnings[:3]] == [0, 2, 4]


def test_blocks_closed_inside_an_unclosed_block_are_promoted_in_order() -> None:
    text = "p.py\n««« EDIT\nopen\n═══════ REPL\n" + V3 + "\n" + V3.replace("a.py", "b.py")
    result = parse_response(text)
    assert [(b.file, b.response_line) for b in result.blocks] == [("a.py", 4), ("b.py", 11)]
    assert [w.response_line for w in result.warnings] == [0]  # the unclosed one's path line


def test_a_block_closed_inside_a_closed_block_is_its_content() -> None:
    text = "p.py\n««« EDIT\n═══════ REPL\n" + V3 + "»»» EDIT END\n"
    [block] = parse_response(text).blocks
    assert block.op == "create"
    assert block.new == V3.rstrip("\n").split("\n")
