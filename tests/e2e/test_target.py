"""``options.target`` and the **Apply to `<file>`** lens over stdio (pytest-lsp): a chat answer
(prose and a code fence naming no file) applied to the file the user names, its open buffer
(unsaved changes included); refusals; the lens on each unnamed fence of a response document,
naming the file of the editor the user was last in (``llmEdits.lastEditor``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.testing.editor import Editor

from .responses import edit_v3

STORE = ('import json\n\n\ndef load(path):\n    with open(path) as f:\n'
         '        return json.load(f)\n\n\ndef save(path, data):\n'
         '    with open(path, "w") as f:\n        json.dump(data, f)\n')
SAVE = ('def save(path, data):\n    with open(path, "w") as f:\n'
        '        json.dump(data, f, indent=2)\n')
CHAT = (f"You can pass `indent`:\n\n```python\n{SAVE}```\n\n"
        "Then remove the old one:\n\n```bash\ngit rm conf/old.py\n```\n")
UNSAVED = "# unsaved\n" + STORE
MERGED = UNSAVED.replace("dump(data, f)", "dump(data, f, indent=2)")


async def _start(editor: Editor) -> None:
    editor.write("conf/store.py", STORE)
    editor.write("other.py", "X = 1\n")
    await editor.start()


async def test_target_applies_an_unnamed_fence_to_the_unsaved_buffer(editor: Editor) -> None:
    await _start(editor)
    editor.open("conf/store.py", UNSAVED)
    result = await editor.run("llmEdits.apply", {
        "response": CHAT, "options": {"target": editor.uri("conf/store.py")}})
    assert [(b["status"], b["file"], b["match"]) for b in result["blocks"]] == [
        ("applied", "conf/store.py", "syntax")]
    assert result["shellSuggestions"] == ["git rm conf/old.py"]  # a shell fence: no block
    assert editor.text("conf/store.py") == MERGED
    # A relative path names the same file.
    again = await editor.run("llmEdits.preview", {
        "response": CHAT, "options": {"target": "conf/store.py"}})
    assert [b["status"] for b in again["blocks"]] == ["already-applied"]


async def test_without_target_the_fence_is_no_block_and_the_warning_says_target(
        editor: Editor) -> None:
    await _start(editor)
    result = await editor.run("llmEdits.preview", {"response": CHAT})
    assert result["blocks"] == []
    assert [w["message"] for w in result["warnings"]] == [
        "No edit blocks found; 1 code block names no file: apply it to a file with target"]


async def test_llm_edits_parse_takes_target(editor: Editor) -> None:
    await _start(editor)
    result = await editor.run("llmEdits.parse", {
        "response": CHAT, "options": {"target": "conf/store.py"}})
    [block] = result["blocks"]
    assert (block["format"], block["file"], block["op"]) == ("code-block", "conf/store.py", "write")


@pytest.mark.parametrize(("target", "says"), [
    ("../outside.py", "target"),
    ("", "target"),
])
async def test_a_target_outside_the_workspace_or_empty_is_refused(editor: Editor, target: str,
                                                                  says: str) -> None:
    await _start(editor)
    with pytest.raises(JsonRpcException, match=says):
        await editor.run("llmEdits.apply", {"response": CHAT, "options": {"target": target}})
    assert editor.text("conf/store.py") == STORE


async def test_a_binary_target_fails_its_block_and_nothing_changes(editor: Editor) -> None:
    (editor.root / "blob.bin").write_bytes(b"\x00\x01binary\n")
    await _start(editor)
    result = await editor.run("llmEdits.apply", {"response": CHAT,
                                                 "options": {"target": "blob.bin"}})
    [block] = result["blocks"]
    assert block["status"] == "failed" and "binary" in block["reason"]
    assert (editor.root / "blob.bin").read_bytes() == b"\x00\x01binary\n"


# ------------------------------------------------------------------ the lens


def _open_response(editor: Editor, rel: str, text: str) -> str:
    uri = editor.uri(rel)
    editor.client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="llm-response", version=1,
                                             text=text)))
    editor.buffers[uri] = (text, 1)
    return uri


async def _lenses(editor: Editor, uri: str) -> list[types.CodeLens]:
    return await editor.code_lenses(uri)


RESPONSE = (edit_v3("other.py", "X = 1\n", "X = 2\n") + "\nAnd in the store:\n\n```python\n"
            + SAVE + "```\n")


async def test_the_lens_applies_an_unnamed_fence_to_the_last_editor_s_file(
        editor: Editor) -> None:
    await _start(editor)
    editor.open("conf/store.py", UNSAVED)
    uri = _open_response(editor, "answer.llm.md", RESPONSE)
    fence_line = RESPONSE.split("\n").index("```python")
    # No last editor yet: no lens on the fence.
    assert [lens.range.start.line for lens in await _lenses(editor, uri)
            if lens.command.title.startswith("Apply to")] == []
    await editor.run("llmEdits.lastEditor", {"uri": editor.uri("conf/store.py")})
    [lens] = [lens for lens in await _lenses(editor, uri)
              if lens.command.title.startswith("Apply to")]
    assert (lens.range.start.line, lens.command.title) == (fence_line, "Apply to conf/store.py")
    assert lens.command.command == "llmEdits.apply"
    [argument] = lens.command.arguments
    assert argument["options"] == {"target": editor.uri("conf/store.py"), "blocks": [1]}
    result = await editor.run(lens.command.command, argument)
    assert [(b["index"], b["status"]) for b in result["blocks"]] == [(0, "excluded"),
                                                                      (1, "applied")]
    assert editor.text("conf/store.py") == MERGED
    assert editor.text("other.py") == "X = 1\n"  # the lens ran its fence only


async def test_a_response_document_is_never_the_last_editor(editor: Editor) -> None:
    await _start(editor)
    uri = _open_response(editor, "answer.llm.md", RESPONSE)
    await editor.run("llmEdits.lastEditor", {"uri": uri})
    assert [lens for lens in await _lenses(editor, uri)
            if lens.command.title.startswith("Apply to")] == []
    with pytest.raises(JsonRpcException, match="uri"):
        await editor.run("llmEdits.lastEditor", {"uri": 3})


def test_the_lens_module_counts_blocks_and_fences_above(tmp_path: Path) -> None:
    from lsp_server.lsp.live.target_lens import fence_block_indexes
    from lsp_server.parsing import parse_response

    text = ("```python\na = 1\n```\n\n" + edit_v3("x.py", "a\n", "b\n")
            + "\n```js\nf();\n```\n\n```bash\nls\n```\n")
    found = fence_block_indexes(text, parse_response(text))
    with_target = parse_response(text, target="t.py")
    assert found == [(b.response_line, b.index) for b in with_target.blocks
                     if b.format == "code-block"]
    assert [index for _, index in found] == [0, 2]


async def test_a_response_document_as_target_is_refused(editor: Editor) -> None:
    await _start(editor)
    uri = _open_response(editor, "answer.llm.md", RESPONSE)
    for target in (uri, "answer.llm.md"):
        with pytest.raises(JsonRpcException, match="response document"):
            await editor.run("llmEdits.apply", {"response": CHAT, "options": {"target": target}})
    assert editor.text("answer.llm.md") == RESPONSE
