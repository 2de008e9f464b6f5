"""Hostile responses: no exception escapes, every block is reported, nothing leaves the workspace.

The generators and invariants live in ``fuzz/harness.py`` (shared with the long run,
``fuzz/run_fuzz.py``). Here a few hundred examples run without a deadline, plus the
regressions the fuzzer found, each as a plain example.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from fuzz.harness import (
    COMMANDS,
    HostileWorkspace,
    check_response,
    command_arguments,
    json_values,
    red_team_lines,
    responses,
    unaccounted_start_markers,
)
from fuzz.streaming import streaming_session
from lsp_server.model import ParseResult
from lsp_server.parsing import parse_response
from lsp_server.testing.editor_session import EditorSession

FUZZ_SETTINGS = settings(
    max_examples=200, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> HostileWorkspace:
    return HostileWorkspace.create(tmp_path_factory.mktemp("hostile"))


# ------------------------------------------------------------------ fuzzing


@FUZZ_SETTINGS
@given(text=st.data(), matching=st.sampled_from(["exact", "whitespace"]), atomic=st.booleans())
def test_hostile_responses_are_handled_safely(hostile: HostileWorkspace, text: st.DataObject,
                                              matching: str, atomic: bool) -> None:
    before = hostile.snapshot()
    response = text.draw(responses(hostile))
    assert check_response(hostile, response, matching=matching, atomic=atomic,
                          before=before) == []


@settings(max_examples=60, deadline=None, database=None)
@given(data=st.data())
def test_red_team_parser_blocks_warn_and_leave_the_other_blocks(
        hostile: HostileWorkspace, data: st.DataObject) -> None:
    # issue 13: huge numbers, lone surrogate escapes in paths, blocks of many tiny hunks
    good = "a.py\n««« EDIT\na\n═══════ REPL\nb\n»»» EDIT END\n"
    lines = red_team_lines(data.draw, 3000)
    text = good + "\n".join(lines) + "\n" + good.replace("a.py", "b.py")
    result = parse_response(text, max_block_lines=2000)
    assert [b.file for b in result.blocks if b.format == "edit-v3"] == ["a.py", "b.py"]
    assert not any("internal error" in w.message for w in result.warnings)
    assert unaccounted_start_markers(text, result) == []
    assert check_response(hostile, text) == []


# ------------------------------------------------------------------ regressions


def _blocks(text: str) -> list[tuple[str, str, str]]:
    return [(b.format, b.op, b.file) for b in parse_response(text).blocks]


def test_quoted_section_heading_in_an_edit_block_does_not_swallow_later_blocks() -> None:
    # The edit block's content quotes a semantic-diff heading; the fence after it (the edit
    # block's own closing ````) opened a section that never closed and hid every later
    # semantic-diff block without a word.
    text = "\n".join([
        "docs.md", "````", "««« EDIT", "═══════ REPL", "## File `n.txt` created:",
        "»»» EDIT END", "````", "",
        "## File `a.txt` moved to `b.txt`.",
        "## File `c.txt` modified:", "### Hunk 1:", "#### Lines to remove:", "```", "old",
        "```", "#### Lines to add:", "```", "new", "```", "",
    ])
    assert _blocks(text) == [
        ("edit-v3", "create", "docs.md"),
        ("semantic-diff", "rename", "a.txt"),
        ("semantic-diff", "update", "c.txt"),
    ]


def test_leading_bom_does_not_hide_the_first_block() -> None:
    call = json.dumps({"path": "a.txt", "op": "delete"})
    assert _blocks("\ufeffedit " + call + "\n") == [("hunk-patch", "delete", "a.txt")]
    assert _blocks("\ufeff## File `a.txt` deleted.\n") == [("semantic-diff", "delete", "a.txt")]


def test_deeply_nested_json_is_a_warning_and_other_tool_calls_survive() -> None:
    # A RecursionError escaped the hunk-patch parser, so parse_response dropped every
    # hunk-patch block of the response behind an "internal error" warning.
    good = "edit " + json.dumps({"path": "a.txt", "op": "update", "diff": "@@\n-a\n+b\n"})
    deep_line = "edit " + '{"path": ' * 5000 + "1" + "}" * 5000
    deep_fence = "```json\n" + "[" * 5000 + '{"path": "a.txt", "op": "delete"}' + "]" * 5000
    for hostile in (deep_line, deep_fence + "\n```"):
        result = parse_response(good + "\n" + hostile + "\n")
        assert [(b.format, b.file) for b in result.blocks] == [("hunk-patch", "a.txt")]
        assert not any("internal error" in w.message for w in result.warnings)
        assert any(w.response_line == 1 for w in result.warnings)


# ------------------------------------------------------------------ the server


def test_garbage_command_arguments_get_error_responses_and_the_server_lives(
        tmp_path: Path) -> None:
    """Random JSON as command arguments (and near-valid objects with wrong value types):
    every call gets a result or an InvalidParams error, never an internal error or no
    answer, and the server still serves afterwards."""
    hostile = HostileWorkspace.create(tmp_path)  # its own: applies change buffers and disk
    loop = asyncio.new_event_loop()
    editor = EditorSession(hostile.root)
    loop.run_until_complete(editor.start())
    editor.open("a.txt")
    outcomes: Counter[str] = Counter()

    @settings(max_examples=80, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(command=st.sampled_from(COMMANDS), argument=command_arguments(),
           raw=st.one_of(st.none(), st.lists(json_values, max_size=3)))
    def call(command: str, argument: object, raw: list | None) -> None:
        try:
            loop.run_until_complete(editor.run(command, argument, raw_arguments=raw, timeout=60))
            outcomes["result"] += 1
        except JsonRpcException as exc:
            assert exc.code == JsonRpcInvalidParams.CODE, exc.message
            outcomes["invalid params"] += 1

    try:
        call()
        assert loop.run_until_complete(editor.ping())
        assert outcomes["result"] and outcomes["invalid params"], outcomes
    finally:
        loop.run_until_complete(editor.stop())
        loop.close()
    assert hostile.snapshot()[os.path.join("outside", "secret.txt")] == ("file", b"secret\n")


# ------------------------------------------------------------------ engine internals


@settings(max_examples=200, deadline=None, database=None)
@given(data=st.data(), count=st.integers(0, 30))
def test_batched_line_origins_equal_one_replace_at_a_time(data: st.DataObject,
                                                          count: int) -> None:
    """``LineOrigins.replace_many`` (one pass for a block's hunks) maps every line exactly
    as applying the same replacements one by one, last first."""
    from lsp_server.file_text import LineOrigins

    def fresh() -> LineOrigins:
        origins = LineOrigins(count)
        for start, end, items in history:  # some earlier edits, so pieces are mixed
            origins.replace(start, end, items)
        return origins

    history: list = []
    length = count
    for _ in range(data.draw(st.integers(0, 3))):
        start = data.draw(st.integers(0, length))
        end = data.draw(st.integers(start, length))
        items = data.draw(st.lists(st.one_of(st.integers(start, max(start, end - 1)),
                                             st.just("new")), max_size=4))
        items = [i for i in items if isinstance(i, str) or i < end] or ["new"]
        history.append((start, end, sorted(items, key=lambda i: (isinstance(i, str), i))))
        length += len(history[-1][2]) - (end - start)
    cuts = sorted(data.draw(st.lists(st.integers(0, length), max_size=8)))
    replacements = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        kept = [line for line in range(start, end) if data.draw(st.booleans())]
        items = kept + ["x"] * data.draw(st.integers(0, 2))
        replacements.append((start, end, items))
    one_by_one, batched = fresh(), fresh()
    for start, end, items in reversed(replacements):
        one_by_one.replace(start, end, items)
    batched.replace_many(replacements)
    total = sum(n for _, n in one_by_one.pieces)
    assert total == sum(n for _, n in batched.pieces)
    assert [one_by_one.origin(i) for i in range(total)] == [
        batched.origin(i) for i in range(total)]


def test_a_span_swallowed_at_its_head_is_found_again_and_reported() -> None:
    # A semantic-diff "created:" heading quoted in an unclosed edit block took the next
    # block's path and fence as its content; the next edit block was then dropped as lying
    # inside it, and the rescan dropped it again because its path line was still inside.
    text = "\n".join(["src.py", "~~~", "««« EDIT", "gamma", "## File `n.txt` created:",
                      "───────", "───────", "═══════ REPL", "»»» EDIT END", "~~~", "",
                      "crlf.txt", "~~~", "««« EDIT", "one", "═══════ REPL", "ONE",
                      "»»» EDIT END", "~~~", ""])
    result = parse_response(text)
    assert ("edit-v3", "update") in [(b.format, b.op) for b in result.blocks]
    assert any(w.response_line == 13 and "no file path" in w.message for w in result.warnings)


def test_blocks_quoted_in_a_malformed_block_are_not_applied() -> None:
    # An edit block opening right after a diff hunk took the hunk's last line as its path
    # line, so it was dropped as overlapping the diff; the rescan dropped it too (it covered
    # the apply-patch it quotes), so the quoted "Delete File" became a real block and its
    # own malformed-block warning vanished.
    text = "\n".join(["```diff", "--- a/empty.txt", "+++ b/empty.txt", "@@ -1,0 +1,1 @@", "+x",
                      "««« EDIT", "```", "a.txt", "««« EDIT", "───────", "═══════",
                      "───────", "»»»", "*** Begin Patch", "*** Delete File: crlf.txt",
                      "*** End Patch", "»»» EDIT END", ""])
    result = parse_response(text)
    assert [(b.format, b.file) for b in result.blocks] == [("unified-diff", "empty.txt")]
    assert [w.response_line for w in result.warnings] == [5]


def test_markers_inside_a_warned_malformed_block_are_accounted_by_its_warning() -> None:
    # Found by the long run (the harness, not the parser): a "## File … deleted." heading
    # inside a malformed edit block (no dividers, skipped with a warning at its start) was
    # read on its own by the harness as a semantic-diff section, whose end then hid the
    # warning from the SEARCH marker below it.
    text = "\n".join(["Done.", "x.py", "```", "««« EDIT", "## File `a.txt` deleted.",
                      "<<<<<<< SEARCH", "»»»", "*** Update File: a.txt", "═══════ REPL",
                      "»»» EDIT END", "```"])
    result = parse_response(text)
    assert result.blocks == []
    # 7: the "*** Update File" line after the malformed block is outside every patch
    assert [w.response_line for w in result.warnings] == [3, 7]
    assert unaccounted_start_markers(text, result) == []
    # The window keeps its floor: a kept block between a warning and a marker means the
    # warning does not account for the marker (here the parse result is doctored to lose
    # the second block's report).
    tail = ["x.py", "<<<<<<< SEARCH", "a", "=======", "b", ">>>>>>> REPLACE", "",
            "y.py", "<<<<<<< SEARCH", "c", "=======", "d", ">>>>>>> REPLACE", ""]
    full = text + "\n" + "\n".join(tail)
    complete = parse_response(full)
    assert [b.response_line for b in complete.blocks] == [11, 18]
    doctored = ParseResult(blocks=complete.blocks[:1], warnings=complete.warnings)
    assert unaccounted_start_markers(full, doctored) == [19]


def test_a_guillemet_block_spilling_as_v2_is_found_again_as_v3() -> None:
    # Found by the second long run: a "««« EDIT" quoted in a SEARCH/REPLACE block was read
    # as an edit-v2 block running to a later "»»»", past the SEARCH/REPLACE block. The
    # rescan masked the swallower but re-ran only edit-v2; with the quoted line masked, the
    # next "««« EDIT" closes as an edit-v3 block (here malformed), which went unreported.
    text = "\n".join(["x.txt", "```", "<<<<<<< SEARCH", "=======", "««« EDIT", "gamma",
                      ">>>>>>> REPLACE", "```", "y.txt", "««« EDIT", "»»» EDIT END",
                      "───────", "═══════", "───────", "»»»"])
    result = parse_response(text)
    assert [(b.format, b.response_line) for b in result.blocks] == [("search-replace", 0)]
    assert [(w.response_line, "edit-v3" in w.message) for w in result.warnings] == [(9, True)]
    assert unaccounted_start_markers(text, result) == []


# ------------------------------------------------------------------ streaming sessions


@pytest.mark.parametrize("seed", range(3))
async def test_streaming_sessions_keep_the_promises_of_response_documents(
        tmp_path: Path, seed: int) -> None:
    """A response streamed with applyWhileStreaming while the user types in it, pastes
    above it and reopens it (fuzz/streaming.py): the response document is never edited,
    nothing the user does applies a block, no block applies twice, the server answers."""
    report = await streaming_session(tmp_path.resolve(), seed)
    assert report.problems == [], report
    assert report.steps  # the user did something in each of these seeds
