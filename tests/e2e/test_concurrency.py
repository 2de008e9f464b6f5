"""Concurrency: many previews and applies over one connection while the user types.

The scenario and its checks live in ``fuzz/load.py`` (shared with the long run): the editor
(``lsp_server.testing.editor_session``) answers ``workspace/applyEdit`` like VS Code, refusing
an edit whose version is not the buffer's current one and applying the others with its own
position code. Checked is what the user would see: every edit fits the text of the version it
names, each applied edit changed exactly the one line its block named, ``applied`` in a result
agrees with the editor, refusals say "stale", nothing is lost or applied twice, and the server
still answers. Latencies are printed (``-s``), not asserted."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from fuzz.load import run_load
from lsp_server.lsp.buffers import OpenBuffers
from lsp_server.server import LlmEditsServer
from lsp_server.testing.editor_session import EditorSession


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
    server.editor.buffers = OpenBuffers()
    uri = Path("/tmp/ws/a.txt").as_uri()
    server.editor.buffers.open(types.TextDocumentItem(uri=uri, language_id="plaintext", version=1,
                                               text="one\n"))
    reader = server.editor.reader()
    server.editor.buffers.change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="two\n")]), "utf-16")
    snapshot = reader(Path("/tmp/ws/a.txt"))
    assert (snapshot.text, snapshot.version) == ("one\n", 1)
    assert server.editor.reader()(Path("/tmp/ws/a.txt")).version == 2


async def test_an_edit_is_not_sent_for_a_buffer_that_changed_while_it_was_computed(
        tmp_path: Path) -> None:
    """didChange may arrive while a run plans (big runs plan in a worker thread). An edit for
    the older version must not be sent: a client without versioned edits (Neovim's
    ``changes``) would apply it to the newer text, and a file read from disk that the user
    opened meanwhile has no version to check at all.

    The server holds each run after its snapshot and before planning until the test releases
    it (the test hook of lsp_server/lsp/planning_hold.py): the user acts in that window on
    any machine, however fast it plans."""
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    response = ("a.txt\n<<<<<<< SEARCH\ntwo\n=======\nTWO\n>>>>>>> REPLACE\n"
                + "b.txt\n<<<<<<< SEARCH\nbeta\n=======\nBETA\n>>>>>>> REPLACE\n")
    # Neovim's kind of client: `changes`, no versions in the edit for the editor to check.
    editor = EditorSession(tmp_path, document_changes=False, hold_planning=True)
    await editor.start()
    try:
        editor.open("a.txt")

        async def apply_while(user_acts) -> dict:
            command = asyncio.ensure_future(editor.run("llmEdits.apply", {"response": response}))
            await editor.planning_held()  # the server took its snapshot and waits to plan
            user_acts()
            editor.release_planning()  # reaches the server after what the user did
            return await command

        # An open buffer changes (its lines shift).
        result = await apply_while(lambda: editor.type("a.txt", "zero\none\ntwo\nthree\n"))
        assert result["applied"] is False, result
        assert "a.txt changed while the edit was computed" in result["failureReason"]
        # A file read from disk is opened, with unsaved text.
        result = await apply_while(lambda: editor.open("b.txt", "alpha\nbeta\ngamma (unsaved)\n"))
        assert result["applied"] is False, result
        assert "b.txt was opened and changed" in result["failureReason"]
        assert editor.applies == []  # nothing was sent
        assert editor.text("a.txt") == "zero\none\ntwo\nthree\n"
        assert editor.text("b.txt") == "alpha\nbeta\ngamma (unsaved)\n"
        # Run again: planned against the current buffers, it applies.
        result = await apply_while(lambda: None)
        assert result["applied"] is True, result
        assert editor.text("a.txt") == "zero\none\nTWO\nthree\n"
        assert editor.text("b.txt") == "alpha\nBETA\ngamma (unsaved)\n"
    finally:
        await editor.stop()


async def test_an_edit_is_not_sent_for_a_buffer_closed_or_reopened_while_it_was_computed(
        tmp_path: Path) -> None:
    """A buffer closed and opened again starts at version 1 again: an edit computed for the
    old version-1 text passed the version check (the server's and the editor's) and landed
    on other text. A buffer closed meanwhile leaves the edit to the file on disk, which may
    not hold the text the edit was computed for (the unsaved text was discarded). Neither is
    sent; the planning hold puts the user's action inside the run on any machine."""
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    response = "a.txt\n<<<<<<< SEARCH\ntwo\n=======\nTWO\n>>>>>>> REPLACE\n"
    editor = EditorSession(tmp_path, hold_planning=True)  # versioned edits, as VS Code
    await editor.start()
    try:
        async def apply_while(user_acts) -> dict:
            command = asyncio.ensure_future(editor.run("llmEdits.apply", {"response": response}))
            await editor.planning_held()
            user_acts()
            editor.release_planning()
            return await command

        def reopen_with_other_text() -> None:
            editor.close("a.txt")
            editor.open("a.txt", "zero\none\ntwo\nthree\n")  # version 1 again

        editor.open("a.txt")
        result = await apply_while(reopen_with_other_text)
        assert result["applied"] is False, result
        assert "a.txt" in result["failureReason"] and "reopened" in result["failureReason"]
        assert editor.applies == []  # nothing was sent
        assert editor.text("a.txt") == "zero\none\ntwo\nthree\n"

        result = await apply_while(lambda: editor.close("a.txt"))  # unsaved text discarded
        assert result["applied"] is False, result
        assert "a.txt was closed" in result["failureReason"]
        assert editor.applies == []
        assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "one\ntwo\nthree\n"

        # Closed and opened again with the very same text: the edit still fits, it is sent.
        editor.open("a.txt")

        def reopen_same() -> None:
            editor.close("a.txt")
            editor.open("a.txt")

        result = await apply_while(reopen_same)
        assert result["applied"] is True, result
        assert editor.text("a.txt") == "one\nTWO\nthree\n"
    finally:
        await editor.stop()
