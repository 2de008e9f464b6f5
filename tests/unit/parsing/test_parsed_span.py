"""The positional Block factory the parsers use must build what the keyword form builds."""

from __future__ import annotations

from lsp_server.model import Block
from lsp_server.parsing.parsed_span import new_block


def test_new_block_equals_the_keyword_form() -> None:
    made = new_block("edit-v3", "a.py", "create", 3, 9, "raw text")
    assert made == Block(format="edit-v3", file="a.py", op="create", response_line=3,
                         end_line=9, raw="raw text")


def test_new_blocks_do_not_share_their_lists() -> None:
    first, second = (new_block("edit-v2", "a.py", "update", 0, 1, "") for _ in range(2))
    first.old.append("x")
    first.anchor.append("y")
    assert (second.old, second.anchor, second.new, second.trailing) == ([], [], [], [])
