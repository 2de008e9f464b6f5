"""parsing.whole_file: a path line over one fenced whole file, read only when asked for."""

from __future__ import annotations

import pytest

from lsp_server.formats import DEFAULT_FORMAT_NAMES, FORMAT_NAMES
from lsp_server.model import Block
from lsp_server.parsing import parse_response
from lsp_server.parsing.whole_file import find_blocks, render
from tests.unit.parsing.parser_calls import spans_of

ONLY = {"whole-file"}

APP = """Here is the whole file:

app.py
```python
import os


def add(a, b):
    return a * b
```

Run it with:

```bash
python app.py
```
"""


def _blocks(text: str, formats: set[str] = ONLY) -> list[Block]:
    return parse_response(text, formats).blocks


def test_a_path_line_over_a_fence_is_the_file_s_whole_new_text() -> None:
    [block] = _blocks(APP)
    assert (block.format, block.file, block.op) == ("whole-file", "app.py", "write")
    assert block.new == ["import os", "", "", "def add(a, b):", "    return a * b"]
    assert (block.response_line, block.end_line) == (2, 10)
    assert block.raw.startswith("app.py\n```python\n") and block.raw.endswith("\n```")
    assert (block.anchor, block.old, block.trailing, block.hunks) == ([], [], [], None)


def test_never_read_unless_asked_for() -> None:
    # By default the same fence is a code block (merged or whole, the merge decides).
    assert [b.format for b in _blocks(APP, None)] == ["code-block"]
    assert [b.format for b in _blocks(APP, set(DEFAULT_FORMAT_NAMES))] == ["code-block"]


MIXED = """src/a.py
<<<<<<< SEARCH
x = 1
=======
x = 2
>>>>>>> REPLACE

src/b.py
```python
y = 1
```
"""


def test_without_it_the_parse_is_exactly_the_default_one() -> None:
    default = parse_response(MIXED)
    assert default == parse_response(MIXED, set(DEFAULT_FORMAT_NAMES))
    assert [b.format for b in default.blocks] == ["search-replace", "code-block"]
    both = parse_response(MIXED, {"search-replace", "whole-file", "code-block"})
    assert [(b.format, b.file) for b in both.blocks] == [
        ("search-replace", "src/a.py"), ("whole-file", "src/b.py")]


@pytest.mark.parametrize("above", [
    "Here is the code:",       # prose, not a path
    "",                        # nothing above at all
    "Run `python app.py` now.",
])
def test_a_fence_without_a_path_line_is_not_a_block(above: str) -> None:
    parsed = parse_response(f"{above}\n```python\nx = 1\n```\n", ONLY)
    assert parsed.blocks == [] and parsed.warnings == []


@pytest.mark.parametrize("path_line", ["app.py", "`app.py`", "**app.py**", "# app.py",
                                       "File: app.py", "app.py:"])
def test_path_lines_follow_the_common_path_rules(path_line: str) -> None:
    [block] = _blocks(f"{path_line}\n\n```\nx = 1\n```\n")
    assert block.file == "app.py" and block.new == ["x = 1"]


def test_two_files_and_a_fence_after_a_fence_under_one_path() -> None:
    text = ("a.py\n```\na = 1\n```\n\nb.py\n~~~python\nb = 1\n~~~\n"
            "```\nmain()\n```\n")
    blocks = _blocks(text)
    # The last fence's nearest line above is the closing fence of b.py's: no path line.
    assert [(b.file, b.new) for b in blocks] == [("a.py", ["a = 1"]), ("b.py", ["b = 1"])]


def test_a_path_line_is_never_taken_from_inside_the_fence_before() -> None:
    text = "```\nnot_a_block.py\n```\n```bash\nls\n```\n"
    assert _blocks(text) == []


def test_a_markdown_file_keeps_its_own_labelled_fences() -> None:
    text = ("README.md\n```markdown\n# Title\n\n```bash\nmake\n```\n\nEnd.\n```\n"
            "\nDone.\n")
    [block] = _blocks(text)
    assert block.new == ["# Title", "", "```bash", "make", "```", "", "End."]


def test_a_longer_fence_holds_bare_backtick_fences() -> None:
    text = "notes.md\n````\n```\ncode\n```\n````\n"
    [block] = _blocks(text)
    assert block.new == ["```", "code", "```"]


