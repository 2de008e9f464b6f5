"""End to end: ``llm-edits mcp`` over stdio, driven by the official MCP SDK's own client, on
files on disk (docs/agents.md)."""

from __future__ import annotations

import asyncio
import hashlib
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


def search_replace(path: str, old: str, new: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text(CALC)
    return ws.resolve()


@asynccontextmanager
async def mcp_client(root: Path, *extra: str) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "lsp_server.cli", "mcp", "--root", str(root),
                                         *extra])
    async with Client(params) as client:
        yield client


async def test_tools_are_listed_with_their_annotations(root: Path) -> None:
    async with mcp_client(root) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"apply_edits", "check_edits", "edit_file", "format_instructions"}
    assert tools["check_edits"].annotations.read_only_hint is True
    assert tools["apply_edits"].annotations.destructive_hint is True
    assert tools["edit_file"].annotations.destructive_hint is True
    assert tools["edit_file"].input_schema["required"] == ["path", "old_string", "new_string"]


async def test_check_validates_and_writes_nothing(root: Path) -> None:
    response = search_replace("calc.py", "    return a - b\n", "    return b - a\n")
    async with mcp_client(root) as client:
        result = await client.call_tool("check_edits", {"response": response})
    assert not result.is_error
    [block] = result.structured_content["blocks"]
    assert (block["status"], block["line"]) == ("validated", 5)
    assert result.content[0].text.splitlines()[1] == "block 1: calc.py: would apply at line 6"
    [entry] = result.structured_content["files"]
    assert entry["sha256"] == sha(CALC.encode())
    assert (root / "calc.py").read_text() == CALC


async def test_apply_writes_keeping_crlf_bom_and_mode(root: Path) -> None:
    path = root / "win.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    path.chmod(0o640)
    async with mcp_client(root) as client:
        result = await client.call_tool(
            "apply_edits", {"response": search_replace("win.txt", "two\n", "TWO\n")})
    assert not result.is_error, result.content[0].text
    assert path.read_bytes() == b"\xef\xbb\xbfone\r\nTWO\r\nthree\r\n"
    assert path.stat().st_mode & 0o777 == 0o640
    [entry] = result.structured_content["files"]
    assert entry["sha256After"] == sha(path.read_bytes())
    assert result.structured_content["applied"] is True


async def test_a_stale_block_is_an_error_naming_the_real_line(root: Path) -> None:
    response = search_replace("calc.py", "def sub(a, b):\n    return a + b\n",
                              "def sub(a, b):\n    return b - a\n")
    async with mcp_client(root) as client:
        result = await client.call_tool("apply_edits", {"response": response})
    assert result.is_error
    text = result.content[0].text
    assert "block 1: calc.py: FAILED at line 5: Old lines not found in file" in text
    assert "did you mean line 6?" in text
    assert "  file:  '    return a - b'" in text  # the did-you-mean with its caret below
    assert "^" in text.split("  block: '    return a + b'")[1].splitlines()[1]
    assert "> 5 | def sub(a, b):" in text  # the file's real lines around the estimate
    assert result.structured_content["feedback"].startswith("Some of your edit blocks")
    assert (root / "calc.py").read_text() == CALC


async def test_a_file_changed_since_it_was_read_is_refused(root: Path) -> None:
    response = search_replace("calc.py", "    return a - b\n", "    return b - a\n")
    async with mcp_client(root) as client:
        checked = await client.call_tool("check_edits", {"response": response})
        read_hash = checked.structured_content["files"][0]["sha256"]
        user_text = CALC.replace("def add", "def plus")
        (root / "calc.py").write_text(user_text)  # the user edits while the agent thinks
        refused = await client.call_tool(
            "apply_edits", {"response": response, "expected_sha256": {"calc.py": read_hash}})
        assert refused.is_error
        assert "changed since it was read" in refused.structured_content["blocks"][0]["reason"]
        assert (root / "calc.py").read_text() == user_text
        fresh = sha(user_text.encode())
        applied = await client.call_tool(
            "apply_edits", {"response": response, "expected_sha256": {"calc.py": fresh}})
    assert not applied.is_error, applied.content[0].text
    assert (root / "calc.py").read_text() == user_text.replace("a - b", "b - a")


