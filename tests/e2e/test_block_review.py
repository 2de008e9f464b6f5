"""Per-block review over stdio (pytest-lsp): running some blocks (``options.blocks``),
change annotations, and choosing among the places of an ambiguous block."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from lsp_server.testing.editor import Editor

THREE_BLOCKS = """src/a.py
««« EDIT
one
═══════ REPL
ONE
»»» EDIT END

src/a.py
««« EDIT
ONE
two
═══════ REPL
ONE
TWO
»»» EDIT END

src/b.py
««« EDIT
x
═══════ REPL
X
»»» EDIT END
"""


async def _editor(client: LanguageClient, root: Path, **start: object) -> Editor:
    editor = Editor(client, root)
    editor.write("src/a.py", "one\ntwo\n")
    editor.write("src/b.py", "x\n")
    await editor.start(**start)
    return editor


def _statuses(result: dict) -> list[str]:
    return [b["status"] for b in result["blocks"]]


# ------------------------------------------------------------------ options.blocks


async def test_apply_runs_only_the_selected_blocks(client: LanguageClient,
                                                   tmp_path: Path) -> None:
    editor = await _editor(client, tmp_path)
    result = await editor.run("llmEdits.apply",
                              {"response": THREE_BLOCKS, "options": {"blocks": [0, 2]}})
    assert _statuses(result) == ["applied", "excluded", "applied"]
    assert result["applied"] is True
    assert editor.text("src/a.py") == "ONE\ntwo\n"
    assert editor.text("src/b.py") == "X\n"
    excluded = result["blocks"][1]
    assert (excluded["index"], excluded["line"], excluded["reason"]) == (1, None, None)
    assert "message" not in result


async def test_a_block_that_needed_an_excluded_one_fails(client: LanguageClient,
                                                          tmp_path: Path) -> None:
    editor = await _editor(client, tmp_path)
    result = await editor.run("llmEdits.preview",
                              {"response": THREE_BLOCKS, "options": {"blocks": [1, 2]}})
    assert _statuses(result) == ["excluded", "failed", "validated"]
    assert "not found" in result["blocks"][1]["reason"]
    # Diagnostics: the failure only; nothing for the excluded block.
    (diagnostic,) = editor.diagnostics("src/a.py")
    assert diagnostic.code == "failed" and diagnostic.data["index"] == 1
    feedback = await editor.run("llmEdits.feedback",
                                {"response": THREE_BLOCKS, "options": {"blocks": [1, 2]}})
    assert "Block 2" in feedback["text"] and "block 1:" not in feedback["text"]


async def test_an_empty_selection_runs_nothing_and_says_so(client: LanguageClient,
                                                           tmp_path: Path) -> None:
    editor = await _editor(client, tmp_path)
    result = await editor.run("llmEdits.apply",
                              {"response": THREE_BLOCKS, "options": {"blocks": []}})
    assert _statuses(result) == ["excluded"] * 3
    assert result["edit"] is None and result["applied"] is False
    assert result["message"] == "options.blocks is empty: no block was run (3 blocks excluded)"
    assert editor.apply_requests == []
    assert editor.text("src/a.py") == "one\ntwo\n"


@pytest.mark.parametrize(("blocks", "named"), [
    ([0, 3], "there is no block 3: the response has 3 blocks (valid: 0-2)"),
    ([1, 1], "options.blocks[1] repeats block index 1"),
    ([-1], "options.blocks[0] is negative (-1)"),
    ([0, 1.5], "options.blocks[1] must be an integer block index, got 1.5"),
    ([True], "options.blocks[0] must be an integer block index, got True"),
    ("0,1", "options.blocks must be a list of block indices, got str"),
])
async def test_bad_block_lists_are_invalid_params(client: LanguageClient,
                                                  tmp_path: Path, blocks: object,
                                                  named: str) -> None:
    editor = await _editor(client, tmp_path)
    with pytest.raises(JsonRpcInvalidParams) as error:
        await editor.run("llmEdits.preview",
                         {"response": THREE_BLOCKS, "options": {"blocks": blocks}})
    assert named in error.value.message
    assert editor.text("src/a.py") == "one\ntwo\n"


# ------------------------------------------------------------------ change annotations


def _capabilities(annotations: bool) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=["utf-16"]),
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True,
                change_annotation_support=(
                    types.ChangeAnnotationsSupportOptions(groups_on_label=True)
                    if annotations else None))))


async def test_annotations_name_each_block_when_the_client_takes_them(
        client: LanguageClient, tmp_path: Path) -> None:
    editor = await _editor(client, tmp_path, capabilities=_capabilities(True))
    result = await editor.run("llmEdits.apply", {"response": THREE_BLOCKS})
    assert result["applied"] is True
    (sent,) = editor.apply_requests
    a_py, b_py = sent.edit.document_changes
    assert [e.annotation_id for e in a_py.edits] == ["blocks-0-1"]  # both changed line 1-2
    assert [e.annotation_id for e in b_py.edits] == ["block-2"]
    annotations = sent.edit.change_annotations
    assert annotations["block-2"].label == "Block 3 · src/b.py · edit-v3"
    assert annotations["block-2"].description == "response line 17, exact match"
    assert annotations["blocks-0-1"].label == "Blocks 1, 2 · src/a.py · edit-v3"
    assert not any(a.needs_confirmation for a in annotations.values())
    assert editor.text("src/a.py") == "ONE\nTWO\n"


async def test_confirm_marks_every_annotation(client: LanguageClient,
                                              tmp_path: Path) -> None:
    editor = await _editor(client, tmp_path, capabilities=_capabilities(True))
    result = await editor.run("llmEdits.preview",
                              {"response": THREE_BLOCKS, "options": {"confirm": True,
                                                                     "blocks": [0, 2]}})
    edit = result["edit"]
    assert set(edit["changeAnnotations"]) == {"block-0", "block-2"}
    assert all(a["needsConfirmation"] for a in edit["changeAnnotations"].values())
    assert [e["annotationId"] for change in edit["documentChanges"]
            for e in change["edits"]] == ["block-0", "block-2"]


async def test_no_annotations_for_a_client_without_the_capability(
        client: LanguageClient, tmp_path: Path) -> None:
    editor = await _editor(client, tmp_path, capabilities=_capabilities(False))
    result = await editor.run("llmEdits.preview",
                              {"response": THREE_BLOCKS, "options": {"confirm": True}})
    edit = result["edit"]
    assert "changeAnnotations" not in edit
    assert not any("annotationId" in e for change in edit["documentChanges"]
                   for e in change["edits"])


# ------------------------------------------------------------------ ambiguity you can resolve

AMBIGUOUS = """src/c.py
««« EDIT
    return x