def test_an_indented_fence_loses_its_indentation_from_the_content() -> None:
    text = "1. app.py\n\n   app.py\n   ```python\n   def f():\n       return 1\n   ```\n"
    [block] = _blocks(text)
    assert block.new == ["def f():", "    return 1"]


def test_an_unclosed_fence_under_a_path_is_a_warning_and_no_block() -> None:
    parsed = parse_response("app.py\n```python\nimport os\n", ONLY)
    assert parsed.blocks == []
    [warning] = parsed.warnings
    assert warning.response_line == 0 and "not closed" in warning.message


def test_a_backtick_fence_with_a_backtick_in_its_info_does_not_open() -> None:
    # CommonMark: "``` a`b" is no fence opener; the next line's fence is.
    text = "app.py\n``` a`b\nb.py\n```\nx\n```\n"
    [block] = _blocks(text)
    assert (block.file, block.new) == ("b.py", ["x"])


OTHER_FORMATS = {
    "edit-v3": "««« EDIT\nold\n═══════ REPL\nnew\n»»» EDIT END",
    "search-replace": "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE",
    "apply-patch": "*** Begin Patch\n*** Update File: app.py\n@@\n-old\n+new\n*** End Patch",
    "unified-diff": "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-old\n+new",
    "git-diff": "diff --git a/app.py b/app.py",
    "hunk-patch": 'edit {"path": "app.py", "op": "delete"}',
    "semantic-diff": "## File `app.py` deleted.",
}


@pytest.mark.parametrize("body", OTHER_FORMATS.values(), ids=OTHER_FORMATS.keys())
def test_a_fence_holding_another_format_s_block_is_not_a_whole_file(body: str) -> None:
    text = f"app.py\n```\n{body}\n```\n"
    assert _blocks(text) == []
    assert "whole-file" not in {b.format for b in _blocks(text, set(FORMAT_NAMES))}


def test_lines_that_only_look_like_markers_stay_content() -> None:
    text = "conf.yaml\n```yaml\n--- \na: 1\n=======\n```\n"
    [block] = _blocks(text)
    assert block.new == ["--- ", "a: 1", "======="]


def test_find_blocks_is_called_as_parse_response_calls_it() -> None:
    [span] = spans_of(find_blocks, "x.txt\n```\nhello\n```")
    assert (span.start, span.end) == (0, 4)
    assert [b.new for b in span.blocks] == [["hello"]]


def test_render_round_trips_and_fences_around_backticks() -> None:
    block = Block("whole-file", "docs/a.md", op="write", new=["```", "x", "```"])
    text = render(block)
    assert text.startswith("docs/a.md\n````\n")
    [back] = _blocks(text)
    assert (back.file, back.new) == ("docs/a.md", block.new)


def test_render_refuses_what_is_not_a_whole_file() -> None:
    with pytest.raises(ValueError):
        render(Block("whole-file", "a.py", anchor=["keep"], old=["x"], new=["y"]))
    with pytest.raises(ValueError):
        render(Block("whole-file", "a.py", op="delete"))


# issue 23: a README written whole holds a bare fence pair of its own. The first bare fence
# closed the block: the README lost its tail and "make install" became a file.
README = """Here is the new README:

README.md
```markdown
# Tool

Install it:

```
make install
```

Then run it.
```

That's all.
"""


def test_a_bare_fence_pair_inside_the_file_closes_nothing() -> None:
    [block] = _blocks(README)
    assert block.file == "README.md"
    assert block.new == ["# Tool", "", "Install it:", "", "```", "make install", "```", "",
                         "Then run it."]


def test_no_path_is_taken_from_a_line_after_a_false_close() -> None:
    bare = README.replace("```markdown", "```")  # a bare outer fence reads the same way
    assert [b.file for b in _blocks(bare)] == ["README.md"]
    two = README + "\nsrc/app.py\n```\nx = 1\n```\n"
    assert [(b.file, len(b.new)) for b in _blocks(two)] == [("README.md", 9), ("src/app.py", 1)]


def test_a_bare_fence_then_a_path_line_and_a_fence_is_the_next_block() -> None:
    text = "a.md\n```\n# A\n```\nb.md\n```\n# B\n```\n"
    assert [(b.file, b.new) for b in _blocks(text)] == [("a.md", ["# A"]), ("b.md", ["# B"])]
    code = "a.py\n```python\nx = 1\n```\nRun:\n```\nmake\n```\n"  # code fences close at once
    assert [(b.file, b.new) for b in _blocks(code)] == [("a.py", ["x = 1"])]