async def test_paths_outside_the_root_and_into_git_are_refused(root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    outside = root.parent / "outside.txt"
    outside.write_text("keep\n")
    response = (search_replace("../outside.txt", "keep\n", "lost\n")
                + search_replace(".git/config", "[core]\n", "[evil]\n"))
    async with mcp_client(root) as client:
        result = await client.call_tool("apply_edits", {"response": response})
    assert result.is_error
    assert [b["status"] for b in result.structured_content["blocks"]] == ["failed", "failed"]
    assert outside.read_text() == "keep\n"
    assert (root / ".git" / "config").read_text() == "[core]\n"


async def test_target_names_the_file_of_an_unnamed_fence(root: Path) -> None:
    (root / "sub.py").write_text("def sub(a, b):\n    c = a - b\n    return c\n")
    fence = "```python\ndef sub(a, b):\n    c = b - a\n    return c\n```\n"
    async with mcp_client(root) as client:
        result = await client.call_tool("apply_edits", {"response": fence, "target": "sub.py"})
        assert not result.is_error, result.content[0].text
        assert (root / "sub.py").read_text() == "def sub(a, b):\n    c = b - a\n    return c\n"
        outside = await client.call_tool("apply_edits", {"response": fence,
                                                         "target": "../sub.py"})
    assert outside.is_error
    assert "target" in outside.content[0].text and "outside" in outside.content[0].text


async def test_shell_suggestions_are_reported_never_run(root: Path) -> None:
    response = ("Then run `rm -rf calc.py` to clean up.\n\n"
                + search_replace("calc.py", "    return a - b\n", "    return b - a\n"))
    async with mcp_client(root) as client:
        result = await client.call_tool("apply_edits", {"response": response})
    assert result.structured_content["shellSuggestions"] == ["rm -rf calc.py"]
    assert "Shell command suggested, not run: rm -rf calc.py" in result.content[0].text
    assert (root / "calc.py").exists()


async def test_a_suggestion_hiding_characters_is_shown_escaped(root: Path) -> None:
    response = ("Then run `rm -rf build/\u202etxt.exe` and\n\n```sh\nrm -rf x\u2028y\n```\n\n"
                + search_replace("calc.py", "    return a - b\n", "    return b - a\n"))
    async with mcp_client(root) as client:
        result = await client.call_tool("check_edits", {"response": response})
    text = result.content[0].text
    assert "Shell command suggested, not run: rm -rf build/<U+202E>txt.exe" in text
    assert "Shell command suggested, not run: rm -rf x<U+2028>y" in text
    assert "\u202e" not in text and "\u2028" not in text
    assert [c["display"] for c in result.structured_content["shellCommands"]] == [
        "rm -rf build/<U+202E>txt.exe", "rm -rf x<U+2028>y"]


@pytest.mark.parametrize(("tool", "arguments", "says"), [
    ("apply_edits", {}, "missing required argument 'response'"),
    ("apply_edits", {"response": 7}, "'response' must be a string, not a number"),
    ("apply_edits", {"response": "x", "force": True}, "unknown argument(s) 'force'"),
    ("apply_edits", {"response": "x", "formats": ["yaml"]}, "unknown format(s) yaml"),
    ("apply_edits", {"response": "x", "expected_sha256": {"calc.py": "abc"}},
     "must be a SHA-256 digest"),
    ("apply_edits", {"response": "x", "expected_sha256": {"../x": "a" * 64}},
     "expected_sha256 names '../x'"),
    ("check_edits", {"response": "x", "dry_run": True}, "unknown argument(s) 'dry_run'"),
    ("edit_file", {"path": "calc.py", "old_string": "a"}, "missing required argument"),
    ("format_instructions", {"format": "prose"}, "'format' must be one of"),
])
async def test_bad_arguments_are_tool_errors(root: Path, tool: str, arguments: dict,
                                             says: str) -> None:
    async with mcp_client(root) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error
    assert says in result.content[0].text
    assert (root / "calc.py").read_text() == CALC


async def test_an_unknown_tool_is_a_protocol_error(root: Path) -> None:
    async with mcp_client(root) as client:
        with pytest.raises(MCPError, match="unknown tool 'write_file'"):
            await client.call_tool("write_file", {"path": "x"})


async def test_no_block_found_is_an_error(root: Path) -> None:
    async with mcp_client(root) as client:
        result = await client.call_tool("apply_edits", {"response": "Just prose, no edit."})
    assert result.is_error
    assert result.content[0].text.startswith("No edit block was found")


async def test_an_oversized_response_hits_the_response_limit(root: Path) -> None:
    async with mcp_client(root, "--max-response-bytes", "100") as client:
        result = await client.call_tool("apply_edits", {"response": "x" * 101})
    assert result.is_error
    assert "over the 100-byte limit of a response" in result.content[0].text


async def test_format_instructions_returns_the_prompt_text(root: Path) -> None:
    async with mcp_client(root) as client:
        result = await client.call_tool("format_instructions", {"format": "search-replace"})
    assert not result.is_error
    assert "<<<<<<< SEARCH" in result.content[0].text
    assert result.structured_content["formats"] == ["search-replace"]


async def test_two_clients_at_once(root: Path) -> None:
    (root / "other.py").write_text("x = 1\n")

    async def apply(response: str) -> bool:
        async with mcp_client(root) as client:
            result = await client.call_tool("apply_edits", {"response": response})
            return result.is_error

    errors = await asyncio.gather(
        apply(search_replace("calc.py", "    return a - b\n", "    return b - a\n")),
        apply(search_replace("other.py", "x = 1\n", "x = 2\n")))
    assert errors == [False, False]
    assert "b - a" in (root / "calc.py").read_text()
    assert (root / "other.py").read_text() == "x = 2\n"


async def test_edit_file_replaces_a_unique_string(root: Path) -> None:
    async with mcp_client(root) as client:
        result = await client.call_tool("edit_file", {
            "path": "calc.py", "old_string": "a - b", "new_string": "b - a",
            "expected_sha256": sha(CALC.encode())})
    assert not result.is_error, result.content[0].text
    assert (root / "calc.py").read_text() == CALC.replace("a - b", "b - a")


async def test_edit_file_refuses_a_string_that_is_not_unique(root: Path) -> None:
    async with mcp_client(root) as client:
        refused = await client.call_tool(
            "edit_file", {"path": "calc.py", "old_string": "(a, b)", "new_string": "(x, y)"})
        assert refused.is_error
        assert (root / "calc.py").read_text() == CALC
        # The agent sent arguments, not a response: the retry text speaks of the call.
        text = refused.content[0].text
        assert "Your edit_file call on calc.py could not be applied" in text
        assert "call edit_file again" in text
        assert "response" not in text and "Block 1" not in text
        every = await client.call_tool("edit_file", {
            "path": "calc.py", "old_string": "(a, b)", "new_string": "(x, y)",
            "replace_all": True})
    assert not every.is_error, every.content[0].text
    assert (root / "calc.py").read_text().count("(x, y)") == 2
