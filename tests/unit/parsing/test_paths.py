"""Path lines above edit-v3 / edit-v2 / search-replace blocks (docs/formats.md, "Paths in
real responses")."""

from __future__ import annotations

import pytest

from lsp_server.parsing import parse_response
from lsp_server.parsing.paths import find_path_line, is_fence_opener, path_from_line


def _v3(path_lines: str, body: str = "x = 1") -> str:
    return f"{path_lines}\n««« EDIT\n{body}\n═══════ REPL\n{body}2\n»»» EDIT END\n"


@pytest.mark.parametrize(("line", "path"), [
    ("src/app.py", "src/app.py"),
    ("  src/app.py  ", "src/app.py"),
    ("`src/app.py`", "src/app.py"),
    ("``src/app.py``", "src/app.py"),
    ("**src/app.py**", "src/app.py"),
    ("**`src/app.py`**", "src/app.py"),
    ("`src/app.py`:", "src/app.py"),
    ("src/app.py:", "src/app.py"),
    ("**src/app.py:**", "src/app.py"),
    ("# src/app.py", "src/app.py"),
    ("### `src/app.py`", "src/app.py"),
    ("File: src/app.py", "src/app.py"),
    ("file: src/app.py", "src/app.py"),
    ("Filename: src/app.py", "src/app.py"),
    ("File path: src/app.py", "src/app.py"),
    ("Path: src/app.py", "src/app.py"),
    ("**File:** `src/app.py`", "src/app.py"),
    ("**File: src/app.py**", "src/app.py"),
    ("### File: `src/app.py`", "src/app.py"),
    ("Makefile", "Makefile"),
    ("my dir/my file.py", "my dir/my file.py"),  # a path with spaces is the whole line
    ("C:\\proj\\app.py", "C:/proj/app.py"),  # "\\" separators read as "/"
    ("src\\app.py", "src/app.py"),
    ("`src\\app.py`:", "src/app.py"),
    ("a/b\\c.py", "a/b\\c.py"),  # has a "/": the backslash is part of a name
    ("src/routes/+page.svelte", "src/routes/+page.svelte"),
])
def test_path_lines_are_unwrapped(line: str, path: str) -> None:
    assert path_from_line(line) == path


@pytest.mark.parametrize("line", [
    "",
    "   ",
    # the source rule: ended with ":" and what is left has a space, or has neither "." nor "/"
    "Here is the change:",
    "And the docstring:",
    "Update:",
    "**Changes:**",
    # ours: sentences, quoted paths, markers and list/quote/comment lines
    "This fixes the bug.",
    "Apply this now!",
    "Does that work?",
    "»»» EDIT END",
    "««« EDIT",
    "═══════ REPL",
    "───────",
    "»»»",
    ">>>>>>> REPLACE",
    "<<<<<<< SEARCH",
    "=======",
    "*** End Patch",
    "*** Update File: a.py",
    "@@ def f():",
    "--- a/src/app.py",
    "+++ b/src/app.py",
    "diff --git a/x b/x",
    'edit {"path": "a.py", "op": "delete"}',
    "```",
    "```python",
    "~~~",
    "<source>",
    "</source>",
    "> src/app.py",
    "- src/app.py",
    "* src/app.py",
    "// src/app.py",
    "x" * 201,
])
def test_non_path_lines_are_refused(line: str) -> None:
    assert path_from_line(line) is None


@pytest.mark.parametrize(("line", "path"), [
    ("Now in `app.py`:", "app.py"),
    ("Update **app.py** as follows:", "app.py"),
    ("In `app.py` (the entry point):", "app.py"),
    ("Changes to `src/app.py`:", "src/app.py"),
    ("Edit `src/app.py` like this", "src/app.py"),
    ("Then `src\\app.py`, where `src\\app.py` reads the config:", "src/app.py"),  # once
    ("- In `lib/util.ts`:", "lib/util.ts"),
])
def test_a_prose_line_naming_one_path_names_the_file(line: str, path: str) -> None:
    assert path_from_line(line) is None
    assert find_path_line([line, "««« EDIT"], 1, 0) == (0, path)


@pytest.mark.parametrize("line", [
    "Rename `a.py` to `b.py`:",  # two paths: which one?
    "Call `util.load()` instead:",  # a call, not a path
    "See `https://example.com/x.py` for more:",
    "Use `git rm old.py` first:",  # a command, not a path token
    "Now update app.py so that it imports sys:",  # bare names are not read as the path
    "*** Update File: `a.py`",  # a marker, not prose
    "Here is `...` the change:",
    "In `" + "x" * 600 + ".py`:",
])
def test_prose_lines_that_name_no_single_path(line: str) -> None:
    assert find_path_line([line, "««« EDIT"], 1, 0) is None


def test_two_hundred_characters_is_still_a_path() -> None:
    assert path_from_line("a/" + "b" * 198) == "a/" + "b" * 198


@pytest.mark.parametrize("line", [
    "```", "```python", "````", "````ts", "~~~", "~~~python", "``` python", "<source>",
    "<source>python", "<code>", "<pre>", "<sourcecode>", "<codeblock>", "<source lang=\"go\">",
    "  ```python  ", "<CODE>",
])
def test_fence_openers(line: str) -> None:
    assert is_fence_opener(line)