═══════ REPL
    return x + 1
»»» EDIT END
"""
C_PY = "def f(x):\n    return x\n\n\ndef g(x):\n    return x\n\ndef h(x):\n    return x\n"


async def _code_actions(editor: Editor, rel: str, line: int) -> list[types.CodeAction]:
    actions = await editor.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=editor.uri(rel)),
        range=types.Range(start=types.Position(line=line, character=0),
                          end=types.Position(line=line, character=0)),
        context=types.CodeActionContext(diagnostics=editor.diagnostics(rel))))
    return list(actions or [])


async def test_one_quick_fix_per_candidate_applies_there(client: LanguageClient,
                                                         tmp_path: Path) -> None:
    editor = await _editor(client, tmp_path)
    editor.write("src/c.py", C_PY)
    result = await editor.run("llmEdits.preview", {"response": AMBIGUOUS})
    block = result["blocks"][0]
    assert block["reason"] == "Edit location is ambiguous (matches at lines 2, 6 and 9)"
    assert block["fixes"] == {"candidateLines": [1, 5, 8], "candidateCount": 3}
    (diagnostic,) = editor.diagnostics("src/c.py")
    assert "lines 2, 6 and 9" in diagnostic.message
    actions = await _code_actions(editor, "src/c.py", 1)
    fixes = [a for a in actions if a.title.startswith("Apply block")]
    assert [a.title for a in fixes] == ["Apply block 1 at line 2", "Apply block 1 at line 6",
                                        "Apply block 1 at line 9"]
    command = fixes[1].command
    assert command is not None and command.arguments is not None
    assert command.arguments[0] == {"runId": result["runId"], "index": 0, "fix": "at",
                                    "line": 6}
    fixed = await editor.run(command.command, command.arguments[0])
    assert fixed["applied"] is True and fixed["blocks"][0]["line"] == 5
    assert editor.text("src/c.py") == C_PY.replace(
        "def g(x):\n    return x\n", "def g(x):\n    return x + 1\n")
    assert editor.diagnostics("src/c.py") == []


async def test_the_at_fix_takes_only_a_candidate_line(client: LanguageClient,
                                                      tmp_path: Path) -> None:
    editor = await _editor(client, tmp_path)
    editor.write("src/c.py", C_PY)
    result = await editor.run("llmEdits.preview", {"response": AMBIGUOUS})
    fix = {"runId": result["runId"], "index": 0, "fix": "at"}
    with pytest.raises(JsonRpcInvalidParams, match=r"line 3 is not one of the places"):
        await editor.run("llmEdits.applyFix", {**fix, "line": 3})
    with pytest.raises(JsonRpcInvalidParams, match=r"needs line, a 1-based line number"):
        await editor.run("llmEdits.applyFix", {**fix, "line": 0})
    assert editor.text("src/c.py") == C_PY
    feedback = await editor.run("llmEdits.copyFeedback", {"runId": result["runId"]})
    assert "occur at 3 places" in feedback["text"]
    assert "> 6 |     return x" in feedback["text"] and "  5 | def g(x):" in feedback["text"]
