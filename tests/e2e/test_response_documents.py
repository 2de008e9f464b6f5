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
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from lsp_server.testing.editor import Editor
from lsp_server.testing.positions import end_position

from .responses import edit_v3

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
def editor(client: LanguageClient, tmp_path: Path) -> Editor:
    root = tmp_path / "ws"
    root.mkdir()
    return Editor(client, root.resolve())


class Stream:
    """A response document the test writes into, as a chat plugin streams a model's answer."""

    def __init__(self, editor: Editor, rel: str, language: str = "llm-response",
                 text: str = "") -> None:
        self.editor = editor
        self.rel = rel
        self.uri = editor.uri(rel)
        editor.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=self.uri, language_id=language,
                                                 version=1, text=text)))
        editor.buffers[self.uri] = (text, 1)

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
        """The lenses, each resolved (as an editor showing them all)."""
        return await self.editor.code_lenses(self.uri)

    async def titles(self) -> list[tuple[int, str]]:
        return [(lens.range.start.line, lens.command.title) for lens in await self.lenses()]


async def start(editor: Editor, **kwargs: Any) -> Editor:
    editor.write("app.py", APP)
    editor.write("util.py", UTIL)
    await editor.start(**kwargs)
    return editor


def expected_titles(result: dict[str, Any], *,
                    applied_here: bool = False) -> list[tuple[int, str]]:
    """The lenses a full re-parse gives: from ``llmEdits.preview`` of the same text.
    ``applied_here``: the blocks the preview finds already applied were applied from the
    document (their lens says so)."""
    titles: list[tuple[int, str]] = []
    ready = 0
    for block in result["blocks"]:
        status = block["status"]
        if applied_here and status == "already-applied":
            status = "applied"
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
        titles.insert(0, (0, "Apply 1 ready block" if ready == 1
                          else f"Apply all {ready} ready blocks"))
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


async def test_chunks_split_inside_a_marker_and_a_surrogate_pair_and_an_edit_above(
        editor: Editor) -> None:
    await start(editor)
    stream = Stream(editor, "answer.llm.md")
    marker = RESPONSE.index("═══════ REPL") + 3  # inside the divider
    emoji = RESPONSE.index("    return '😀'") + len("    return '")  # in a block's old text
    cuts = sorted({marker, emoji, RESPONSE.index("»»» EDIT END") + 2, len(RESPONSE)})
    shown = 0
    for number, cut in enumerate(cuts):
        chunk = RESPONSE[shown:cut]
        if cut == emoji:  # the emoji's UTF-16 pair split between two changes
            stream.append(chunk + "\ud83d")
            stream.replace(len(stream.text), len(stream.text), "\ude00")
            stream.editor.buffers[stream.uri] = (  # as a UTF-16 editor holds it: one character
                stream.text.encode("utf-16-le", "surrogatepass").decode("utf-16-le"),
                stream.editor.buffers[stream.uri][1])
            shown = cut + 1
        else:
            stream.append(chunk)
            shown = cut
        if number == 1:  # the user edits above the stream while it grows
            stream.replace(0, len("Here"), "Hi! Here")
        result = await editor.run("llmEdits.preview", {"responseUri": stream.uri})
        assert await stream.titles() == expected_titles(result)
        if shown < len(RESPONSE):
            assert result["blocks"][-1]["status"] == "pending" or cut == marker
    assert [b["status"] for b in result["blocks"]] == [
        "validated", "failed", "validated", "validated"]


# ------------------------------------------------------------------ which documents


