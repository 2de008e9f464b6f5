"""reindent: the consistent indentation change of a tolerant match, applied to inserted lines."""

from __future__ import annotations

from lsp_server.reindent import apply_reindent, reindent_offset


def test_reindent_offset_add_and_remove() -> None:
    block = ["def f():", "    return 1", ""]
    assert reindent_offset(block, ["    def f():", "        return 1", ""]) == ("add", "    ")
    assert reindent_offset(["    x", "        y"], ["x", "    y"]) == ("remove", "    ")
    # tabs vs spaces, or different offsets: no consistent offset
    assert reindent_offset(["  x", "  y"], ["\tx", "\ty"]) is None
    assert reindent_offset(["x", "y"], ["  x", "    y"]) is None
    # nothing differs: nothing to do
    assert reindent_offset(["x"], ["x"]) is None


def test_apply_reindent_leaves_blank_lines() -> None:
    assert apply_reindent("x", ("add", "  ")) == "  x"
    assert apply_reindent("", ("add", "  ")) == ""
    assert apply_reindent("   ", ("add", "  ")) == "   "
    assert apply_reindent("    x", ("remove", "  ")) == "  x"
    assert apply_reindent("x", ("remove", "  ")) == "x"
    assert apply_reindent("x", None) == "x"
