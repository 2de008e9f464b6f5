"""Code lenses of a response document over stdio (pytest-lsp): what each lens says and
runs, and ``workspace/codeLens/refresh`` when the states change (the titles of each status:
tests/unit/lsp/live/test_code_lens.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from lsp_server.testing.editor import Editor
from lsp_server.testing.editor_session import EditorSession

from .responses import edit_v3
from .test_response_documents import (
    APP,
    RESPONSE,
    Stream,
    editor,  # noqa: F401  (the fixture)
    start,
)


def _where(argument: Any) -> Any:
    """A lens argument with its block's key cut to where the block stands (the rest is a
    hash of what it does: this process's)."""
    if isinstance(argument, dict) and "block" in argument:
        where, digest = argument["block"].rsplit("-", 1)
        assert len(digest) == 16
        return {**argument, "block": where}
    return argument


def lens_json(lens: types.CodeLens) -> tuple:
    command = lens.command
    assert command is not None  # resolved (Stream.lenses resolves each lens)
    arguments = None if command.arguments is None else [_where(a) for a in command.arguments]
    return (lens.range.start.line, lens.range.start.character, command.title,
            command.command, arguments)


async def test_each_block_has_its_status_and_preview_and_apply_all_is_at_the_top(
        editor: Editor) -> None:  # noqa: F811
    await start(editor)
    stream = Stream(editor, "answer.llm.md")
    truncated = (RESPONSE[:RESPONSE.index("\nThen a search")]
                 + "\nutil.py\n```python\n<<<<<<< SEARCH\ndef")
    stream.append(truncated)
    uri = stream.uri

    def block(index: int, where: str) -> list:
        return [{"responseUri": uri, "options": {"blocks": [index]}, "block": where}]

    assert [lens_json(lens) for lens in await stream.lenses()] == [
        (0, 0, "Apply all 2 ready blocks", "llmEdits.apply", [{"responseUri": uri}]),
        (2, 0, "✓ app.py:4", "llmEdits.apply", block(0, "2-8")),
        (2, 0, "Preview", "llmEdits.preview", block(0, "2-8")),
        (11, 0, "✗ Old lines not found in file", "llmEdits.apply", block(1, "11-17")),
        (11, 0, "Preview", "llmEdits.preview", block(1, "11-17")),
        (18, 0, "✓ util.py:2", "llmEdits.apply", block(2, "18-24")),
        (18, 0, "Preview", "llmEdits.preview", block(2, "18-24")),
        (truncated.count("\n") - 3, 0, "⋯ writing", "", None),  # its path line
    ]
    preview = await editor.run("llmEdits.preview", {"responseUri": uri,
                                                    "options": {"blocks": [2]}})
    assert [b["status"] for b in preview["blocks"]] == [
        "excluded", "excluded", "validated", "pending"]


@pytest.mark.parametrize("block", [
    "util.py\n```python\n<<<<<<< SEARCH\ndef f():\n=======\ndef g():\n>>>>>>> REPLACE\n```\n",
    edit_v3("util.py", "    return '😀'\n", "    return '🙂'\n"),
])
async def test_a_block_being_written_has_its_lens_where_the_complete_block_has_it(
        editor: Editor, block: str) -> None:  # noqa: F811
    # At its path line, not at its marker line: the lens does not jump when it closes.
    await start(editor)
    stream = Stream(editor, "answer.llm.md")
    intro = "Some prose.\n\n"
    stream.append(intro)
    path_line = intro.count("\n")
    lines = block.splitlines(keepends=True)
    seen_writing = 0
    for line in lines:
        stream.append(line)
        lenses = [(lens.range.start.line, lens.command.title) for lens in await stream.lenses()]
        symbols = await editor.client.text_document_document_symbol_async(
            types.DocumentSymbolParams(
                text_document=types.TextDocumentIdentifier(uri=stream.uri)))
        if lenses[1:] == [(path_line, "⋯ writing")]:
            seen_writing += 1
            assert [s.range.start.line for s in symbols] == [path_line]
    assert seen_writing >= 2, "the block was never seen being written"
    lenses = await stream.lenses()
    assert [lens.range.start.line for lens in lenses[1:]] == [path_line, path_line]
    assert lenses[1].command.title.startswith("✓ util.py:")


