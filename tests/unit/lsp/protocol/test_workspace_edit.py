"""A plan's changes as the WorkspaceEdit each kind of client gets."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.protocol import default_converter

from lsp_server.lsp.protocol.client_features import ClientFeatures
from lsp_server.lsp.protocol.positions import (
    BOM,
    TextLines,
    client_position_json,
    code_units,
    line_count,
    split_lines,
)
from lsp_server.lsp.protocol.workspace_edit import workspace_edit_json
from lsp_server.model import FileEdit, ParseWarning, PlanResult, ResourceOp, TextEdit
from lsp_server.results import result_dict

from ..plans import (
    EMACS,
    NEOVIM,
    ROOT,
    UTF8,
    UTF16,
    UTF32,
    VSCODE,
    emoji_plan,
    failed_plan,
    read_back,
    resource_plan,
    texts_with_every_kind_of_line,
    unstructure,
    uri_for,
)


@pytest.mark.parametrize(("encoding", "character"), [(UTF16, 14), (UTF8, 16), (UTF32, 13)])
def test_text_edit_columns_in_negotiated_encoding(encoding: str, character: int) -> None:
    features = ClientFeatures(encoding=encoding, document_changes=True)
    edit, warnings = read_back(workspace_edit_json(emoji_plan(7), features, uri_for))
    assert warnings == []
    assert edit is not None and edit.document_changes is not None
    doc_edit = edit.document_changes[0]
    assert isinstance(doc_edit, types.TextDocumentEdit)
    assert doc_edit.text_document.version == 7
    rng = doc_edit.edits[0].range
    assert (rng.start.line, rng.start.character) == (0, character)
    assert (rng.end.line, rng.end.character) == (0, character + 1)


def test_disk_file_edit_has_null_version_in_json() -> None:
    edit, _ = read_back(workspace_edit_json(emoji_plan(None), VSCODE, uri_for))
    data = unstructure(edit)
    assert data["documentChanges"][0]["textDocument"] == {
        "uri": (ROOT / "a.py").as_uri(), "version": None}


def test_bom_buffer_shifts_line_zero_columns_only() -> None:
    original = "a = 1\nb = 2\n"
    edits = [TextEdit(0, 0, 0, 1, "A"), TextEdit(1, 0, 1, 1, "B")]
    plan = PlanResult(changes=[FileEdit(ROOT / "b.py", 3, edits, original, "A = 1\nB = 2\n",
                                        has_bom=True)])
    for encoding, shift in ((UTF16, 1), (UTF8, 3)):
        features = ClientFeatures(encoding=encoding, document_changes=True)
        edit, _ = read_back(workspace_edit_json(plan, features, uri_for,
                                                bom_buffers={ROOT / "b.py"}))
        first, second = edit.document_changes[0].edits
        assert first.range.start.character == shift and first.range.end.character == shift + 1
        assert second.range.start.character == 0
        # A disk file's BOM is hidden by the editor: no shift.
        edit, _ = read_back(workspace_edit_json(plan, features, uri_for))
        assert edit.document_changes[0].edits[0].range.start.character == 0


def test_document_changes_client_gets_resource_operations_in_order() -> None:
    edit, warnings = read_back(workspace_edit_json(resource_plan(), VSCODE, uri_for,
                                                   root=ROOT))
    assert warnings == []
    kinds = [getattr(c, "kind", "edit") for c in edit.document_changes]
    assert kinds == ["create", "edit", "edit", "rename", "delete"]
    assert edit.changes is None


def test_changes_fallback_warns_what_it_cannot_express() -> None:
    edit, warnings = read_back(workspace_edit_json(resource_plan(), NEOVIM, uri_for,
                                                   root=ROOT))
    assert edit.document_changes is None
    assert set(edit.changes) == {(ROOT / "new.py").as_uri(), (ROOT / "old.py").as_uri()}
    messages = {w.response_line: w.message for w in warnings}
    assert "cannot create" in messages[1] and "new.py" in messages[1]
    assert "cannot rename" in messages[5] and "git mv old.py moved.py" in messages[5]
    assert "cannot delete" in messages[9] and "gone.py" in messages[9]


def test_paths_in_warnings_show_invisible_characters_escaped() -> None:
    # A bidi override or a zero-width character in a path makes it read as another.
    plan = PlanResult(blocks=[], changes=[
        ResourceOp("rename", ROOT / "a\u202eyp.exe", ROOT / "b\u200b.py"),
        ResourceOp("delete", Path("/elsewhere/\x1b[31mred"))])
    _, warnings = workspace_edit_json(plan, NEOVIM, uri_for, root=ROOT)
    rename, delete = (w.message for w in warnings)
    assert "git mv a\\u202eyp.exe b\\u200b.py" in rename
    assert "\u202e" not in rename and "\u200b" not in rename
    assert "/elsewhere/\\x1b[31mred" in delete and "\x1b" not in delete


def test_document_changes_without_resource_operations_keeps_text_edits() -> None:
    edit, warnings = read_back(workspace_edit_json(resource_plan(), EMACS, uri_for,
                                                   root=ROOT))
    assert all(isinstance(c, types.TextDocumentEdit) for c in edit.document_changes)
    assert len(warnings) == 3


def test_changes_fallback_merges_two_edits_of_one_file_into_a_whole_text_edit() -> None:
    first = FileEdit(ROOT / "a.py", 2, [TextEdit(0, 0, 0, 1, "b")], "a\nz\n", "b\nz\n")
    second = FileEdit(ROOT / "a.py", 2, [TextEdit(1, 0, 1, 1, "y")], "b\nz\n", "b\ny\n")
    edit, _ = read_back(workspace_edit_json(PlanResult(changes=[first, second]), NEOVIM,
                                            uri_for))
    (only,) = edit.changes[(ROOT / "a.py").as_uri()]
    assert only.new_text == "b\ny\n"
    assert (only.range.start.line, only.range.end.line, only.range.end.character) == (0, 2, 0)


def test_no_changes_means_no_edit() -> None:
    assert workspace_edit_json(PlanResult(), VSCODE, uri_for) == (None, [])
    assert workspace_edit_json(PlanResult(), NEOVIM, uri_for) == (None, [])


def test_edit_json_is_what_the_protocol_converter_gives() -> None:
    # The server sends workspace_edit_json's JSON itself: it must be what pygls's converter
    # writes for the equivalent lsprotocol edit, and that edit must read back from it.
    pygls_unstructure = default_converter().unstructure
    plans = [emoji_plan(3), emoji_plan(None), resource_plan(),
             PlanResult(changes=[  # two edits of one file: `changes` gets one whole-text edit
                 FileEdit(ROOT / "a.py", 2, [TextEdit(0, 0, 0, 1, "b")], "a\nz\n", "b\nz\n"),
                 FileEdit(ROOT / "a.py", 2, [TextEdit(1, 0, 1, 1, "y")], "b\nz\n", "b\ny\n")])]
    for plan in plans:
        for features in (VSCODE, NEOVIM, EMACS):
            data, warnings = workspace_edit_json(plan, features, uri_for, root=ROOT)
            edit, _ = read_back((data, warnings))
            assert data is not None and edit is not None
            assert pygls_unstructure(edit) == data


@pytest.mark.parametrize("encoding", [UTF8, UTF16])
def test_edit_ranges_are_the_client_positions_of_the_model_ones(encoding: str) -> None:
    # Whole-line edits away from line 0 take a shortcut; every range must still be what
    # client_position_json gives (BOM shift on line 0, clamping past the end, columns).
    rng = random.Random(11)
    for text in texts_with_every_kind_of_line():
        lines = split_lines(text)
        edits = []
        for _ in range(4):
            start = rng.randrange(len(lines) + 2)
            end = start + rng.randrange(3)
            columns = (0, 0) if rng.random() < 0.6 else (rng.randrange(4), rng.randrange(4))
            edits.append(TextEdit(start, columns[0], end, columns[1], "x"))
        plan = PlanResult(changes=[FileEdit(ROOT / "a.py", 1, edits, text, text)])
        features = ClientFeatures(encoding=encoding, document_changes=True)
        for boms in ((), {ROOT / "a.py"}):
            data, _ = workspace_edit_json(plan, features, uri_for, boms)
            assert data is not None
            shift = code_units(BOM, encoding) if boms else 0
            got = [e["range"] for e in data["documentChanges"][0]["edits"]]
            assert got == [
                {"start": client_position_json(lines, e.start_line, e.start_col, encoding,
                                                    shift),
                 "end": client_position_json(lines, e.end_line, e.end_col, encoding,
                                                  shift)}
                for e in edits], text


def test_edit_positions_use_the_line_count_the_caller_keeps() -> None:
    # The server keeps each open buffer's line count (counting a big file per run costs more
    # than the rest of a small preview); positions past the end are clamped with it.
    original = "one\ntwo"
    plan = PlanResult(changes=[FileEdit(ROOT / "a.py", 1, [TextEdit(5, 0, 5, 0, "!")],
                                        original, "one\ntwo!")])
    asked: list[tuple[Path, str]] = []

    def lines_for(path: Path, text: str) -> TextLines:
        asked.append((path, text))
        return TextLines(text, line_count(text))

    data, _ = workspace_edit_json(plan, VSCODE, uri_for, lines_for=lines_for)
    assert asked == [(ROOT / "a.py", original)]
    assert data is not None
    (doc_edit,) = data["documentChanges"]
    assert doc_edit["edits"] == [{"range": {"start": {"line": 1, "character": 3},
                                            "end": {"line": 1, "character": 3}},
                                  "newText": "!"}]
    assert workspace_edit_json(plan, VSCODE, uri_for)[0] == data


def test_result_dict_is_camel_case_contract_shape() -> None:
    plan = failed_plan()
    plan.blocks[1].offset = -3
    plan.shell_suggestions = ["git rm old.py"]
    edit, _ = read_back(workspace_edit_json(emoji_plan(2), VSCODE, uri_for))
    extra = [ParseWarning(0, "glue warning")]
    result = result_dict(plan, edit, uri_for, unstructure, run_id="r", extra_warnings=extra)
    assert result["edit"] == unstructure(edit)
    assert result["runId"] == "r"
    assert result["shellSuggestions"] == ["git rm old.py"]
    assert result["warnings"] == [{"responseLine": 0, "message": "glue warning"},
                                  {"responseLine": 30, "message": "unclosed edit-v3 block"}]
    first, second, third = result["blocks"]
    assert first == {"index": 0, "file": "a.py", "uri": (ROOT / "a.py").as_uri(),
                     "format": "edit-v3", "status": "failed", "reason": "No match found",
                     "line": 1, "match": None, "responseLine": 3,
                     "hint": "Did you mean line 2?", "fixes": {"closestLine": 1},
                     "anchorPreview": "", "oldPreview": "", "newPreview": ""}
    assert "offset" not in first and second["offset"] == -3
    assert third["uri"] is None
    assert result_dict(plan, None, uri_for, unstructure)["edit"] is None
    # The server passes the edit's JSON, which the result carries as it is.
    data, _ = workspace_edit_json(emoji_plan(2), VSCODE, uri_for)
    assert result_dict(plan, data, uri_for, run_id="r")["edit"] is data
