"""Unit tests of the LSP conversions (no server): encodings, edits, diagnostics, results."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.protocol import default_converter

from lsp_server import lsp_convert as conv
from lsp_server.model import (
    BlockResult,
    FileEdit,
    ParseWarning,
    PlanResult,
    ResourceOp,
    TextEdit,
)

UTF8 = types.PositionEncodingKind.Utf8
UTF16 = types.PositionEncodingKind.Utf16
UTF32 = types.PositionEncodingKind.Utf32
ROOT = Path("/ws")

VSCODE = conv.ClientFeatures(
    encoding=UTF16, document_changes=True,
    resource_operations=frozenset({"create", "rename", "delete"}), related_information=True)
NEOVIM = conv.ClientFeatures(encoding=UTF16, resource_operations=frozenset(
    {"create", "rename", "delete"}), related_information=True)
EMACS = conv.ClientFeatures(encoding=UTF8, document_changes=True)


def uri_for(path: Path) -> str:
    return path.as_uri()


def unstructure(obj: object) -> object:
    return get_converter().unstructure(obj)


# ------------------------------------------------------------------ encodings


@pytest.mark.parametrize(("encoding", "units"), [(UTF16, 4), (UTF8, 7), (UTF32, 3)])
def test_code_units_count_non_bmp_characters_per_encoding(encoding: str, units: int) -> None:
    assert conv.code_units("a😀é", encoding) == units


@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_column_from_units_inverts_code_units(encoding: str) -> None:
    line = "x = '😀é' # ok"
    for column in range(len(line) + 1):
        assert conv.column_from_units(line, conv.code_units(line[:column], encoding),
                                      encoding) == column
    assert conv.column_from_units(line, 999, encoding) == len(line)


def test_lines_break_only_at_lsp_terminators() -> None:
    text = "a\r\nb\rc\x0cd\u2028e\nf"
    assert conv.split_lines(text) == ["a", "b", "c\x0cd\u2028e", "f"]
    assert conv.line_starts(text) == [0, 3, 5, 11]
    assert conv.split_lines("x\n") == ["x", ""]


def test_offset_at_uses_encoding_and_clamps() -> None:
    text = "😀b\r\nc"
    assert conv.offset_at(text, types.Position(line=0, character=2), UTF16) == 1
    assert conv.offset_at(text, types.Position(line=0, character=4), UTF8) == 1
    assert conv.offset_at(text, types.Position(line=0, character=99), UTF16) == 2  # before CRLF
    assert conv.offset_at(text, types.Position(line=1, character=1), UTF16) == 5
    assert conv.offset_at(text, types.Position(line=7, character=0), UTF16) == len(text)


@pytest.mark.parametrize("encoding", [UTF8, UTF16])
def test_incremental_change_after_emoji_in_each_encoding(encoding: str) -> None:
    text = "first\nsay('😀', x)\nlast\n"
    start = conv.code_units("say('😀', ", encoding)
    change = types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(line=1, character=start),
                          end=types.Position(line=1, character=start + 1)),
        text="yy")
    assert conv.apply_content_change(text, change, encoding) == "first\nsay('😀', yy)\nlast\n"


def test_incremental_change_keeps_form_feed_lines_apart_from_line_count() -> None:
    # str.splitlines would count the form feed as a line break and edit the wrong line.
    text = "a\x0cb\nsecond\n"
    change = types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(line=1, character=0),
                          end=types.Position(line=1, character=6)),
        text="2nd")
    assert conv.apply_content_change(text, change, UTF16) == "a\x0cb\n2nd\n"


def test_whole_document_change_replaces_text() -> None:
    change = types.TextDocumentContentChangeWholeDocument(text="new")
    assert conv.apply_content_change("old", change, UTF16) == "new"


def test_client_position_past_the_end_is_the_end_of_the_text() -> None:
    lines = conv.split_lines("ab\ncd")
    assert conv.client_position(lines, 5, 0, UTF16) == types.Position(line=1, character=2)


def _texts_with_every_kind_of_line() -> list[str]:
    rng = random.Random(5)
    pieces = ["a", "bc", " ", "é", "😀", "\t", "\x0c", "\u2028", "\n", "\r\n", "\r"]
    texts = ["", "\n", "\r", "\r\n", "x", "x\n", "\n\r", "a\r\r\nb"]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 30)))
              for _ in range(300)]
    return texts


def test_text_lines_are_the_split_lines() -> None:
    for text in _texts_with_every_kind_of_line():
        expected = conv.split_lines(text)
        assert expected == conv._LINE_BREAK.split(text)
        assert len(conv.TextLines(text)) == len(expected) == conv.line_count(text)
        # The last line alone (found from the end), then every line (after a split).
        assert conv.TextLines(text)[len(expected) - 1] == expected[-1]
        lines = conv.TextLines(text)
        assert [lines[i] for i in range(len(expected))] == expected


@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_client_position_on_text_lines_counts_units_of_the_line_prefix(encoding: str) -> None:
    for text in _texts_with_every_kind_of_line():
        lines = conv.split_lines(text)
        for line in range(len(lines) + 2):
            for column in range(-1, 8):
                shift = 3 if line % 2 else 0
                got = conv.client_position(conv.TextLines(text), line, column, encoding, shift)
                end = line >= len(lines)
                at = len(lines) - 1 if end else line
                prefix = lines[at] if end else lines[at][:max(0, column)]
                units = conv.code_units(prefix, encoding) + (shift if at == 0 else 0)
                assert got == types.Position(line=at, character=units), (text, line, column)


# ------------------------------------------------------------------ workspace edits


def _emoji_plan(version: int | None) -> PlanResult:
    original = "x = '😀'; y = 1\nz = 2\n"
    new = "x = '😀'; y = 42\nz = 2\n"
    col = len("x = '😀'; y = ")
    edit = FileEdit(ROOT / "a.py", version, [TextEdit(0, col, 0, col + 1, "42")], original, new)
    block = BlockResult(0, "a.py", "edit-v3", "validated", line=0, match="exact",
                        path=ROOT / "a.py")
    return PlanResult(blocks=[block], changes=[edit])


@pytest.mark.parametrize(("encoding", "character"), [(UTF16, 14), (UTF8, 16), (UTF32, 13)])
def test_text_edit_columns_in_negotiated_encoding(encoding: str, character: int) -> None:
    features = conv.ClientFeatures(encoding=encoding, document_changes=True)
    edit, warnings = conv.workspace_edit(_emoji_plan(7), features, uri_for)
    assert warnings == []
    assert edit is not None and edit.document_changes is not None
    doc_edit = edit.document_changes[0]
    assert isinstance(doc_edit, types.TextDocumentEdit)
    assert doc_edit.text_document.version == 7
    rng = doc_edit.edits[0].range
    assert (rng.start.line, rng.start.character) == (0, character)
    assert (rng.end.line, rng.end.character) == (0, character + 1)


def test_disk_file_edit_has_null_version_in_json() -> None:
    edit, _ = conv.workspace_edit(_emoji_plan(None), VSCODE, uri_for)
    data = unstructure(edit)
    assert data["documentChanges"][0]["textDocument"] == {
        "uri": (ROOT / "a.py").as_uri(), "version": None}


def test_bom_buffer_shifts_line_zero_columns_only() -> None:
    original = "a = 1\nb = 2\n"
    edits = [TextEdit(0, 0, 0, 1, "A"), TextEdit(1, 0, 1, 1, "B")]
    plan = PlanResult(changes=[FileEdit(ROOT / "b.py", 3, edits, original, "A = 1\nB = 2\n",
                                        has_bom=True)])
    for encoding, shift in ((UTF16, 1), (UTF8, 3)):
        features = conv.ClientFeatures(encoding=encoding, document_changes=True)
        edit, _ = conv.workspace_edit(plan, features, uri_for, bom_buffers={ROOT / "b.py"})
        first, second = edit.document_changes[0].edits
        assert first.range.start.character == shift and first.range.end.character == shift + 1
        assert second.range.start.character == 0
        # A disk file's BOM is hidden by the editor: no shift.
        edit, _ = conv.workspace_edit(plan, features, uri_for)
        assert edit.document_changes[0].edits[0].range.start.character == 0


def _resource_plan() -> PlanResult:
    blocks = [
        BlockResult(0, "new.py", "hunk-patch", "validated", line=0, response_line=1,
                    path=ROOT / "new.py"),
        BlockResult(1, "old.py", "hunk-patch", "validated", line=0, response_line=5,
                    path=ROOT / "old.py"),
        BlockResult(2, "gone.py", "hunk-patch", "validated", line=0, response_line=9,
                    path=ROOT / "gone.py"),
    ]
    changes = [
        ResourceOp("create", ROOT / "new.py"),
        FileEdit(ROOT / "new.py", None, [TextEdit(0, 0, 0, 0, "hello\n")], "", "hello\n"),
        FileEdit(ROOT / "old.py", 4, [TextEdit(0, 0, 0, 1, "X")], "x\n", "X\n"),
        ResourceOp("rename", ROOT / "old.py", ROOT / "moved.py"),
        ResourceOp("delete", ROOT / "gone.py"),
    ]
    return PlanResult(blocks=blocks, changes=changes)


def test_document_changes_client_gets_resource_operations_in_order() -> None:
    edit, warnings = conv.workspace_edit(_resource_plan(), VSCODE, uri_for, root=ROOT)
    assert warnings == []
    kinds = [getattr(c, "kind", "edit") for c in edit.document_changes]
    assert kinds == ["create", "edit", "edit", "rename", "delete"]
    assert edit.changes is None


def test_changes_fallback_warns_what_it_cannot_express() -> None:
    edit, warnings = conv.workspace_edit(_resource_plan(), NEOVIM, uri_for, root=ROOT)
    assert edit.document_changes is None
    assert set(edit.changes) == {(ROOT / "new.py").as_uri(), (ROOT / "old.py").as_uri()}
    messages = {w.response_line: w.message for w in warnings}
    assert "cannot create" in messages[1] and "new.py" in messages[1]
    assert "cannot rename" in messages[5] and "git mv old.py moved.py" in messages[5]
    assert "cannot delete" in messages[9] and "gone.py" in messages[9]


def test_document_changes_without_resource_operations_keeps_text_edits() -> None:
    edit, warnings = conv.workspace_edit(_resource_plan(), EMACS, uri_for, root=ROOT)
    assert all(isinstance(c, types.TextDocumentEdit) for c in edit.document_changes)
    assert len(warnings) == 3


def test_changes_fallback_merges_two_edits_of_one_file_into_a_whole_text_edit() -> None:
    first = FileEdit(ROOT / "a.py", 2, [TextEdit(0, 0, 0, 1, "b")], "a\nz\n", "b\nz\n")
    second = FileEdit(ROOT / "a.py", 2, [TextEdit(1, 0, 1, 1, "y")], "b\nz\n", "b\ny\n")
    edit, _ = conv.workspace_edit(PlanResult(changes=[first, second]), NEOVIM, uri_for)
    (only,) = edit.changes[(ROOT / "a.py").as_uri()]
    assert only.new_text == "b\ny\n"
    assert (only.range.start.line, only.range.end.line, only.range.end.character) == (0, 2, 0)


def test_no_changes_means_no_edit() -> None:
    assert conv.workspace_edit(PlanResult(), VSCODE, uri_for) == (None, [])
    assert conv.workspace_edit(PlanResult(), NEOVIM, uri_for) == (None, [])


def test_edit_json_is_what_the_protocol_converter_gives() -> None:
    # The server sends workspace_edit_json's JSON itself: it must be what pygls's converter
    # writes for the equivalent lsprotocol edit, and that edit must read back from it.
    pygls_unstructure = default_converter().unstructure
    plans = [_emoji_plan(3), _emoji_plan(None), _resource_plan(),
             PlanResult(changes=[  # two edits of one file: `changes` gets one whole-text edit
                 FileEdit(ROOT / "a.py", 2, [TextEdit(0, 0, 0, 1, "b")], "a\nz\n", "b\nz\n"),
                 FileEdit(ROOT / "a.py", 2, [TextEdit(1, 0, 1, 1, "y")], "b\nz\n", "b\ny\n")])]
    for plan in plans:
        for features in (VSCODE, NEOVIM, EMACS):
            data, warnings = conv.workspace_edit_json(plan, features, uri_for, root=ROOT)
            edit, same_warnings = conv.workspace_edit(plan, features, uri_for, root=ROOT)
            assert data is not None and edit is not None
            assert pygls_unstructure(edit) == data
            assert warnings == same_warnings


@pytest.mark.parametrize("encoding", [UTF8, UTF16])
def test_edit_ranges_are_the_client_positions_of_the_model_ones(encoding: str) -> None:
    # Whole-line edits away from line 0 take a shortcut; every range must still be what
    # client_position_json gives (BOM shift on line 0, clamping past the end, columns).
    rng = random.Random(11)
    for text in _texts_with_every_kind_of_line():
        lines = conv.split_lines(text)
        edits = []
        for _ in range(4):
            start = rng.randrange(len(lines) + 2)
            end = start + rng.randrange(3)
            columns = (0, 0) if rng.random() < 0.6 else (rng.randrange(4), rng.randrange(4))
            edits.append(TextEdit(start, columns[0], end, columns[1], "x"))
        plan = PlanResult(changes=[FileEdit(ROOT / "a.py", 1, edits, text, text)])
        features = conv.ClientFeatures(encoding=encoding, document_changes=True)
        for boms in ((), {ROOT / "a.py"}):
            data, _ = conv.workspace_edit_json(plan, features, uri_for, boms)
            assert data is not None
            shift = conv.code_units(conv.BOM, encoding) if boms else 0
            got = [e["range"] for e in data["documentChanges"][0]["edits"]]
            assert got == [
                {"start": conv.client_position_json(lines, e.start_line, e.start_col, encoding,
                                                    shift),
                 "end": conv.client_position_json(lines, e.end_line, e.end_col, encoding,
                                                  shift)}
                for e in edits], text


def test_edit_positions_use_the_line_count_the_caller_keeps() -> None:
    # The server keeps each open buffer's line count (counting a big file per run costs more
    # than the rest of a small preview); positions past the end are clamped with it.
    original = "one\ntwo"
    plan = PlanResult(changes=[FileEdit(ROOT / "a.py", 1, [TextEdit(5, 0, 5, 0, "!")],
                                        original, "one\ntwo!")])
    asked: list[tuple[Path, str]] = []

    def lines_for(path: Path, text: str) -> conv.TextLines:
        asked.append((path, text))
        return conv.TextLines(text, conv.line_count(text))

    data, _ = conv.workspace_edit_json(plan, VSCODE, uri_for, lines_for=lines_for)
    assert asked == [(ROOT / "a.py", original)]
    assert data is not None
    (doc_edit,) = data["documentChanges"]
    assert doc_edit["edits"] == [{"range": {"start": {"line": 1, "character": 3},
                                            "end": {"line": 1, "character": 3}},
                                  "newText": "!"}]
    assert conv.workspace_edit_json(plan, VSCODE, uri_for)[0] == data


# ------------------------------------------------------------------ diagnostics


def _failed_plan() -> PlanResult:
    return PlanResult(
        blocks=[
            BlockResult(0, "a.py", "edit-v3", "failed", reason="No match found", line=1,
                        response_line=3, path=ROOT / "a.py", hint="Did you mean line 2?",
                        fixes={"closest_line": 1}),
            BlockResult(1, "b.py", "search-replace", "validated", line=0, match="whitespace",
                        response_line=10, path=ROOT / "b.py"),
            BlockResult(2, "../x.py", "edit-v3", "failed", reason="outside the workspace",
                        response_line=20, path=None),
        ],
        warnings=[ParseWarning(30, "unclosed edit-v3 block")],
    )


def _texts(path: Path) -> str | None:
    return {ROOT / "a.py": "one\nsay('😀')\n", ROOT / "b.py": "b = 1\n"}.get(path)


def test_failed_block_diagnostic_placement_code_data_and_related_information() -> None:
    response = "\n" * 3 + "a.py block\n"
    diags = conv.plan_diagnostics(_failed_plan(), "run1", VSCODE, uri_for, _texts,
                                  "untitled:chat", response)
    (failed,) = diags[(ROOT / "a.py").as_uri()]
    assert failed.severity == types.DiagnosticSeverity.Error
    assert (failed.range.start.line, failed.range.start.character) == (1, 0)
    assert failed.range.end == types.Position(line=1, character=len("say('')") + 2)
    assert failed.code == "failed" and failed.source == "llm-edits"
    assert failed.message == "No match found\nDid you mean line 2?"
    assert failed.data == {"runId": "run1", "index": 0}
    (related,) = failed.related_information
    assert related.location.uri == "untitled:chat" and related.location.range.start.line == 3
    (warning,) = diags[(ROOT / "b.py").as_uri()]
    assert warning.code == "whitespace-match"
    assert warning.severity == types.DiagnosticSeverity.Warning
    on_response = diags["untitled:chat"]
    assert [d.code for d in on_response] == ["failed", "malformed-block"]
    assert on_response[0].range.start.line == 20 and "../x.py" in on_response[0].message
    assert on_response[1].range.start.line == 30


def test_without_response_document_no_related_information_nor_response_diagnostics() -> None:
    diags = conv.plan_diagnostics(_failed_plan(), "run1", VSCODE, uri_for, _texts)
    assert set(diags) == {(ROOT / "a.py").as_uri(), (ROOT / "b.py").as_uri()}
    assert diags[(ROOT / "a.py").as_uri()][0].related_information is None


def test_related_information_only_for_clients_that_show_it() -> None:
    diags = conv.plan_diagnostics(_failed_plan(), "r", EMACS, uri_for, _texts, "file:///r.md", "")
    assert diags[(ROOT / "a.py").as_uri()][0].related_information is None


def test_code_actions_for_fixes() -> None:
    diag = conv.plan_diagnostics(_failed_plan(), "r", VSCODE, uri_for, _texts)[
        (ROOT / "a.py").as_uri()][0]
    actions = conv.fix_code_actions(diag, {"matching": "whitespace", "closest_line": 1})
    assert [a.title for a in actions] == [
        "Apply with whitespace tolerance", "Apply at closest match (line 2)",
        "Copy retry feedback for the model"]
    assert actions[0].command.arguments == [{"runId": "r", "index": 0, "fix": "whitespace"}]
    assert actions[1].command.arguments == [{"runId": "r", "index": 0, "fix": "closest"}]
    assert actions[2].command.command == "llmEdits.copyFeedback"
    assert [a.title for a in conv.fix_code_actions(diag, {})] == [
        "Copy retry feedback for the model"]


# ------------------------------------------------------------------ results and options


def test_result_dict_is_camel_case_contract_shape() -> None:
    plan = _failed_plan()
    plan.blocks[1].offset = -3
    plan.shell_suggestions = ["git rm old.py"]
    edit, _ = conv.workspace_edit(_emoji_plan(2), VSCODE, uri_for)
    extra = [ParseWarning(0, "glue warning")]
    result = conv.result_dict(plan, edit, uri_for, unstructure, run_id="r", extra_warnings=extra)
    assert result["edit"] == unstructure(edit)
    assert result["runId"] == "r"
    assert result["shellSuggestions"] == ["git rm old.py"]
    assert result["warnings"] == [{"responseLine": 0, "message": "glue warning"},
                                  {"responseLine": 30, "message": "unclosed edit-v3 block"}]
    first, second, third = result["blocks"]
    assert first == {"index": 0, "file": "a.py", "uri": (ROOT / "a.py").as_uri(),
                     "format": "edit-v3", "status": "failed", "reason": "No match found",
                     "line": 1, "match": None, "responseLine": 3,
                     "hint": "Did you mean line 2?", "fixes": {"closestLine": 1}}
    assert "offset" not in first and second["offset"] == -3
    assert third["uri"] is None
    assert conv.result_dict(plan, None, uri_for, unstructure)["edit"] is None
    # The server passes the edit's JSON, which the result carries as it is.
    data, _ = conv.workspace_edit_json(_emoji_plan(2), VSCODE, uri_for)
    assert conv.result_dict(plan, data, uri_for, run_id="r")["edit"] is data


def test_mark_applied_turns_validated_into_applied_only() -> None:
    plan = _failed_plan()
    conv.mark_applied(plan)
    assert [b.status for b in plan.blocks] == ["failed", "applied", "failed"]


def test_changed_files_lists_before_and_after_texts() -> None:
    plan = _resource_plan()
    files = conv.changed_files(plan, uri_for, lambda p: "bye\n" if p.name == "gone.py" else None)
    assert files == [
        {"uri": (ROOT / "new.py").as_uri(), "kind": "create", "oldText": "",
         "newText": "hello\n"},
        {"uri": (ROOT / "old.py").as_uri(), "kind": "rename", "oldText": "x\n",
         "newText": "X\n", "newUri": (ROOT / "moved.py").as_uri()},
        {"uri": (ROOT / "gone.py").as_uri(), "kind": "delete", "oldText": "bye\n",
         "newText": ""},
    ]


def test_options_merge_over_initialization_defaults() -> None:
    options = conv.parse_options({"atomic": True}, {"matching": "whitespace", "atomic": False,
                                                    "formats": ["edit-v3"]})
    assert (options.matching, options.atomic, options.formats) == ("whitespace", True,
                                                                   {"edit-v3"})
    assert conv.parse_options(None).max_response_bytes == 16 * 1024 * 1024
    assert conv.parse_options({"formats": []}).formats is None  # empty: every format


@pytest.mark.parametrize(("options", "message"), [
    ({"matching": "fuzzy"}, "matching"),
    ({"atomic": "yes"}, "atomic"),
    ({"formats": ["nope"]}, "unknown format"),
    ({"maxResponseBytes": 0}, "maxResponseBytes"),
    ("exact", "must be an object"),
])
def test_bad_options_are_refused_with_a_message(options: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        conv.parse_options(options)


def test_response_size_limit() -> None:
    conv.check_response_size("é" * 10, 20)
    with pytest.raises(ValueError, match="21 bytes, more than maxResponseBytes"):
        conv.check_response_size("é" * 10 + "x", 20)


def test_fix_request_validation() -> None:
    assert conv.parse_fix_request({"runId": "r", "index": 2, "fix": "closest"}).index == 2
    with pytest.raises(ValueError, match="fix must be"):
        conv.parse_fix_request({"runId": "r", "index": 2, "fix": "magic"})


# ------------------------------------------------------------------ real client capabilities


def test_client_features_from_captured_capabilities() -> None:
    neovim = conv.client_features(pytest_lsp.client_capabilities("neovim@v0.7.0"), UTF16)
    assert not neovim.document_changes and neovim.related_information
    assert neovim.resource_operations == {"create", "rename", "delete"}
    code = conv.client_features(pytest_lsp.client_capabilities("visual-studio-code@v1.65.2"),
                                UTF16)
    assert code.document_changes and code.work_done_progress and code.apply_edit
    emacs = conv.client_features(pytest_lsp.client_capabilities("emacs@v29.1"), UTF8)
    assert emacs.document_changes and not emacs.resource_operations
    assert not emacs.related_information and emacs.encoding == UTF8