async def test_a_watched_markdown_document_is_a_response_document_until_unwatched(
        editor: Editor) -> None:
    await start(editor)
    chat = Stream(editor, "chat.md", language="markdown")
    chat.append(RESPONSE)
    assert await chat.titles() == []  # not a response document: no lenses
    assert await editor.run("llmEdits.watch", {"uri": chat.uri}) == {"uri": chat.uri,
                                                                     "open": True}
    titles = await chat.titles()
    assert titles[0] == (0, "Apply all 3 ready blocks") and len(titles) == 9
    preview = await editor.run("llmEdits.preview", {"responseUri": chat.uri})
    assert titles == expected_titles(preview)
    await editor.run("llmEdits.unwatch", {"uri": chat.uri})
    assert await chat.titles() == []
    # Watched again, then closed: closing ends the watch (reopened, it is plain Markdown).
    await editor.run("llmEdits.watch", {"uri": chat.uri})
    assert len(await chat.titles()) == 9
    editor.close("chat.md")
    reopened = Stream(editor, "chat.md", language="markdown")
    reopened.append(RESPONSE)
    assert await reopened.titles() == []


async def test_watch_needs_a_uri(editor: Editor) -> None:
    await start(editor)
    with pytest.raises(JsonRpcException, match=r"llmEdits\.watch takes"):
        await editor.run("llmEdits.watch", {"url": "file:///x"})


async def test_pending_is_a_status_in_a_response_document_and_a_warning_elsewhere(
        editor: Editor) -> None:
    await start(editor)
    truncated = RESPONSE[:RESPONSE.index("no such line")]
    stream = Stream(editor, "answer.llm.md")
    stream.append(truncated)
    result = await editor.run("llmEdits.apply", {"responseUri": stream.uri})
    assert [(b["index"], b["status"]) for b in result["blocks"]] == [(0, "applied"),
                                                                      (1, "pending")]
    pending = result["blocks"][1]
    assert pending == {"index": 1, "status": "pending", "file": "app.py", "format": "edit-v3",
                       "responseLine": truncated.count("\n") - 2}  # its path line
    assert result["warnings"] == []
    assert not any(d.code == "malformed-block" for d in editor.diagnostics(stream.uri))
    as_text = await editor.run("llmEdits.preview", {"response": truncated})
    assert [b["status"] for b in as_text["blocks"]] == ["already-applied"]
    assert len(as_text["warnings"]) == 1


async def test_diagnostics_cleared_come_back_with_the_next_chunk(editor: Editor) -> None:
    # The next validation publishes them again, although nothing they are made of changed.
    await start(editor)
    stream = Stream(editor, "answer.llm.md")
    stream.append(RESPONSE)
    await stream.titles()
    shown = {rel: editor.diagnostics(rel) for rel in (stream.uri, "app.py")}
    assert [d.code for d in shown[stream.uri]] == ["failed"]
    await editor.run("llmEdits.clear", {})
    assert editor.diagnostics(stream.uri) == editor.diagnostics("app.py") == []
    stream.append("\nThat is all.\n")
    await stream.titles()
    assert {rel: editor.diagnostics(rel) for rel in shown} == shown
    stream.append("\nReally.\n")  # the same diagnostics: kept
    await stream.titles()
    assert {rel: editor.diagnostics(rel) for rel in shown} == shown


async def test_failures_and_malformed_blocks_are_diagnostics_on_the_response_document(
        editor: Editor) -> None:
    await start(editor)
    stream = Stream(editor, "answer.llm.md")
    stream.append(RESPONSE + "\napp.py\n««« EDIT\nline_1 = 1\n»»» EDIT END\n"  # no divider
                  + "\napp.py\n««« EDIT\nline_2 = 2\n")  # still being written
    lenses = await stream.titles()
    assert lenses[-1][1] == "⋯ writing"
    diagnostics = sorted(editor.diagnostics(stream.uri), key=lambda d: d.range.start.line)
    failed_line = RESPONSE[:RESPONSE.index("app.py\n««« EDIT\nno such")].count("\n")
    assert [(d.code, d.range.start.line) for d in diagnostics] == [
        ("failed", failed_line), ("malformed-block", RESPONSE.count("\n") + 2)]
    assert diagnostics[0].message.startswith("block 2 (app.py): Old lines not found in file")
    (on_target,) = editor.diagnostics("app.py")
    assert on_target.code == "failed"
    assert on_target.related_information[0].location.uri == stream.uri
    # Once the failing block is fixed in the response, its diagnostics go.
    start_of = stream.text.index("no such line")
    stream.replace(start_of, start_of + len("no such line"), "line_9 = 9")
    await stream.titles()
    assert [d.code for d in editor.diagnostics(stream.uri)] == ["malformed-block"]
    assert editor.diagnostics("app.py") == []


