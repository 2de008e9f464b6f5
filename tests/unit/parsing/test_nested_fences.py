"""Nested fences in semantic-diff sections (lsp_server/parsing/nested_fences.py): seed 004's
"contextually"."""

from __future__ import annotations

from lsp_server.parsing import parse_response


def _patch(remove: list[str], add: list[str], after: str = "") -> str:
    return "\n".join(["## File `README.md` modified:", "", "### Hunk 1:",
                      "#### Lines to remove:", "```markdown", *remove, "```", "",
                      "#### Lines to add:", "```markdown", *add, "```"]) + "\n" + after


def test_a_markdown_files_own_fences_inside_both_sections() -> None:
    text = _patch(["```python", 'print("hi")', "```"], ["```python", 'print("hello")', "```"])
    [block] = parse_response(text).blocks
    assert block.old == ["```python", 'print("hi")', "```"]
    assert block.new == ["```python", 'print("hello")', "```"]


def test_bare_fences_of_the_file_before_a_lines_heading_take_the_last_closer() -> None:
    # a bare "```" opener cannot be told from a closer: the Lines heading after them decides
    text = _patch(["Example:", "```", "make", "```"], ["Example:", "```", "make all", "```"],
                  "\n### Hunk 2:\n#### Lines to remove:\n```\nEnd.\n```\n"
                  "#### Lines to add:\n```\nThe end.\n```\n")
    first, second = parse_response(text).blocks
    assert first.old == ["Example:", "```", "make", "```"]
    assert first.new == ["Example:", "```", "make all", "```"]
    assert (second.old, second.new) == (["End."], ["The end."])


def test_a_fence_after_the_last_section_is_not_swallowed() -> None:
    text = _patch(["old"], ["new"], "\nThen remove the helper:\n\n```bash\ngit rm x.py\n```\n")
    result = parse_response(text)
    [block] = result.blocks
    assert (block.old, block.new) == (["old"], ["new"])
    assert result.shell_suggestions == ["git rm x.py"]


def test_the_closing_fence_of_a_wrapper_round_the_patch_is_not_content() -> None:
    text = "~~~~markdown\n" + _patch(["```python", "a", "```"], ["```python", "b", "```"],
                                     "~~~~\n")
    [block] = parse_response(text).blocks
    assert (block.old, block.new) == (["```python", "a", "```"], ["```python", "b", "```"])
    text = _patch(["a"], ["b"], "```\n")  # a stray closer after the last hunk
    [block] = parse_response(text).blocks
    assert (block.old, block.new) == (["a"], ["b"])


def test_a_longer_fence_still_holds_shorter_ones() -> None:
    text = ("## File `README.md` modified:\n### Hunk 1:\n#### Lines to remove:\n````md\n"
            "```\nx\n```\n````\n#### Lines to add:\n````md\n```\ny\n```\n````\n")
    [block] = parse_response(text).blocks
    assert (block.old, block.new) == (["```", "x", "```"], ["```", "y", "```"])


def test_a_bare_fence_pair_inside_the_last_section_is_content() -> None:
    # counted as whole-file counts them (nested_fences.closing_fence_index)
    text = _patch(["old"], ["Install:", "```", "make install", "```", "Done."], "\nThat's all.\n")
    [block] = parse_response(text).blocks
    assert block.new == ["Install:", "```", "make install", "```", "Done."]
