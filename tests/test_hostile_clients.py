"""Clients that misbehave: every request still gets an answer, and no user text is lost.

Editors are not always well-behaved clients: they answer ``workspace/applyEdit`` with
``null`` or never, send requests the protocol cannot read, send our diagnostics back with
their ``data`` mangled, close and re-open buffers while a run plans, or take only the
``changes`` map. Each test drives the server over stdio as such a client would
(``fuzz/lsp_session.py``'s scripted editor, or raw frames where the message itself is the
garbage) and checks what the user would see.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the fuzz/ package

from fuzz.lsp_session import EditorSession


def search_replace(path: str, old: str, new: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    return root.resolve()


async def started(root: Path, **kwargs: Any) -> EditorSession:
    editor = EditorSession(root, **kwargs)
    await editor.start()
    return editor


@pytest.fixture
async def editor(workspace: Path) -> AsyncIterator[EditorSession]:
    session = await started(workspace)
    try:
        yield session
    finally:
        await session.stop()


# ------------------------------------------------------------------ code actions


async def test_code_action_on_a_diagnostic_with_mangled_data_offers_nothing(
        editor: EditorSession) -> None:
    editor.open("a.py")
    result = await editor.run("llmEdits.preview", {
        "response": search_replace("a.py", "x = 100\n", "x = 2\n")})
    assert result["blocks"][0]["status"] == "failed"
    (ours,) = editor.client.diagnostics[editor.uri("a.py")]
    run_id = result["runId"]
    for data in ({"runId": [run_id], "index": 0}, {"runId": run_id, "index": {"i": 0}},
                 {"runId": {"id": run_id}, "index": [0]}):
        mangled = types.Diagnostic(range=ours.range, message=ours.message, source=ours.source,
                                   code=ours.code, data=data)
        actions = await editor.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri("b.py")),
            range=ours.range, context=types.CodeActionContext(diagnostics=[mangled])))
        assert list(actions or []) == [], data
    assert await editor.ping()