# ------------------------------------------------------------------ applying


async def test_a_lens_command_applies_its_block_alone(editor: Editor) -> None:
    await start(editor)
    stream = Stream(editor, "answer.llm.md")
    stream.append(RESPONSE)
    lenses = await stream.lenses()
    util = next(lens for lens in lenses if lens.command.title == "✓ util.py:2")
    assert util.command.command == "llmEdits.apply"
    result = await editor.run(util.command.command, *util.command.arguments)
    assert [b["status"] for b in result["blocks"]] == [
        "excluded", "excluded", "applied", "excluded"]
    assert editor.text("util.py") == UTIL.replace("😀", "🙂")
    assert editor.text("app.py") == APP
    titles = await stream.titles()
    assert titles[0] == (0, "Apply all 2 ready blocks")
    assert (util.range.start.line, "✓ applied util.py:2") in titles
    # Apply all: the rest, never the applied block again (already applied, for this run).
    apply_all = (await stream.lenses())[0]
    result = await editor.run(apply_all.command.command, *apply_all.command.arguments)
    assert [b["status"] for b in result["blocks"]] == [
        "applied", "failed", "already-applied", "applied"]
    assert result["blocks"][2]["line"] == 1  # where its text is
    assert len(editor.apply_requests) == 2
    assert editor.text("util.py") == "def g():\n    return '🙂'\n"
    assert (await stream.titles())[0] == (0, "Apply all 0 ready blocks")


async def test_a_second_lens_reports_only_its_own_block_applied(editor: Editor) -> None:
    # One click, one block: the block applied by the first lens is no block of this run.
    await start(editor)
    stream = Stream(editor, "answer.llm.md")
    stream.append(RESPONSE)

    async def click(title: str) -> dict[str, Any]:
        lens = next(lens for lens in await stream.lenses() if lens.command.title == title)
        return await editor.run(lens.command.command, *lens.command.arguments)

    first = await click("✓ util.py:2")
    assert [b["status"] for b in first["blocks"]] == [
        "excluded", "excluded", "applied", "excluded"]
    second = await click("✓ app.py:4")
    assert [b["status"] for b in second["blocks"]] == [
        "applied", "excluded", "excluded", "excluded"]
    assert editor.text("app.py") == APP.replace("line_3 = 3\n", "line_3 = 'three 😀'\n")
    # Chosen again by name, the first one is already applied: nothing is sent for it.
    again = await editor.run("llmEdits.apply", {"responseUri": stream.uri,
                                                "options": {"blocks": [2]}})
    assert [b["status"] for b in again["blocks"]] == [
        "excluded", "excluded", "already-applied", "excluded"]
    assert again["edit"] is None and len(editor.apply_requests) == 2
    titles = [title for _, title in (await stream.titles())[1::2]]
    assert titles == ["✓ applied app.py:4", "✗ Old lines not found in file",
                      "✓ applied util.py:2", "✓ util.py:1"]


