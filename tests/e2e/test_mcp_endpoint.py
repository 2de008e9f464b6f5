"""End to end: agents through the editor. The language server (over stdio, driven by the test
editor as VS Code drives it) serves the MCP tools over streamable HTTP once its ``mcp`` setting
is on; the official MCP SDK's client calls them as an agent does (docs/agents.md)."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from lsprotocol import types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from pygls.exceptions import JsonRpcException

from lsp_server.testing.editor import Editor

APP = "def greet(name):\n    return 'hi ' + name\n"
ON = {"mcp": {"enabled": True}}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@asynccontextmanager
async def agent(endpoint: dict[str, Any]) -> AsyncIterator[Client]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {endpoint['token']}"})
    async with http, Client(streamable_http_client(endpoint["url"], http_client=http)) as client:
        yield client


async def until(condition: Callable[[], bool], what: str) -> None:
    """Poll a condition the server brings about with a notification (generous deadline)."""
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


async def started(editor: Editor, options: Any = ON) -> dict[str, Any]:
    await editor.start(initialization_options=options)
    editor.write("app.py", APP)
    return await editor.run("llmEdits.mcpEndpoint", {})


async def test_an_agents_edit_of_an_unsaved_buffer_arrives_as_a_versioned_apply_edit(
        editor: Editor) -> None:
    endpoint = await started(editor)
    assert endpoint["url"].startswith("http://127.0.0.1:") and endpoint["url"].endswith("/mcp")
    editor.open("app.py")
    unsaved = APP.replace("'hi '", "'hello '")
    editor.type("app.py", unsaved)  # the user's unsaved change
    version = editor.buffers[editor.uri("app.py")][1]
    async with agent(endpoint) as client:
        result = await client.call_tool("edit_file", {
            "path": "app.py", "old_string": "'hello '", "new_string": "'howdy '",
            "expected_sha256": sha(unsaved)})
    assert not result.is_error, result.content[0].text
    [request] = editor.apply_requests
    [step] = request.edit.document_changes
    assert (step.text_document.uri, step.text_document.version) == (editor.uri("app.py"), version)
    assert editor.text("app.py") == APP.replace("'hi '", "'howdy '")  # the buffer changed
    assert (editor.root / "app.py").read_text() == APP  # the disk did not
    assert result.structured_content["files"][0]["sha256After"] == sha(editor.text("app.py"))


async def test_checks_see_the_open_buffer_and_preconditions_its_text(editor: Editor) -> None:
    endpoint = await started(editor)
    editor.open("app.py")
    editor.type("app.py", APP.replace("name", "who"))
    disk_block = "app.py\n<<<<<<< SEARCH\n    return 'hi ' + name\n=======\n    return 1\n" \
                 ">>>>>>> REPLACE\n"
    async with agent(endpoint) as client:
        stale = await client.call_tool("check_edits", {"response": disk_block})
        assert stale.is_error
        assert "did you mean line 2?" in stale.content[0].text
        assert "> 2 |     return 'hi ' + who" in stale.content[0].text  # the buffer's line
        read_from_disk = await client.call_tool("apply_edits", {
            "response": disk_block.replace("+ name", "+ who"),
            "expected_sha256": {"app.py": sha(APP)}})
    assert read_from_disk.is_error
    assert "changed since it was read" in read_from_disk.structured_content["blocks"][0]["reason"]
    assert editor.apply_requests == []
    assert editor.text("app.py") == APP.replace("name", "who")


async def test_a_failed_call_is_published_as_a_diagnostic(editor: Editor) -> None:
    endpoint = await started(editor)
    editor.open("app.py")
    async with agent(endpoint) as client:
        result = await client.call_tool(
            "edit_file", {"path": "app.py", "old_string": "return 'bye '", "new_string": "x"})
    assert result.is_error
    await until(lambda: editor.diagnostics("app.py") != [], "a diagnostic on app.py")
    [diagnostic] = editor.diagnostics("app.py")
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.range.start.line == 1


async def test_paths_and_arguments_are_checked_as_over_stdio(editor: Editor) -> None:
    endpoint = await started(editor)
    async with agent(endpoint) as client:
        outside = await client.call_tool(
            "edit_file", {"path": "../app.py", "old_string": "a", "new_string": "b"})
        wrong = await client.call_tool("apply_edits", {"response": ["not text"]})
    assert outside.is_error and outside.structured_content["blocks"][0]["status"] == "failed"
    assert wrong.is_error and "'response' must be a string" in wrong.content[0].text
    assert editor.apply_requests == []


async def test_two_agents_at_once(editor: Editor) -> None:
    endpoint = await started(editor)
    editor.write("other.py", "x = 1\n")

    async def call(name: str, arguments: dict) -> bool:
        async with agent(endpoint) as client:
            return (await client.call_tool(name, arguments)).is_error

    errors = await asyncio.gather(
        call("edit_file", {"path": "app.py", "old_string": "'hi '", "new_string": "'yo '"}),
        call("edit_file", {"path": "other.py", "old_string": "x = 1", "new_string": "x = 2"}))
    assert errors == [False, False]
    assert len(editor.apply_requests) == 2
    assert editor.text("app.py") == APP.replace("'hi '", "'yo '")
    assert editor.text("other.py") == "x = 2\n"


async def test_two_agents_editing_one_file_from_the_same_text_one_wins(editor: Editor) -> None:
    endpoint = await started(editor)
    editor.open("app.py")
    read = sha(APP)  # both agents read the same text, then edit it at once

    async def call(new: str) -> Any:
        async with agent(endpoint) as client:
            return await client.call_tool("edit_file", {
                "path": "app.py", "old_string": "'hi '", "new_string": new,
                "expected_sha256": read})

    results = await asyncio.gather(call("'yo '"), call("'hey '"))
    assert sorted(r.is_error for r in results) == [False, True]
    [won] = [r for r in results if not r.is_error]
    [lost] = [r for r in results if r.is_error]
    reason = lost.structured_content["blocks"][0]["reason"]
    # refused by the buffer's version (planned before the other edit landed) or, planned
    # after it, by the precondition
    assert "stale" in reason or "changed since it was read" in reason, reason
    new = "'yo '" if won is results[0] else "'hey '"
    assert editor.text("app.py") == APP.replace("'hi '", new)  # one change, never both


async def _status(endpoint: dict[str, Any], headers: dict[str, str]) -> int:
    async with httpx2.AsyncClient() as http:
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        response = await http.post(endpoint["url"], json=body, headers={
            "Accept": "application/json, text/event-stream", **headers})
        return response.status_code


async def test_every_request_needs_the_token_and_this_very_host(editor: Editor) -> None:
    endpoint = await started(editor)
    bearer = {"Authorization": f"Bearer {endpoint['token']}"}
    host = endpoint["url"].split("/")[2]
    assert await _status(endpoint, {}) == 401
    assert await _status(endpoint, {"Authorization": "Bearer guessed"}) == 401
    assert await _status(endpoint, {**bearer, "Host": "attacker.example"}) == 421
    assert await _status(endpoint, {**bearer, "Origin": "http://attacker.example"}) == 403
    assert await _status(endpoint, {**bearer, "Host": host}) not in (401, 403, 421)


async def _refused(call: Callable[[], Awaitable[Any]]) -> str:
    with pytest.raises(JsonRpcException) as raised:
        await call()
    return str(raised.value)


async def test_the_endpoint_serves_only_while_the_setting_is_on(editor: Editor) -> None:
    await editor.start()
    message = await _refused(lambda: editor.run("llmEdits.mcpEndpoint", {}))
    assert "the MCP endpoint is off" in message
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"llmEdits": ON}))
    endpoint = await editor.run("llmEdits.mcpEndpoint", {})
    async with agent(endpoint) as client:
        assert len((await client.list_tools()).tools) == 4
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"llmEdits": {"mcp": {"enabled": False}}}))
    await _refused(lambda: editor.run("llmEdits.mcpEndpoint", {}))

    async def closed() -> bool:
        try:
            await _status(endpoint, {})
        except httpx2.TransportError:
            return True
        return False

    for _ in range(500):  # the server stops listening as a task after the notification
        if await closed():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the endpoint still answers after the setting was turned off")


async def test_each_agents_config_names_the_url_and_token(editor: Editor) -> None:
    endpoint = await started(editor)
    assert set(endpoint["configs"]) == {"Claude Code", "Codex CLI", "Gemini CLI",
                                        "VS Code (mcp.json)"}
    for text in endpoint["configs"].values():
        assert endpoint["url"] in text and endpoint["token"] in text
