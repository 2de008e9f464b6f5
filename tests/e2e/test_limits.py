"""Limits: big responses, files and blocks are answered with a clear message, within bounds.

Sizes here are moderate (the long run, ``fuzz/run_fuzz.py --limits``, uses the real ones: a
50 MB response, a 1,000,000-line file, a 100,000-line block, and measures time and peak
RSS). The tests assert behaviour: what is refused, with which message, and that the limits
are configurable (``initializationOptions`` / command ``options`` for the server, options
for the CLI, keywords for the Python API). See docs/safety.md for the table of limits.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from lsp_server.planning import DEFAULT_MAX_BLOCK_LINES, block_line_count, plan_response
from lsp_server.testing.editor_session import EditorSession
from lsp_server.workspace import read_disk_file


def _rows(count: int, word: str = "row") -> str:
    return "".join(f"{word} {i}\n" for i in range(count))


def _replace_all(path: str, count: int) -> str:
    return (f"{path}\n<<<<<<< SEARCH\n{_rows(count)}=======\n{_rows(count, 'ROW')}"
            ">>>>>>> REPLACE\n")


# ------------------------------------------------------------------ block lines


def test_a_100000_line_block_applies(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(_rows(50_000), encoding="utf-8")
    plan = plan_response(_replace_all("big.txt", 50_000), read_disk_file, [tmp_path])
    (block,) = plan.blocks
    assert block.status == "validated"
    assert plan.changes[0].new_text == _rows(50_000, "ROW")


def test_a_block_over_max_block_lines_fails_at_once_with_the_limit_named(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(_rows(1000), encoding="utf-8")
    response = _replace_all("big.txt", 1000) + _replace_all("other.txt", 1)
    plan = plan_response(response, read_disk_file, [tmp_path], max_block_lines=1500)
    big, small = plan.blocks
    assert big.status == "failed"
    assert "Block has 2000 lines, more than the limit of 1500 (maxBlockLines)" in big.reason
    assert small.status == "failed" and "not found" in small.reason.lower()  # still planned
    assert plan.changes == []
    # No limit: it applies.
    plan = plan_response(response, read_disk_file, [tmp_path], max_block_lines=None)
    assert plan.blocks[0].status == "validated"


def test_default_block_line_limit_counts_every_line_of_the_block() -> None:
    from lsp_server.parsing import parse_response

    (block,) = parse_response(_replace_all("x.txt", 10)).blocks
    assert block_line_count(block) == 20
    patch = "*** Begin Patch\n*** Update File: x.txt\n@@ a\n-b\n+c\n d\n*** End Patch\n"
    (block,) = parse_response(patch).blocks
    assert block_line_count(block) == 3
    assert DEFAULT_MAX_BLOCK_LINES >= 100_000


# ------------------------------------------------------------------ the server's limits


def _search_replace(path: str, old: str, new: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n"


async def test_server_limits_are_configurable_and_say_what_was_exceeded(tmp_path: Path) -> None:
    (tmp_path / "small.txt").write_text("a\n", encoding="utf-8")
    (tmp_path / "big.txt").write_text("b\n" + "z\n" * 199, encoding="utf-8")  # 400 bytes
    editor = EditorSession(tmp_path, initialization_options={
        "maxResponseBytes": 4000, "maxBlocks": 3, "maxFileBytes": 300, "maxBlockLines": 4})
    await editor.start()
    try:
        editor.open("buffer.txt", "c\n" + "y\n" * 199)

        async def error(argument: dict) -> str:
            with pytest.raises(JsonRpcException) as caught:
                await editor.run("llmEdits.preview", argument)
            assert caught.value.code == JsonRpcInvalidParams.CODE
            return caught.value.message

        # maxResponseBytes and maxBlocks refuse the whole response, saying which limit.
        message = await error({"response": _search_replace("small.txt", "a", "x" * 5000)})
        assert "more than maxResponseBytes (4000)" in message
        # Four different blocks: a repeated one would be already-applied, not failed.
        four = "".join(_search_replace("small.txt", "a", new) for new in "bcde")
        assert "the response has 4 blocks, more than maxBlocks (3)" in await error(
            {"response": four})
        for command in ("llmEdits.parse", "llmEdits.apply", "llmEdits.feedback"):
            with pytest.raises(JsonRpcException, match="maxBlocks"):
                await editor.run(command, {"response": four})
        # A command's own options win over initializationOptions.
        result = await editor.run("llmEdits.preview",
                                  {"response": four, "options": {"maxBlocks": 4}})
        assert [b["status"] for b in result["blocks"]] == ["validated", "failed", "skipped",
                                                            "skipped"]

        # maxFileBytes and maxBlockLines fail the block, with the reason.
        response = (_search_replace("big.txt", "b", "x") + _search_replace("buffer.txt", "c", "x")
                    + _search_replace("small.txt", "a\na\na", "x\nx"))
        result = await editor.run("llmEdits.preview", {"response": response})
        big, buffer, long = result["blocks"]
        assert big["status"] == "failed"
        assert "file is 400 bytes, over the 300-byte limit" in big["reason"]
        assert buffer["status"] == "failed"
        assert "open buffer is 400 bytes, over the 300-byte limit (maxFileBytes)" in buffer[
            "reason"]
        assert long["status"] == "failed"
        assert "Block has 5 lines, more than the limit of 4 (maxBlockLines)" in long["reason"]
        result = await editor.run("llmEdits.preview", {"response": response, "options": {
            "maxFileBytes": 1000, "maxBlockLines": 10}})
        assert [b["status"] for b in result["blocks"]][:2] == ["validated", "validated"]

        # Wrong limits are an error naming the option.
        for key in ("maxResponseBytes", "maxFileBytes", "maxBlocks", "maxBlockLines"):
            for bad in (0, -5, "10", 1.5, True):
                assert key in await error({"response": "x", "options": {key: bad}})
        assert await editor.ping()
    finally:
        await editor.stop()


async def test_invalid_limits_in_initialization_options_fall_back_to_the_defaults(
        tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    editor = EditorSession(tmp_path, initialization_options={"maxBlocks": "many"})
    await editor.start()
    try:
        result = await editor.run("llmEdits.preview",
                                  {"response": _search_replace("a.txt", "a", "b") * 5})
        assert len(result["blocks"]) == 5
        warnings = [m.message for m in editor.client.log_messages
                    if m.type == types.MessageType.Warning]
        assert any("maxBlocks" in m for m in warnings), warnings
    finally:
        await editor.stop()


# ------------------------------------------------------------------ the CLI's limits


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lsp_server.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_cli_limits_are_options_and_say_what_was_exceeded(tmp_path: Path) -> None:
    (tmp_path / "small.txt").write_text("a\n", encoding="utf-8")
    (tmp_path / "big.txt").write_text("b\n" + "z\n" * 199, encoding="utf-8")
    root = ["--root", str(tmp_path)]
    run = _cli("check", "-", *root, "--max-response-bytes", "10",
               stdin=_search_replace("small.txt", "a", "b"))
    assert run.returncode == 2 and "larger than 10 bytes (--max-response-bytes)" in run.stderr
    run = _cli("check", "-", *root, "--max-blocks", "2",
               stdin=_search_replace("small.txt", "a", "b") * 3)
    assert run.returncode == 2 and "3 blocks, more than 2 (--max-blocks)" in run.stderr
    response = _search_replace("big.txt", "b", "x") + _search_replace("small.txt", "a\na", "x")
    run = _cli("apply", "-", "--json", *root, "--max-file-bytes", "300",
               "--max-block-lines", "2", stdin=response)
    big, long = json.loads(run.stdout)["blocks"]
    assert "over the 300-byte limit" in big["reason"]
    assert "Block has 3 lines, more than the limit of 2 (maxBlockLines)" in long["reason"]
    assert (tmp_path / "big.txt").read_text(encoding="utf-8").startswith("b\n")
    # Raised limits let the same blocks through (the write re-reads with the same limit).
    run = _cli("apply", "-", "--json", *root, "--max-file-bytes", "1000", stdin=response)
    assert json.loads(run.stdout)["blocks"][0]["status"] == "applied", run.stdout
    assert (tmp_path / "big.txt").read_text(encoding="utf-8").startswith("x\n")
    assert _cli("check", "-", *root, "--max-blocks", "0", stdin="x").returncode == 2


def test_the_cli_and_the_server_default_to_the_same_limits() -> None:
    from lsp_server import limits
    from lsp_server.cli import cli
    from lsp_server.session.options import parse_options

    server = parse_options(None)
    expected = {
        "max_response_bytes": limits.DEFAULT_MAX_RESPONSE_BYTES,
        "max_blocks": limits.DEFAULT_MAX_BLOCKS,
        "max_file_bytes": limits.DEFAULT_MAX_FILE_BYTES,
        "max_block_lines": limits.DEFAULT_MAX_BLOCK_LINES,
    }
    assert {name: getattr(server, name) for name in expected} == expected
    for command in ("check", "apply", "feedback"):
        defaults = {p.name: p.default for p in cli.commands[command].params}
        assert {name: defaults[name] for name in expected} == expected, command


# ------------------------------------------------------------------ parsing at scale


def test_many_blocks_quoting_section_headings_are_all_found() -> None:
    # Each edit block quotes a "## File" heading whose section would swallow what follows;
    # the rescan that recovers the later blocks once compared every recovered span with every
    # kept one: quadratic (8,000 pairs took 10 s here; now under one).
    from lsp_server.parsing import parse_response

    pairs = 8000
    text = "".join(
        f"docs{i}.md\n````\n««« EDIT\n═══════ REPL\n## File `n{i}.txt` created:\n"
        f"»»» EDIT END\n````\n## File `a{i}.txt` deleted.\n" for i in range(pairs))
    blocks = parse_response(text).blocks
    assert len(blocks) == 2 * pairs
    assert [(b.format, b.file) for b in blocks[-2:]] == [
        ("edit-v3", f"docs{pairs - 1}.md"), ("semantic-diff", f"a{pairs - 1}.txt")]


def test_many_malformed_tool_calls_are_each_reported() -> None:
    # json counts the lines before an error from the start of the string it decodes; fed
    # the whole response, every malformed call cost the text before it (quadratic: 20,000
    # broken `edit {` lines and 20,000 broken fences took 21 s here; 50 MB of them, hours).
    from lsp_server.parsing import parse_response

    calls = 20_000
    broken_lines = 'edit {"path": "a.txt", "op": "update",, }\n' * calls
    result = parse_response(broken_lines)
    assert result.blocks == []
    assert len(result.warnings) == calls
    assert "not valid JSON" in result.warnings[-1].message
    assert "column 39" in result.warnings[-1].message  # the column is still the line's own
    broken_fences = '```json\n{"path": "a.txt", "op": 1,,}\n```\n' * calls
    assert len(parse_response(broken_fences).warnings) == calls


def test_a_block_of_many_hunks_applies(tmp_path: Path) -> None:
    # Each hunk used to splice the file's lines and its piece table separately: quadratic
    # in the hunks of one block (these 20,000 took 5 minutes; the line limit allows
    # 100,000). Now one pass per block: about a second.
    hunks = 20_000
    (tmp_path / "h.txt").write_text("".join(f"h{i}\n" for i in range(hunks)), encoding="utf-8")
    response = ("*** Begin Patch\n*** Update File: h.txt\n"
                + "".join(f"@@\n-h{i}\n+H{i}\n" for i in range(hunks)) + "*** End Patch\n")
    plan = plan_response(response, read_disk_file, [tmp_path])
    assert [b.status for b in plan.blocks] == ["validated"], plan.blocks[0].reason
    (change,) = plan.changes
    assert change.new_text == "".join(f"H{i}\n" for i in range(hunks))
    assert len(change.edits) == 1  # adjacent changed lines are one edit


def test_a_failing_block_with_a_huge_line_is_still_placed(tmp_path: Path) -> None:
    # Fuzzy comparison looks at the first 2,000 characters of a line (rapidfuzz prepares
    # ~32 bytes per query character: a 50 MB line took 1.7 GB to diagnose, now ~260 MB).
    # The estimated line must still be right.
    long_line = "data = '" + "x" * 300_000
    (tmp_path / "min.js").write_text("a = 1\nb = 2\n" + long_line + "'\nc = 3\n",
                                     encoding="utf-8")
    response = f"min.js\n<<<<<<< SEARCH\n{long_line}!'\n=======\nd = 4\n>>>>>>> REPLACE\n"
    (block,) = plan_response(response, read_disk_file, [tmp_path]).blocks
    assert block.status == "failed"
    assert block.line == 2