async def test_apply_while_streaming_applies_each_block_once_as_it_completes(
        editor: Editor) -> None:
    await start(editor, initialization_options={"applyWhileStreaming": True})
    stream = Stream(editor, "answer.llm.md")
    # The second block edits what the first one writes: planned over its result.
    response = RESPONSE + "\n" + edit_v3("util.py", "    return '🙂'\n", "    return 'ok'\n")
    for start_at in range(0, len(response), 9):
        stream.append(response[start_at:start_at + 9])
        titles = await stream.titles()
        result = await editor.run("llmEdits.preview", {"responseUri": stream.uri})
        assert titles == expected_titles(result, applied_here=True)
        # Only the last block may wait, validated: closed, not complete yet (the fence
        # around a search/replace block decides it).
        waiting = [b["index"] for b in result["blocks"] if b["status"] in ("validated",
                                                                          "applied")]
        assert waiting in ([], [len(result["blocks"]) - 1]), waiting
    labels = [request.label for request in editor.apply_requests]
    assert labels == [
        "LLM edits: block 1 (app.py) from answer.llm.md",
        "LLM edits: block 3 (util.py) from answer.llm.md",
        "LLM edits: block 4 (util.py) from answer.llm.md",
        "LLM edits: block 5 (util.py) from answer.llm.md",
    ]
    assert editor.text("app.py") == APP.replace("line_3 = 3\n", "line_3 = 'three 😀'\n")
    assert editor.text("util.py") == "def g():\n    return 'ok'\n"
    statuses = [title for _, title in (await stream.titles())[1::2]]
    assert statuses == ["✓ applied app.py:4", "✗ Old lines not found in file",
                        "✓ applied util.py:2", "✓ applied util.py:1", "✓ applied util.py:2"]
    # Applying the whole response now sends nothing: every block is applied already.
    result = await editor.run("llmEdits.apply", {"responseUri": stream.uri})
    assert result["edit"] is None and len(editor.apply_requests) == 4


async def test_apply_while_streaming_turned_on_by_a_configuration_change(
        editor: Editor) -> None:
    await start(editor)
    stream = Stream(editor, "answer.llm.md")
    stream.append(RESPONSE[:RESPONSE.index("\nAnd a failing")])
    assert (await stream.titles())[0] == (0, "Apply 1 ready block")
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"llmEdits": {"applyWhileStreaming": True}}))
    # The block complete before the setting changed is left to the user (its lens still
    # applies it); the blocks completing from now on are applied as they complete.
    assert (await stream.titles())[1] == (2, "✓ app.py:4")
    assert editor.apply_requests == [] and editor.text("app.py") == APP
    stream.append(RESPONSE[RESPONSE.index("\nAnd a failing"):])
    await stream.titles()
    labels = [request.label for request in editor.apply_requests]
    assert labels[0] == "LLM edits: block 3 (util.py) from answer.llm.md", labels
    assert not any("block 1 " in label for label in labels)
    assert editor.text("app.py") == APP


async def test_an_answer_opened_with_apply_while_streaming_on_is_not_applied_on_its_own(
        editor: Editor) -> None:
    # Opening an old answer must not apply it: only blocks that complete while the
    # document is a response document apply on their own.
    await start(editor, initialization_options={"applyWhileStreaming": True})
    stream = Stream(editor, "old.llm.md", text=RESPONSE)
    titles = await stream.titles()
    assert titles[0] == (0, "Apply all 3 ready blocks")
    assert editor.apply_requests == []
    result = await editor.run("llmEdits.apply", {"responseUri": stream.uri})
    assert [b["status"] for b in result["blocks"]] == ["applied", "failed", "applied", "applied"]


async def test_a_target_buffer_edited_while_a_block_applies_is_never_edited_stale(
        editor: Editor) -> None:
    await start(editor, initialization_options={"applyWhileStreaming": True})
    editor.open("app.py")
    typed = "# typed meanwhile\n" + APP
    editor.type_during_apply = ("app.py", typed)  # the user types as the edit arrives
    stream = Stream(editor, "answer.llm.md")
    stream.append(RESPONSE[:RESPONSE.index("\nAnd a failing")])
    titles = await stream.titles()
    assert len(editor.apply_requests) == 1  # refused by the editor: its version was stale
    assert editor.text("app.py") == typed
    result = await editor.run("llmEdits.preview", {"responseUri": stream.uri})
    assert titles == expected_titles(result)
    assert result["blocks"][0]["status"] == "validated"
    assert result["blocks"][0]["line"] == 4  # one line lower now
    assert any("not applied" in m.message for m in editor.client.log_messages)


