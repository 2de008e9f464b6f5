"""The ``at`` quick fix over stdio (pytest-lsp): an ambiguous hunk in each hunk format gets one
fix per place, the second applied lands there only, and a fix whose place moved since the
preview places nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_server.testing.editor import Editor

C_PY = "def f(x):\n    return x\n\n\ndef g(x):\n    return x\n\ndef h(x):\n    return x\n"
# Each response: hunk 1 renames f (one place); hunk 2 is "    return x" after it, at lines
# 2, 6 and 9 (unified-diff: its header's line 4 is equally near lines 2 and 6).
HUNK_RESPONSES = {
    "hunk-patch": 'edit {"path": "src/c.py", "op": "update", "diff": "@@\\n-def f(x):\\n'
                  '+def f(x, y=0):\\n@@\\n-    return x\\n+    return x + 1\\n"}\n',
    "apply-patch": "*** Begin Patch\n*** Update File: src/c.py\n@@\n-def f(x):\n"
                   "+def f(x, y=0):\n@@\n-    return x\n+    return x + 1\n*** End Patch\n",
    "unified-diff": "--- a/src/c.py\n+++ b/src/c.py\n@@ -1,1 +1,1 @@\n-def f(x):\n"
                    "+def f(x, y=0):\n@@ -4,1 +4,1 @@\n-    return x\n+    return x + 1\n",
}
PLACES = {"hunk-patch": [2, 6, 9], "apply-patch": [2, 6, 9], "unified-diff": [2, 6]}
AT_SECOND = C_PY.replace("def f(x):", "def f(x, y=0):").replace(
    "def g(x):\n    return x\n", "def g(x):\n    return x + 1\n")


async def _code_actions(editor: Editor, rel: str, line: int) -> list[types.CodeAction]:
    actions = await editor.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=editor.uri(rel)),
        range=types.Range(start=types.Position(line=line, character=0),
                          end=types.Position(line=line, character=0)),
        context=types.CodeActionContext(diagnostics=editor.diagnostics(rel))))
    return [a for a in actions or [] if a.title.startswith("Apply block")]


async def _previewed(client: LanguageClient, root: Path, fmt: str,
                     ) -> tuple[Editor, dict, list[types.CodeAction]]:
    editor = Editor(client, root)
    editor.write("src/c.py", C_PY)
    await editor.start()
    editor.open("src/c.py")
    result = await editor.run("llmEdits.preview", {"response": HUNK_RESPONSES[fmt]})
    (block,) = result["blocks"]
    places = PLACES[fmt]
    assert block["status"] == "failed" and block["format"] == fmt
    assert block["fixes"] == {"candidateLines": [n - 1 for n in places],
                              "candidateCount": len(places), "candidateHunk": 1}
    words = "lines 2, 6 and 9" if len(places) == 3 else "lines 2 and 6"
    assert words in block["reason"] and block["reason"].endswith("(hunk 2 of 2)")
    (diagnostic,) = editor.diagnostics("src/c.py")
    assert words in diagnostic.message
    actions = await _code_actions(editor, "src/c.py", diagnostic.range.start.line)
    assert [a.title for a in actions] == [f"Apply block 1 at line {n}" for n in places]
    return editor, result, actions


@pytest.mark.parametrize("fmt", sorted(HUNK_RESPONSES))
async def test_an_ambiguous_hunk_applies_at_the_second_place_only(
        client: LanguageClient, tmp_path: Path, fmt: str) -> None:
    editor, result, actions = await _previewed(client, tmp_path, fmt)
    command = actions[1].command
    assert command is not None and command.arguments is not None
    assert command.arguments[0] == {"runId": result["runId"], "index": 0, "fix": "at",
                                    "line": 6}
    fixed = await editor.run(command.command, command.arguments[0])
    (block,) = fixed["blocks"]
    assert fixed["applied"] is True and block["status"] == "applied", block
    assert editor.text("src/c.py") == AT_SECOND  # hunk 1 as usual, hunk 2 at line 6 only
    assert len(editor.apply_requests) == 1 and editor.diagnostics("src/c.py") == []


@pytest.mark.parametrize("fmt", sorted(HUNK_RESPONSES))
async def test_an_at_fix_whose_place_moved_places_nothing(
        client: LanguageClient, tmp_path: Path, fmt: str) -> None:
    editor, _, actions = await _previewed(client, tmp_path, fmt)
    moved = "# added above since the preview\n" + C_PY
    editor.type("src/c.py", moved)
    command = actions[1].command
    assert command is not None and command.arguments is not None
    fixed = await editor.run(command.command, command.arguments[0])
    (block,) = fixed["blocks"]
    assert fixed["applied"] is False and block["status"] == "failed", block
    now = [n + 1 for n in PLACES[fmt]]
    words = "lines 3, 7 and 10" if len(now) == 3 else "lines 3 and 7"
    assert block["reason"] == ("Line 6 is no longer the place chosen: the places this block's "
                               f"text matches moved (now {words}); nothing was applied, choose "
                               "again (hunk 2 of 2)")
    assert editor.text("src/c.py") == moved and editor.apply_requests == []
    # The renewed diagnostic offers the places as they are now.
    (diagnostic,) = editor.diagnostics("src/c.py")
    again = await _code_actions(editor, "src/c.py", diagnostic.range.start.line)
    assert [a.title for a in again] == [f"Apply block 1 at line {n}" for n in now]
    command = again[1].command
    assert command is not None and command.arguments is not None
    fixed = await editor.run(command.command, command.arguments[0])
    assert fixed["applied"] is True
    assert editor.text("src/c.py") == "# added above since the preview\n" + AT_SECOND


async def test_hunk_feedback_shows_every_place_with_its_lines(
        client: LanguageClient, tmp_path: Path) -> None:
    editor, result, _ = await _previewed(client, tmp_path, "apply-patch")
    feedback = (await editor.run("llmEdits.copyFeedback", {"runId": result["runId"]}))["text"]
    assert "What hunk 2 looks for occurs, after the hunk before it, at 3 places" in feedback
    assert "> 6 |     return x" in feedback and "  5 | def g(x):" in feedback
    assert "> 9 |     return x" in feedback
