"""Concurrency: many previews and applies over one connection while the user types.

The scenario and its checks live in ``fuzz/load.py`` (shared with the long run): the editor
(``fuzz/lsp_session.py``) answers ``workspace/applyEdit`` like VS Code, refusing an edit whose
version is not the buffer's current one and applying the others with its own position code.
Checked is what the user would see: every edit fits the text of the version it names, each
applied edit changed exactly the one line its block named, ``applied`` in a result agrees with
the editor, refusals say "stale", nothing is lost or applied twice, and the server still
answers. Latencies are printed (``-s``), not asserted.
"""

from __future__ import annotations

import sys
from pathlib import Path

from lsprotocol import types

from lsp_server.server import LlmEditsServer, OpenBuffers

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the fuzz/ package

from fuzz.load import run_load


async def test_concurrent_previews_and_applies_while_buffers_change(tmp_path: Path) -> None:
    report = await run_load(tmp_path, files=6, commands=100, spread=3.0, seed=20240611)
    print("\n" + report.summary())
    assert report.applied > 0, "the scenario should let some applies through"
    assert report.applied + report.refused_stale + report.failed <= report.commands


def test_a_run_sees_the_buffers_as_they_were_when_it_started() -> None:
    # The planner reads buffers in a worker thread while didChange keeps arriving. It must
    # see one consistent (text, version) pair per buffer, fixed when the command started;
    # reading the live buffer could pair an old text with a newer version, and the editor
    # would then apply an edit computed for other text.
    server = LlmEditsServer()
    server.buffers = OpenBuffers()
    uri = Path("/tmp/ws/a.txt").as_uri()
    server.buffers.open(types.TextDocumentItem(uri=uri, language_id="plaintext", version=1,
                                               text="one\n"))
    reader = server.reader()
    server.buffers.change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="two\n")]), "utf-16")
    snapshot = reader(Path("/tmp/ws/a.txt"))
    assert (snapshot.text, snapshot.version) == ("one\n", 1)
    assert server.reader()(Path("/tmp/ws/a.txt")).version == 2