async def test_invalid_settings_in_a_configuration_change_are_ignored_with_a_warning(
        editor: Editor) -> None:
    await start(editor)
    stream = Stream(editor, "answer.llm.md")
    stream.append(RESPONSE[:RESPONSE.index("\nAnd a failing")])
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"llmEdits": {"applyWhileStreaming": "yes"}}))
    assert (await stream.titles())[1] == (2, "✓ app.py:4")  # not applied
    assert editor.apply_requests == []
    assert any("settings ignored: options.applyWhileStreaming must be true or false"
               in m.message for m in editor.client.log_messages)


# ------------------------------------------------------------------ blocks not complete yet

DIFF_INTRO = "Now the diff:\n\n```diff\n--- a/app.py\n+++ b/app.py\n"
HUNK_1 = "@@ -4,1 +4,1 @@\n-line_3 = 3\n+line_3 = 'three'\n"
HUNK_2 = "@@ -10,1 +10,1 @@\n-line_9 = 9\n+line_9 = 'nine'\n"


async def test_a_unified_diff_shows_its_state_before_a_line_ends_it(editor: Editor) -> None:
    # A unified diff has no closing marker: another hunk may still join it until a line ends
    # it, so applying while streaming waits for that (next test). Its lens, outline and a run
    # the user asks for show and take it as it parses: a response document has no end of
    # input, and a diff that ends the answer must not stay "writing" for ever.
    await start(editor)
    stream = Stream(editor, "answer.llm.md")
    diff_line = DIFF_INTRO.count("\n") - 2
    for line in (DIFF_INTRO + HUNK_1).splitlines(keepends=True):
        stream.append(line)
        titles = await stream.titles()
        result = await editor.run("llmEdits.preview", {"responseUri": stream.uri})
        assert titles == expected_titles(result)
    assert titles[1:] == [(diff_line, "✓ app.py:4"), (diff_line, "Preview")]
    symbols = await editor.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=stream.uri)))
    assert [(s.name, s.detail) for s in symbols] == [("app.py", "✓ app.py:4")]
    result = await editor.run("llmEdits.apply", {"responseUri": stream.uri})
    assert [b["status"] for b in result["blocks"]] == ["applied"]
    assert editor.text("app.py") == APP.replace("line_3 = 3\n", "line_3 = 'three'\n")


async def test_apply_while_streaming_waits_for_the_last_hunk_of_a_unified_diff(
        editor: Editor) -> None:
    await start(editor, initialization_options={"applyWhileStreaming": True})
    stream = Stream(editor, "answer.llm.md")
    response = (DIFF_INTRO + HUNK_1 + "\nAnd line 10:\n\n" + HUNK_2 + "```\n\n"
                + edit_v3("util.py", "    return '😀'\n", "    return '🙂'\n"))
    second_hunk = response.index(HUNK_2) + len(HUNK_2) - 1  # inside its last line
    for at in range(0, second_hunk, 5):
        stream.append(response[at:min(at + 5, second_hunk)])
        result = await editor.run("llmEdits.preview", {"responseUri": stream.uri})
        assert await stream.titles() == expected_titles(result)
        assert editor.apply_requests == [], stream.text  # after its first hunk: not applied
    assert editor.text("app.py") == APP
    stream.append(response[second_hunk:])
    await stream.titles()
    assert [request.label for request in editor.apply_requests] == [
        "LLM edits: block 1 (app.py) from answer.llm.md",
        "LLM edits: block 2 (util.py) from answer.llm.md"]
    assert editor.text("app.py") == APP.replace("line_3 = 3\n", "line_3 = 'three'\n").replace(
        "line_9 = 9\n", "line_9 = 'nine'\n")
