"""live.documents in process: when a response document is parsed, and where. A parse that
re-reads much (a block left open near the top, an edit above the blocks of a large
document) runs in a worker thread, one at a time per document, with the changes that arrive
meanwhile parsed together after it: counted in characters re-read, never in time."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from lsp_server.lsp.live.documents import PARSE_INLINE_CHARS
from lsp_server.server import LlmEditsServer

OPEN_PATCH = "*** Begin Patch\n*** Update File: a.py\n@@\n" + "".join(
    f"-old_{n} = {n}\n+new_{n} = {n}\n" for n in range(6000))  # ~120 KB, never closed


def _open(ls: LlmEditsServer, uri: str, text: str) -> None:
    item = types.TextDocumentItem(uri=uri, language_id="llm-response", version=1, text=text)
    ls.editor.buffers.open(item)
    ls.responses.opened(item)


def _append(ls: LlmEditsServer, uri: str, chunk: str) -> None:
    buffer = ls.editor.buffers.get(uri)
    assert buffer is not None
    lines = buffer.text.split("\n")
    end = types.Position(line=len(lines) - 1, character=len(lines[-1]))
    params = types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri,
                                                            version=buffer.version + 1),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=end, end=end), text=chunk)])
    start = ls.responses.change_start(params, "utf-16")
    ls.editor.buffers.change(params, "utf-16")
    ls.responses.changed(uri, start)


async def test_chunks_into_an_open_block_are_parsed_together_off_the_loop(
        tmp_path: Path) -> None:
    ls = LlmEditsServer()
    uri = (tmp_path / "answer.llm.md").as_uri()
    _open(ls, uri, "Here is the patch.\n\n" + OPEN_PATCH)
    live = await ls.responses.current(uri)
    assert live is not None and live.pending
    first = live.response.reread
    assert len(OPEN_PATCH) > PARSE_INLINE_CHARS
    chunks = [f"-old_x{n} = 0\n+new_x{n} = 0\n" for n in range(50)]
    for chunk in chunks:  # as a client streams them, faster than a parse
        _append(ls, uri, chunk)
    # The handlers parsed nothing on the loop: one parse runs, the rest wait for it.
    assert live.response.reread == first and live.parsing is not None
    live = await ls.responses.current(uri)
    assert live is not None and live.text.endswith(chunks[-1])
    # Parsed from the patch's first line per chunk, it re-read 50x the text.
    assert live.response.reread - first <= 2 * len(live.text)
    assert [w.pending for w in live.pending] == [True]


async def test_a_keystroke_above_a_large_document_is_parsed_off_the_loop(
        tmp_path: Path) -> None:
    ls = LlmEditsServer()
    uri = (tmp_path / "answer.llm.md").as_uri()
    blocks = "".join(f"f{n}.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n\n"
                     for n in range(3000))  # ~140 KB of closed blocks
    _open(ls, uri, "Intro.\n\n" + blocks + "Done.\n")
    live = await ls.responses.current(uri)
    assert live is not None and len(live.parsed.blocks) == 3000
    before = live.response.reread
    buffer = ls.editor.buffers.get(uri)
    assert buffer is not None
    params = types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=0, character=0),
                              end=types.Position(line=0, character=0)), text="x")])
    start = ls.responses.change_start(params, "utf-16")
    ls.editor.buffers.change(params, "utf-16")
    ls.responses.changed(uri, start)
    assert live.parsing is not None and live.response.reread == before
    live = await ls.responses.current(uri)
    assert live is not None and live.text.startswith("xIntro.")
    assert len(live.parsed.blocks) == 3000 and live.parsing is None