@pytest.mark.parametrize("line", ["src/app.py", "``", "<div>", "</source>", "``` `x`"])
def test_not_fence_openers(line: str) -> None:
    assert not is_fence_opener(line)


def test_nearest_non_blank_line_skipping_one_fence_opener() -> None:
    lines = ["prose", "src/app.py", "", "```python", "", "««« EDIT"]
    assert find_path_line(lines, 5, 0) == (1, "src/app.py")


def test_only_one_fence_opener_is_skipped() -> None:
    lines = ["src/app.py", "```", "```python", "««« EDIT"]
    assert find_path_line(lines, 3, 0) is None


def test_only_the_nearest_line_counts() -> None:
    lines = ["src/app.py", "Now the change:", "««« EDIT"]
    assert find_path_line(lines, 2, 0) is None


def test_never_above_the_floor() -> None:
    lines = ["src/app.py", "»»» EDIT END", "", "««« EDIT"]
    assert find_path_line(lines, 3, 2) is None
    assert find_path_line(["src/app.py", "««« EDIT"], 1, 1) is None


@pytest.mark.parametrize("wrapped", [
    "```\nsrc/app.py", "src/app.py\n```python", "src/app.py\n\n```python\n", "src/app.py\n~~~",
    "src/app.py\n<source>python", "src/app.py\n<code>", "src/app.py\n<pre>",
    "src/app.py\n<sourcecode>", "src/app.py\n<codeblock>", "`src/app.py`", "**src/app.py**",
    "File: src/app.py", "src/app.py:", "# src/app.py",
])
def test_wrapped_paths_through_parse_response(wrapped: str) -> None:
    result = parse_response(_v3(wrapped))
    assert [b.file for b in result.blocks] == ["src/app.py"]
    assert result.warnings == []


def test_prose_above_a_block_carries_over_the_previous_path_with_a_warning() -> None:
    text = _v3("src/app.py") + "\nAnd then this change:\n\n" + _v3("", "y = 2").lstrip("\n")
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["src/app.py", "src/app.py"]
    assert len(result.warnings) == 1
    assert "previous block's path" in result.warnings[0].message
    assert result.warnings[0].response_line == result.blocks[1].response_line


def test_no_path_and_no_previous_block_is_skipped_with_a_warning() -> None:
    result = parse_response("Here is the fix:\n««« EDIT\na\n═══════ REPL\nb\n»»» EDIT END\n")
    assert result.blocks == []
    assert len(result.warnings) == 1
    assert result.warnings[0].response_line == 1
    assert "no file path" in result.warnings[0].message


def test_the_previous_blocks_lines_are_never_a_path() -> None:
    # The line above the second start marker is the first block's end marker.
    text = _v3("src/app.py") + _v3("", "y = 2").lstrip("\n")
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["src/app.py", "src/app.py"]
    assert "previous block's path" in result.warnings[0].message


def test_path_memo_is_bounded_and_skips_long_lines() -> None:
    # find_path_line memoises verdicts on short lines; the memo must not grow without bound
    # (a hostile response has millions of distinct lines) nor keep a huge line alive.
    from lsp_server.parsing import paths

    for k in range(paths._MEMO_SIZE + 10):
        assert find_path_line([f"src/f{k}.py", "««« EDIT"], 1, 0) == (0, f"src/f{k}.py")
    assert len(paths._path_memo) <= paths._MEMO_SIZE
    long_line = "src/" + "x" * 5000
    assert find_path_line([long_line, "««« EDIT"], 1, 0) is None  # longer than a path line
    assert long_line not in paths._path_memo
    # A memoised verdict is the same as a fresh one.
    assert find_path_line(["```python", "src/a.py", "```", "««« EDIT"], 3, 0) == (1, "src/a.py")
    assert find_path_line(["```python", "src/a.py", "```", "««« EDIT"], 3, 0) == (1, "src/a.py")


def test_prose_naming_another_file_stops_the_previous_path_from_carrying_over() -> None:
    text = (_v3("other.py") + "\nNow update app.py so that it imports sys:\n"
            + _v3("", "y = 2").lstrip("\n"))
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["other.py"]
    (warning,) = result.warnings
    assert warning.response_line == 8  # the start marker
    assert "names `app.py`, not the previous block's `other.py`" in warning.message


@pytest.mark.parametrize("prose", [
    "And in app.py, too:", "More of src/app.py:", "Then ./src/app.py again:",
])
def test_prose_naming_the_previous_file_lets_its_path_carry_over(prose: str) -> None:
    text = _v3("src/app.py") + f"\n{prose}\n```\n" + _v3("", "y = 2").lstrip("\n")
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["src/app.py", "src/app.py"]
    assert "previous block's path" in result.warnings[0].message


def test_prose_names_the_block_file_over_the_previous_blocks() -> None:
    text = _v3("other.py") + "\nNow in `app.py`:\n" + _v3("", "y = 2").lstrip("\n")
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["other.py", "app.py"]
    assert result.warnings == []


def test_a_backslash_path_line_is_read_with_slashes() -> None:
    result = parse_response(_v3("src\\util.py"))
    assert [b.file for b in result.blocks] == ["src/util.py"]
