"""Response documents the user edits (issue 23): applying while streaming applies a block only
when it completes while the answer streams, at most once; a response document is never a
target of a block; a lens names its block by what it is and where, and a stale lens does
nothing and says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from lsp_server.testing.editor import Editor

from .responses import edit_v3
from .test_response_documents import RESPONSE, Stream, start

APP = "def run():\n    pass\n"
LOGGED = edit_v3("app.py", "    pass\n", "    log('a')\n    pass\n")


@pytest.fixture
def editor(client: LanguageClient, tmp_path: Path) -> Editor:
    root = tmp_path / "ws"
    root.mkdir()
    return Editor(client, root.resolve())


def _offset_in(text: str, needle: str, after: str = "") -> int:
    return text.index(needle, text.index(after) if after else 0)


async def _streamed(editor: Editor, response: str, **settings: object) -> Stream:
    await start(editor, initialization_options={"applyWhileStreaming": True, **settings})
    editor.write("app.py", APP)
    stream = Stream(editor, "answer.llm.md")
    for at in range(0, len(response), 7):
        stream.append(response[at:at + 7])
        await stream.titles()
    return stream


# ------------------------------------------------------------------ applying while streaming


async def test_keystrokes_in_an_applied_block_never_apply_it_again(editor: Editor) -> None:
    # Three keystrokes turning log('a') into log('bc'): one log line, not four.
    stream = await _streamed(editor, "Add a log line:\n\n" + LOGGED + "\nDone.\n")
    assert editor.text("app.py") == "def run():\n    log('a')\n    pass\n"
    at = _offset_in(stream.text, "'a'") + 1
    stream.replace(at, at + 1, "")
    await stream.titles()
    stream.replace(at, at, "b")
    await stream.titles()
    stream.replace(at + 1, at + 1, "c")
    titles = await stream.titles()
    assert len(editor.apply_requests) == 1
    assert editor.text("app.py") == "def run():\n    log('a')\n    pass\n"
    # The edited block waits for a click: its lens shows what it would do now.
    assert (2, "✓ app.py:3") in titles


async def test_a_half_typed_fix_to_a_failed_block_waits_for_a_click(editor: Editor) -> None:
    failing = edit_v3("app.py", "    passes\n", "    log('x')\n    pass\n")
    stream = await _streamed(editor, "Try:\n\n" + failing + "\nDone.\n")
    assert editor.apply_requests == []
    at = _offset_in(stream.text, "passes")
    # Deleting "es" one character at a time: "    pass" then matches the file.
    for _ in range(2):
        stream.replace(at + 4, at + 5, "")
        await stream.titles()
    titles = await stream.titles()
    assert (2, "✓ app.py:2") in titles
    assert editor.apply_requests == [] and editor.text("app.py") == APP


async def test_blocks_of_an_old_answer_touched_are_not_applied(editor: Editor) -> None:
    await start(editor, initialization_options={"applyWhileStreaming": True})
    stream = Stream(editor, "old.llm.md", text=RESPONSE)
    await stream.titles()
    at = _offset_in(stream.text, "three")
    stream.replace(at, at + 5, "four")
    await stream.titles()
    stream.replace(at, at, "x")
    await stream.titles()
    assert editor.apply_requests == []


async def test_the_stream_goes_on_applying_after_the_user_edits_above_it(
        editor: Editor) -> None:
    first = "First:\n\n" + LOGGED + "\n"
    stream = await _streamed(editor, first)
    assert len(editor.apply_requests) == 1
    stream.replace(0, 0, "Pasted note.\n\n")  # above every block
    await stream.titles()
    stream.append(edit_v3("app.py", "def run():\n", "def run(x):\n") + "\nEnd.\n")
    await stream.titles()
    assert [r.label for r in editor.apply_requests] == [
        "LLM edits: block 1 (app.py) from answer.llm.md",
        "LLM edits: block 2 (app.py) from answer.llm.md"]
    assert editor.text("app.py") == "def run(x):\n    log('a')\n    pass\n"


# ------------------------------------------------------------------ never a target


async def test_a_block_never_edits_its_own_response_document(editor: Editor) -> None:
    # Block 1 writes into app.py; block 2 would erase that line from the answer itself.
    response = ("Step 1:\n\n" + edit_v3("app.py", "    pass\n", "    os.system('x')\n")
                + "\nStep 2:\n\n" + edit_v3("answer.llm.md", "    os.system('x')\n", "")
                + "\nDone.\n")
    stream = await _streamed(editor, response)
    assert [r.label for r in editor.apply_requests] == [
        "LLM edits: block 1 (app.py) from answer.llm.md"]
    assert "os.system('x')" in stream.text
    result = await editor.run("llmEdits.apply", {"responseUri": stream.uri})
    assert result["blocks"][1]["status"] == "failed"
    assert "response document" in result["blocks"][1]["reason"]
    assert len(editor.apply_requests) == 1
    titles = [title for _, title in await stream.titles()]
    assert any(title.startswith("✗ Cannot edit answer.llm.md") for title in titles), titles


async def test_a_watched_document_is_no_target_of_any_run(editor: Editor) -> None:
    await start(editor)
    editor.write("notes.md", "keep me\n")
    editor.open("notes.md")
    await editor.run("llmEdits.watch", {"uri": editor.uri("notes.md")})
    result = await editor.run("llmEdits.apply", {
        "response": edit_v3("notes.md", "keep me\n", "gone\n")})
    assert result["blocks"][0]["status"] == "failed"
    assert "response document" in result["blocks"][0]["reason"]
    assert editor.text("notes.md") == "keep me\n" and editor.apply_requests == []
    await editor.run("llmEdits.unwatch", {"uri": editor.uri("notes.md")})
    result = await editor.run("llmEdits.apply", {
        "response": edit_v3("notes.md", "keep me\n", "changed\n")})
    assert result["blocks"][0]["status"] == "applied"


# ------------------------------------------------------------------ lenses name their block


async def test_a_lens_clicked_after_a_paste_above_runs_nothing_and_says_why(
        editor: Editor) -> None:
    await start(editor)
    editor.write("a.py", "x = 1\n")
    editor.write("b.py", "y = 1\n")
    stream = Stream(editor, "answer.llm.md")
    stream.append("Two:\n\n" + edit_v3("a.py", "x = 1\n", "x = 2\n") + "\n"
                  + edit_v3("b.py", "y = 1\n", "y = 2\n") + "\nDone.\n")
    lens = next(lens for lens in await stream.lenses() if lens.command.title == "✓ a.py:1")
    # The user pastes a block above: index 0 is b.py's now.
    stream.replace(0, 0, edit_v3("b.py", "y = 1\n", "y = 3\n") + "\n")
    with pytest.raises(JsonRpcException, match="This lens is out of date"):
        await editor.run(lens.command.command, *lens.command.arguments)
    assert editor.apply_requests == []
    assert editor.text("a.py") == "x = 1\n" and editor.text("b.py") == "y = 1\n"
    # The lens as shown now runs its block.
    lens = next(lens for lens in await stream.lenses() if lens.command.title == "✓ a.py:1")
    result = await editor.run(lens.command.command, *lens.command.arguments)
    assert [b["status"] for b in result["blocks"]] == ["excluded", "applied", "excluded"]
    assert editor.text("a.py") == "x = 2\n" and editor.text("b.py") == "y = 1\n"


async def test_a_lens_of_a_block_edited_since_runs_nothing(editor: Editor) -> None:
    await start(editor)
    editor.write("a.py", "x = 1\n")
    stream = Stream(editor, "answer.llm.md")
    stream.append("One:\n\n" + edit_v3("a.py", "x = 1\n", "x = 2\n") + "\nDone.\n")
    lens = next(lens for lens in await stream.lenses() if lens.command.title == "Preview")
    at = stream.text.index("x = 2")
    stream.replace(at + 4, at + 5, "9")
    with pytest.raises(JsonRpcException, match="out of date"):
        await editor.run(lens.command.command, *lens.command.arguments)


# ------------------------------------------------------------------ memory


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


async def test_a_response_document_opened_and_closed_40_times_frees_its_plan(
        editor: Editor) -> None:
    server = getattr(editor.client, "_server", None)
    if server is None or not Path(f"/proc/{server.pid}/status").exists():
        pytest.skip("the server's memory is read from /proc")
    await start(editor)
    big = "".join(f"value_{n} = {n}  # a line of a large module\n" for n in range(80_000))
    editor.write("big.py", big + "last = 0\n")  # ~3.5 MB, planned against on every open
    response = "Change:\n\n" + edit_v3("big.py", "last = 0\n", "last = 1\n") + "\nDone.\n"
    sizes = []
    for cycle in range(40):
        stream = Stream(editor, "answer.llm.md", text=response)
        assert (await stream.titles())[1][1] == "✓ big.py:80001"
        editor.close("answer.llm.md")
        await editor.run("llmEdits.parse", {"response": "x"})  # the close has been handled
        if cycle in (9, 39):
            sizes.append(_rss_kib(server.pid))
    # Each plan kept alive held the file's lines (~+10 MB a cycle, no plateau); freed, the
    # size stays where ten cycles took it.
    assert sizes[1] - sizes[0] < 3 * len(big) // 1024, sizes
