"""parsing.code_block: a fence is a block when its file is named (or ``target`` names it)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.model import Block
from lsp_server.parsing import parse_response
from lsp_server.parsing.code_block import looks_like_file, path_comment, read_info
from lsp_server.parsing.incremental import IncrementalParse

SNIPPET = "def save(path, data):\n    json.dump(data, f, indent=2)\n"
CODE = ["def save(path, data):", "    json.dump(data, f, indent=2)"]


def _fence(info: str = "python", body: str = SNIPPET, fence: str = "```") -> str:
    return f"{fence}{info}\n{body}{fence}\n"


def _blocks(text: str, target: str | None = None) -> list[Block]:
    return parse_response(text, target=target).blocks


def _one(text: str, target: str | None = None) -> Block:
    [block] = _blocks(text, target)
    assert (block.format, block.op) == ("code-block", "write")
    return block


# ------------------------------------------------------------------- what names the file


@pytest.mark.parametrize("above", [
    "conf/store.py", "`conf/store.py`", "**conf/store.py**", "conf/store.py:",
    "File: conf/store.py", "### conf/store.py",
    "Update `conf/store.py` as follows:", "Now in **conf/store.py**, change `save`:",
])
def test_a_path_line_or_prose_naming_one_path_names_the_fence(above: str) -> None:
    block = _one(f"Sure.\n\n{above}\n{_fence()}\nDone.\n")
    assert (block.file, block.new, block.info) == ("conf/store.py", CODE, "python")
    assert (block.response_line, block.end_line) == (2, 7)
    assert block.raw.startswith(above) and block.raw.endswith("```")


@pytest.mark.parametrize("info", [
    "conf/store.py", "python conf/store.py", "python:conf/store.py",
    'python title="conf/store.py"', "python file=conf/store.py", "py path='conf/store.py'",
    'python filename="conf/store.py"', '{.python title="conf/store.py"}',
])
def test_the_info_string_names_the_file(info: str) -> None:
    block = _one("Here:\n\n" + _fence(info))
    assert (block.file, block.new, block.response_line) == ("conf/store.py", CODE, 2)


@pytest.mark.parametrize(("first_line", "path"), [
    ("# conf/store.py", "conf/store.py"),
    ("// file: src/app.js", "src/app.js"),
    ("<!-- docs/x.md -->", "docs/x.md"),
    ("-- db/schema.sql", "db/schema.sql"),
    ("/* src/main.c */", "src/main.c"),
    ("# File: store.py", "store.py"),
])
def test_a_first_line_that_is_only_a_comment_naming_a_path_names_it_and_is_not_code(
        first_line: str, path: str) -> None:
    block = _one("Here:\n\n" + _fence("", first_line + "\n" + SNIPPET))
    assert (block.file, block.new) == (path, CODE)


@pytest.mark.parametrize("first_line", [
    "#!/usr/bin/env python", "# -*- coding: utf-8 -*-", "# e.g.", "// @ts-check",
    "# TODO: fix this", "#include <stdio.h>", "# v2.0",
])
def test_other_first_comments_are_code(first_line: str) -> None:
    assert path_comment(first_line) is None
    block = _one("conf/store.py\n" + _fence("", first_line + "\n" + SNIPPET))
    assert block.new == [first_line, *CODE]


def test_a_comment_naming_the_line_s_file_is_dropped_and_the_fuller_path_kept() -> None:
    block = _one("conf/store.py\n" + _fence("python", "# store.py\n" + SNIPPET))
    assert (block.file, block.new, block.response_line) == ("conf/store.py", CODE, 0)
    # A comment naming another file is the more precise: it names the fence's file.
    block = _one("conf/store.py\n" + _fence("python", "# conf/other.py\n" + SNIPPET))
    assert (block.file, block.new, block.response_line) == ("conf/other.py", CODE, 1)


@pytest.mark.parametrize("above", [
    "Example", "Output:", "Usage", "Here is the code:", "python", "### Step 1",
    "1. Install it", "Try this:", "e.g.", "Run `main()` like this:",
    "You can pass `indent` to `json.dump`:", "Call `self.save` from **os.path**:",
])
def test_lines_that_name_no_file_leave_the_fence_unnamed(above: str) -> None:
    text = f"{above}\n{_fence()}"
    assert _blocks(text) == []
    assert _one(text, target="conf/store.py").file == "conf/store.py"


@pytest.mark.parametrize(("name", "is_file"), [
    ("src/app.py", True), ("app.py", True), ("Makefile", True), ("src/lib/", False),
    ("Dockerfile", True), ("Example", False), ("1.5", False), ("https://x.io/a.py", False),
    ("my file.py", False), ("a/b", True),
])
def test_what_looks_like_a_file(name: str, is_file: bool) -> None:
    assert looks_like_file(name) is is_file


@pytest.mark.parametrize(("info", "read"), [
    ("", ("", None)), ("python", ("python", None)), ("Python", ("python", None)),
    ("c++", ("c++", None)), ("node.js", ("node.js", None)), ("ts src/a.ts", ("ts", "src/a.ts")),
    ("src\\app.py", ("", "src/app.py")),
])
def test_info_strings(info: str, read: tuple[str, str | None]) -> None:
    assert read_info(info) == read


# ------------------------------------------------------------------------- target


def test_target_gives_every_unnamed_fence_its_file_and_named_ones_keep_theirs() -> None:
    text = ("Change `save`:\n\n" + _fence() + "\nand in the other module:\n\nconf/other.py\n"
            + _fence("python", "X = 2\n") + "\n" + _fence("", "Y = 1\n"))
    blocks = _blocks(text, target="conf/store.py")
    assert [(b.file, b.new) for b in blocks] == [
        ("conf/store.py", CODE), ("conf/other.py", ["X = 2"]), ("conf/store.py", ["Y = 1"])]
    assert [b.index for b in blocks] == [0, 1, 2]


def test_without_target_an_unnamed_fence_beside_named_blocks_is_no_block_and_no_guess() -> None:
    # An unnamed fence never takes the previous block's path: only target assigns it.
    text = "conf/other.py\n" + _fence("python", "X = 2\n") + "\nThen:\n\n" + _fence()
    result = parse_response(text)
    assert [(b.file, b.new) for b in result.blocks] == [("conf/other.py", ["X = 2"])]
    assert result.warnings == []


# ------------------------------------------------------------------ never blocks


@pytest.mark.parametrize("lang", ["bash", "sh", "shell", "console", "zsh", "fish", "powershell",
                                  "ps1", "bat", "cmd"])
def test_shell_fences_are_never_blocks_even_named(lang: str) -> None:
    text = f"scripts/build.sh\n```{lang}\ngit rm old.py\n```\n"
    result = parse_response(text, target="conf/store.py")
    assert result.blocks == []
    if lang == "bash":
        assert result.shell_suggestions == ["git rm old.py"]


def test_diff_fences_are_never_code_blocks() -> None:
    text = "conf/store.py\n```diff\n-a\n+b\n```\n"
    assert _blocks(text, target="conf/store.py") == []


@pytest.mark.parametrize("lang", ["text", "output", "log"])
def test_output_fences_are_blocks_only_when_they_name_their_file(lang: str) -> None:
    assert _blocks(_fence(lang, "3 passed\n"), target="conf/store.py") == []
    assert parse_response(_fence(lang, "3 passed\n")).warnings == []  # not counted either
    assert _one("notes/result.txt\n" + _fence(lang, "3 passed\n")).file == "notes/result.txt"


def test_a_fence_holding_another_format_s_markers_is_that_format() -> None:
    text = ("conf/store.py\n```python\n<<<<<<< SEARCH\n    json.dump(data, f)\n=======\n"
            "    json.dump(data, f, indent=2)\n>>>>>>> REPLACE\n```\n")
    assert [b.format for b in _blocks(text, target="conf/store.py")] == ["search-replace"]


def test_a_fence_inside_another_format_s_block_belongs_to_it() -> None:
    text = ("## File `conf/store.py` modified:\n\n### Hunk 1:\n#### Lines to remove:\n"
            "```python\n    json.dump(data, f)\n```\n#### Lines to add:\n```python\n"
            "    json.dump(data, f, indent=2)\n```\n")
    blocks = _blocks(text, target="conf/store.py")
    assert [b.format for b in blocks] == ["semantic-diff"]


def test_an_empty_fence_is_no_block() -> None:
    assert _blocks("conf/store.py\n```python\n\n```\n") == []


def test_a_named_fence_never_closed_is_reported_pending_and_not_applied() -> None:
    result = parse_response("conf/store.py\n```python\ndef save(path, data):\n")
    assert result.blocks == []
    [warning] = result.warnings
    assert (warning.response_line, warning.pending, warning.format, warning.file) == (
        0, True, "code-block", "conf/store.py")
    assert "not closed" in warning.message
    # An unnamed one is nothing at all.
    assert parse_response("Try:\n```python\ndef save(path, data):\n").warnings == []


# ---------------------------------------------------------------- fences as written


def test_an_indented_fence_loses_its_indentation_and_tildes_work() -> None:
    text = "1. In `conf/store.py`:\n\n   ~~~python\n   def f():\n       return 1\n   ~~~\n"
    assert _one(text).new == ["def f():", "    return 1"]


def test_a_markdown_file_holding_fences_is_read_whole() -> None:
    body = "# Guide\n\n```python\nprint('hi')\n```\n\nEnd.\n"
    block = _one("docs/guide.md\n````markdown\n" + body + "````\n")
    assert block.new == body.rstrip("\n").split("\n")
    block = _one("docs/guide.md\n```markdown\n" + body + "```\n")
    assert block.new == body.rstrip("\n").split("\n")


# --------------------------------------------------------------- no block at all


def test_a_response_with_no_block_says_how_many_fences_name_no_file() -> None:
    text = ("Try this:\n\n" + _fence() + "\nor this:\n\n" + _fence("js", "f();\n")
            + "\nRun:\n\n```bash\npytest\n```\n")
    [warning] = parse_response(text).warnings
    assert warning.message == ("No edit blocks found; 2 code blocks name no file: apply them "
                               "to a file with target")
    assert warning.response_line == 2
    [warning] = parse_response(_fence()).warnings
    assert warning.message == ("No edit blocks found; 1 code block names no file: apply it to "
                               "a file with target")


def test_the_count_is_said_only_when_code_block_is_asked_for() -> None:
    assert parse_response(_fence(), {"edit-v3"}).warnings == []


# ---------------------------------------------------------------- streaming, safety

RESPONSES = [
    "Sure.\n\nconf/store.py\n" + _fence() + "\nAnd a test:\n\n```python tests/test_x.py\n"
    "def test_x():\n    assert True\n```\n\nRun:\n```bash\npytest\n```\n",
    "Try:\n" + _fence() + "\n`a.py`:\n````markdown\n# T\n```py\nx\n```\n````\n",
]


@pytest.mark.parametrize("text", RESPONSES)
def test_streamed_in_pieces_each_update_equals_a_full_parse(text: str) -> None:
    incremental = IncrementalParse()
    for end in range(0, len(text) + 1, 7):
        assert incremental.update(text[:end]) == parse_response(text[:end])
    assert incremental.update(text) == parse_response(text)


_PIECES = ["```", "```python", "```bash", "~~~", "````", "conf/a.py", "# b.py", "Try:",
           "x = 1", "", "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "```python a.py",
           "## File `a.py` modified:", "```text", "   ```"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES), max_size=25), st.sampled_from([None, "t.py"]))
def test_the_parser_never_raises_and_every_block_names_a_file(pieces: list[str],
                                                              target: str | None) -> None:
    result = parse_response("\n".join(pieces), target=target)
    assert not [w for w in result.warnings if "internal error" in w.message]
    assert all(b.file for b in result.blocks)


def test_a_shell_fence_given_a_target_is_no_block_and_says_so() -> None:
    text = "The script:\n\n```sh\n#!/bin/sh\nmkdir -p \"$DEST\"\n```\n"
    result = parse_response(text, target="scripts/backup.sh")
    assert result.blocks == []
    assert result.shell_suggestions == ['mkdir -p "$DEST"']
    [warning] = result.warnings
    assert warning.response_line == 2
    assert "1 shell fence is read as commands to suggest" in warning.message
    assert "scripts/backup.sh" in warning.message
    assert parse_response(text).warnings == []  # no target: shell suggestions, as ever
