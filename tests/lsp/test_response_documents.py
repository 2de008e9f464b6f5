"""Response documents over stdio (pytest-lsp): a response streamed chunk by chunk into an
``llm-response`` document (or a watched one) is parsed and validated as it grows; its
lenses, pending blocks, diagnostics and results always equal those of a full re-parse of
the text it has, whatever the chunk boundaries."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_server import Editor, client, edit_v3  # noqa: F401  (client: the pytest-lsp fixture)

from fuzz.lsp_session import end_position

APP = "".join(f"line_{i} = {i}\n" for i in range(30))
UTIL = "def f():\n    return '😀'\n"

RESPONSE = (
    "Here are the changes 😀.\n\n"
    + edit_v3("app.py", "line_3 = 3\n", "line_3 = 'three 😀'\n")
    + "\nAnd a failing one:\n\n"
    + edit_v3("app.py", "no such line\n", "x\n")
    + "\n" + edit_v3("util.py", "    return '😀'\n", "    return '🙂'\n")
    + "\nThen a search/replace:\n\n"
    + "util.py\n```python\n<<<<<<< SEARCH\ndef f():\n=======\ndef g():\n>>>>>>> REPLACE\n```\n"
)


@pytest.fixture
def editor(client: LanguageClient, tmp_path: Path) -> Editor:  # noqa: F811
    root = tmp_path / "ws"
    root.mkdir()
    return Editor(client, root.resolve())


class Stream:
    """A response document the test writes into, as a chat plugin streams a model's answer."""

    def __init__(self, editor: Editor, rel: str, language: str = "llm-response") -> None:
        self.editor = editor
        self.rel = rel
        self.uri = editor.uri(rel)
        editor.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=self.uri, language_id=language,
                                                 version=1, text="")))
        editor.buffers[self.uri] = ("", 1)

    @property
    def text(self) -> str:
        return self.editor.buffers[self.uri][0]

    def replace(self, start: int, end: int, new: str) -> None:
        """One incremental change of [start, end) (offsets in the test's text)."""
        text, version = self.editor.buffers[self.uri]
        encoding = self.editor.encoding
        self.editor.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri,
                                                                version=version + 1),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=end_position(text[:start], encoding),
                                  end=end_position(text[:end], encoding)),
                text=new)]))
        self.editor.buffers[self.uri] = (text[:start] + new + text[end:], version + 1)

    def append(self, chunk: str) -> None:
        self.replace(len(self.text), len(self.text), chunk)

    async def lenses(self) -> list[types.CodeLens]:
        return await self.editor.client.text_document_code_lens_async(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=self.uri)))

    async def titles(self) -> list[tuple[int, str]]:
        return [(lens.range.start.line, lens.command.title) for lens in await self.lenses()]


async def start(editor: Editor, **kwargs: Any) -> Editor:
    editor.write("app.py", APP)
    editor.write("util.py", UTIL)
    await editor.start(**kwargs)
    return editor


def expected_titles(result: dict[str, Any]) -> list[tuple[int, str]]:
    """The lenses a full re-parse gives: from ``llmEdits.preview`` of the same text."""
    titles: list[tuple[int, str]] = []
    ready = 0
    for block in result["blocks"]:
        status = block["status"]
        if status == "pending":
            titles.append((block["responseLine"], "⋯ writing"))
            continue
        ready += status == "validated"
        where = f"{block['file']}:{block['line'] + 1}" if block["line"] is not None else (
            block["file"])
        closest = block["fixes"].get("closestLine")
        title = {
            "validated": f"✓ {where}",
            "applied": f"✓ applied {where}",
            "failed": f"✗ {(block['reason'] or '').splitlines()[0] if block['reason'] else ''}"
                      + (f" — closest line {closest + 1}" if closest is not None else ""),
            "skipped": "⊘ skipped",
            "already-applied": "= already applied",
        }[status]
        titles += [(block["responseLine"], title), (block["responseLine"], "Preview")]
    if titles:
        titles.insert(0, (0, f"Apply all {ready} ready blocks"))
    return titles


async def full_reparse(editor: Editor, text: str, uri: str) -> dict[str, Any]:
    """What a full re-parse of ``text`` gives: a preview of it, as a response document
    (pending blocks) of its own."""
    return await editor.run("llmEdits.preview", {"responseUri": uri})


# ------------------------------------------------------------------ streaming


@pytest.mark.parametrize("seed", [0, 1])
async def test_lenses_after_each_chunk_equal_a_full_reparse(editor: Editor, seed: int) -> None:
    await start(editor)
    stream = Stream(editor, "answer.llm.md")
    rng = random.Random(seed)
    position = 0
    while position < len(RESPONSE):
        size = rng.choice([1, 2, 3, 7, 40])
        stream.append(RESPONSE[position:position + size])
        position += size
        titles = await stream.titles()
        result = await editor.run("llmEdits.preview", {"responseUri": stream.uri})
        assert titles == expected_titles(result), stream.text
    assert [status for _, status in (await stream.titles())[1::2]] == [
        "✓ app.py:4", "✗ Old lines not found in file", "✓ util.py:2", "✓ util.py:1"]
