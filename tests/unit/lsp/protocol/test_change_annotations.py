"""Change annotations in the workspace edit: each text edit and resource operation names
its block, for clients that take them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pygls.protocol import default_converter

from lsp_server.block_spans import BlockSpans
from lsp_server.lsp.protocol.change_annotations import (
    annotation_json,
    block_spans_for,
    edit_annotations,
)
from lsp_server.lsp.protocol.workspace_edit import workspace_edit_json
from lsp_server.model import BlockResult, FileSnapshot
from lsp_server.parsing import parse_response
from lsp_server.planning import plan_edits

from ..plans import NEOVIM, VSCODE, read_back, uri_for

ANNOTATING = replace(VSCODE, change_annotations=True)
RESPONSE = """a.py
««« EDIT
one
═══════ REPL
ONE
»»» EDIT END

*** Begin Patch
*** Add File: new.py
+hello
*** Delete File: gone.py
*** End Patch

a.py
««« EDIT
three
═══════ REPL
THREE
»»» EDIT END
"""


def _plan(tmp_path: Path):
    files = {tmp_path / "a.py": "one\ntwo\nthree\n", tmp_path / "gone.py": "bye\n"}
    spans = BlockSpans()
    plan = plan_edits(parse_response(RESPONSE), lambda p: FileSnapshot(files.get(p)),
                      [tmp_path], on_change=spans.record)
    assert [b.status for b in plan.blocks] == ["validated"] * 4
    return plan, spans


def test_every_edit_and_operation_names_its_block(tmp_path: Path) -> None:
    plan, spans = _plan(tmp_path)
    data, _ = workspace_edit_json(plan, ANNOTATING, uri_for,
                                  annotations=edit_annotations(plan, spans, confirm=False))
    assert data is not None
    a_edit, create, fill, delete = data["documentChanges"]
    assert [e["annotationId"] for e in a_edit["edits"]] == ["block-0", "block-3"]
    assert create["annotationId"] == fill["edits"][0]["annotationId"] == "block-1"
    assert delete["annotationId"] == "block-2"
    assert data["changeAnnotations"] == {
        "block-0": {"label": "Block 1 · a.py · edit-v3",
                    "description": "response line 1, exact match"},
        "block-3": {"label": "Block 4 · a.py · edit-v3",
                    "description": "response line 14, exact match"},
        "block-1": {"label": "Block 2 · new.py · apply-patch",
                    "description": "response line 9"},
        "block-2": {"label": "Block 3 · gone.py · apply-patch",
                    "description": "response line 11"},
    }


def test_confirm_asks_for_confirmation_of_each_block(tmp_path: Path) -> None:
    plan, spans = _plan(tmp_path)
    data, _ = workspace_edit_json(plan, ANNOTATING, uri_for,
                                  annotations=edit_annotations(plan, spans, confirm=True))
    assert data is not None
    assert all(a["needsConfirmation"] is True for a in data["changeAnnotations"].values())


def test_annotated_json_is_what_the_protocol_converter_gives(tmp_path: Path) -> None:
    plan, spans = _plan(tmp_path)
    for confirm in (False, True):
        annotations = edit_annotations(plan, spans, confirm=confirm)
        data, _ = workspace_edit_json(plan, ANNOTATING, uri_for, annotations=annotations)
        edit, _ = read_back((data, []))
        assert default_converter().unstructure(edit) == data


def test_without_annotations_the_edit_is_unchanged(tmp_path: Path) -> None:
    plan, spans = _plan(tmp_path)
    plain, _ = workspace_edit_json(plan, VSCODE, uri_for)
    assert "changeAnnotations" not in (plain or {})
    assert block_spans_for(VSCODE) is None and block_spans_for(ANNOTATING) is not None
    # A `changes`-only client cannot carry annotations: none are written.
    annotations = edit_annotations(plan, spans, confirm=True)
    changes_only, _ = workspace_edit_json(plan, NEOVIM, uri_for, annotations=annotations)
    without, _ = workspace_edit_json(plan, NEOVIM, uri_for)
    assert changes_only == without
    assert edit_annotations(plan, None, confirm=True) is None


def test_a_shared_edit_names_both_blocks() -> None:
    blocks = [BlockResult(1, "a.py", "edit-v3", "validated", match="exact", response_line=4),
              BlockResult(2, "a.py", "search-replace", "validated", match=None,
                          response_line=9)]
    assert annotation_json(blocks, confirm=False) == {
        "label": "Blocks 2, 3 · a.py · edit-v3, search-replace",
        "description": "response line 5, exact match; response line 10"}