async def test_a_document_that_is_not_a_response_has_no_lenses(
        editor: Editor) -> None:  # noqa: F811
    await start(editor)
    editor.open("app.py")
    lenses = await editor.client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=editor.uri("app.py"))))
    assert list(lenses) == []


async def test_a_refresh_is_asked_for_when_the_states_change(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    session = EditorSession(tmp_path)
    refreshes: asyncio.Queue[None] = asyncio.Queue()
    session.client.feature(types.WORKSPACE_CODE_LENS_REFRESH)(
        lambda params: refreshes.put_nowait(None))
    original = session.client.initialize_session

    async def initialize(params: types.InitializeParams) -> types.InitializeResult:
        params.capabilities.workspace.code_lens = types.CodeLensWorkspaceClientCapabilities(
            refresh_support=True)
        return await original(params)

    session.client.initialize_session = initialize  # type: ignore[method-assign]
    await session.start()
    try:
        uri = session.uri("answer.llm.md")
        session.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="llm-response",
                                                 version=1, text="")))
        block = edit_v3("app.py", "line_3 = 3\n", "line_3 = 'three'\n")
        session.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=block)]))
        await asyncio.wait_for(refreshes.get(), 60)  # the block completed: ✓ app.py:4
        lenses = await session.code_lenses(uri)
        assert [lens.command.title for lens in lenses] == [
            "Apply 1 ready block", "✓ app.py:4", "Preview"]
        # The block's state changes (app.py edited under it): a refresh, and the lens's
        # title resolves to the new state.
        session.open("app.py", APP.replace("line_3 = 3\n", "line_3 = 4\n"))
        await asyncio.wait_for(refreshes.get(), 60)
        titles = [lens.command.title for lens in await session.code_lenses(uri)]
        assert titles[1].startswith("✗ "), titles
    finally:
        await session.stop()


async def test_a_document_closed_while_it_is_validated_is_dropped_quietly(
        tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    session = EditorSession(tmp_path, hold_planning=True)
    await session.start()
    try:
        uri = session.uri("answer.llm.md")
        session.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="llm-response",
                                                 version=1, text=RESPONSE)))
        await session.planning_held()  # its validation took its snapshot and waits
        session.client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        session.release_planning()
        assert await session.ping()
        lenses = await session.client.text_document_code_lens_async(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        assert list(lenses) == []
        assert session.client.diagnostics.get(uri, []) == []
        assert session.client.diagnostics.get(session.uri("app.py"), []) == []
    finally:
        await session.stop()


async def test_block_lenses_are_sent_unresolved_and_resolve_to_the_block_as_it_is(
        editor: Editor) -> None:  # noqa: F811
    # The answer carries no titles (they change as blocks validate; the editor resolves the
    # lenses it shows), and a lens of an older answer resolves to nothing to run.
    await start(editor)
    stream = Stream(editor, "answer.llm.md")
    stream.append(RESPONSE)
    raw = await editor.client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=stream.uri)))
    assert raw[0].command is not None and raw[0].command.title.startswith("Apply all")
    blocks = raw[1:]
    assert blocks and all(lens.command is None and len(lens.data) == 3 for lens in blocks)
    resolved = await editor.client.code_lens_resolve_async(blocks[0])
    assert resolved.command.title == "✓ app.py:4"
    assert resolved.command.arguments[0]["block"] == blocks[0].data[1]
    stream.replace(0, 0, "A paste above.\n")  # every block moves: the old lenses are stale
    stale = await editor.client.code_lens_resolve_async(blocks[0])
    assert stale.command.title == "⋯ changed" and stale.command.command == ""
