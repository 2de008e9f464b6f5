"""The result JSON (lsp_server.results): one builder for the server's command results and the
CLI's ``--json``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lsp_server.model import BlockResult, FileEdit, ParseWarning, PlanResult, ResourceOp, TextEdit
from lsp_server.planning import plan_response
from lsp_server.results import block_dict, changed_files, result_dict, warning_dict
from lsp_server.workspace import read_disk_file

ROOT = Path("/ws")


def uri_for(path: Path) -> str:
    return "file:///client" + path.as_posix()


def test_block_entry_is_camel_case_with_offset_only_when_known() -> None:
    block = BlockResult(3, "src/a.py", "unified-diff", "failed", reason="No match found",
                        line=7, match=None, response_line=40, path=ROOT / "src/a.py",
                        hint="did you mean line 9",
                        fixes={"matching": "whitespace", "closest_line": 8},
                        anchor_preview="-7,2 +7,3", old_preview="x = 1", new_preview="x = 2")
    assert block_dict(block, uri_for) == {
        "index": 3, "file": "src/a.py", "uri": "file:///client/ws/src/a.py",
        "format": "unified-diff", "status": "failed", "reason": "No match found", "line": 7,
        "match": None, "responseLine": 40, "hint": "did you mean line 9",
        "fixes": {"matching": "whitespace", "closestLine": 8},
        "anchorPreview": "-7,2 +7,3", "oldPreview": "x = 1", "newPreview": "x = 2",
    }
    block.offset = -2
    assert block_dict(block, uri_for)["offset"] == -2


def test_every_block_result_carries_its_previews(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    response = ("a.py\n««« EDIT\ndef f():\n───────\n    return 1\n═══════\n"
                f"    return {'2' * 80}\n───────\n»»»\n")
    plan = plan_response(response, read_disk_file, [tmp_path])
    entry = result_dict(plan, None, lambda p: p.as_uri())["blocks"][0]
    assert (entry["anchorPreview"], entry["oldPreview"], entry["newPreview"]) == (
        "def f():", "    return 1", "    return " + "2" * 39)


def test_a_refused_path_has_no_uri() -> None:
    refused = BlockResult(0, "../x", "edit-v3", "failed", reason="outside", path=None)
    entry = block_dict(refused, uri_for)
    assert entry["uri"] is None and entry["fixes"] == {}


def test_warning_entry() -> None:
    assert warning_dict(ParseWarning(5, "unclosed block")) == {
        "responseLine": 5, "message": "unclosed block"}


def _plan(changes: list[FileEdit | ResourceOp]) -> PlanResult:
    return PlanResult(blocks=[], changes=changes)


def _edit(name: str, old: str, new: str) -> FileEdit:
    return FileEdit(ROOT / name, None, [TextEdit(0, 0, 0, 0, new)], old, new)


def test_changed_files_folds_create_and_fill_edit_and_rename_and_deletes() -> None:
    plan = _plan([
        ResourceOp("create", ROOT / "new.py"),
        _edit("new.py", "", "hello\n"),
        _edit("old.py", "x\n", "X\n"),
        ResourceOp("rename", ROOT / "old.py", ROOT / "moved.py"),
        ResourceOp("delete", ROOT / "gone.py"),
    ])
    files = changed_files(plan, uri_for, lambda p: "bye\n" if p.name == "gone.py" else None)
    assert files == [
        {"uri": uri_for(ROOT / "new.py"), "kind": "create", "oldText": "",
         "newText": "hello\n"},
        {"uri": uri_for(ROOT / "old.py"), "kind": "rename", "oldText": "x\n",
         "newText": "X\n", "newUri": uri_for(ROOT / "moved.py")},
        {"uri": uri_for(ROOT / "gone.py"), "kind": "delete", "oldText": "bye\n",
         "newText": ""},
    ]


def test_changed_files_reads_an_unedited_renamed_file_and_keeps_the_last_edit() -> None:
    plan = _plan([
        ResourceOp("rename", ROOT / "a.py", ROOT / "b.py"),
        _edit("b.py", "same\n", "one\n"),
        _edit("b.py", "one\n", "two\n"),
        _edit("c.py", "c\n", "C\n"),
        ResourceOp("delete", ROOT / "c.py"),
    ])
    files = changed_files(plan, uri_for, lambda p: "same\n" if p.name == "a.py" else None)
    assert files == [
        {"uri": uri_for(ROOT / "a.py"), "kind": "rename", "oldText": "same\n",
         "newText": "two\n", "newUri": uri_for(ROOT / "b.py")},
        {"uri": uri_for(ROOT / "c.py"), "kind": "delete", "oldText": "c\n", "newText": ""},
    ]


def test_result_sorts_warnings_by_response_line_and_carries_run_and_files() -> None:
    plan = PlanResult(
        blocks=[BlockResult(0, "a.py", "edit-v3", "validated", line=0, path=ROOT / "a.py")],
        warnings=[ParseWarning(30, "unclosed edit-v3 block")],
        shell_suggestions=["git rm old.py"],
    )
    edit = {"changes": {}}
    result = result_dict(plan, edit, uri_for, run_id="r", extra_warnings=[ParseWarning(0, "x")],
                         files=[])
    assert result["edit"] is edit
    assert [w["responseLine"] for w in result["warnings"]] == [0, 30]
    assert result["blocks"] == [block_dict(plan.blocks[0], uri_for)]
    assert result["shellSuggestions"] == ["git rm old.py"]
    assert result["shellCommands"] == [{"command": "git rm old.py", "display": "git rm old.py",
                                        "parts": [{"command": "git rm old.py",
                                                   "display": "git rm old.py"}]}]
    assert result["runId"] == "r" and result["files"] == []
    bare = result_dict(plan, None, uri_for)
    assert bare["edit"] is None and "runId" not in bare and "files" not in bare


def test_an_edit_object_needs_unstructure() -> None:
    plan = PlanResult()
    edit = object()
    with pytest.raises(TypeError, match="unstructure"):
        result_dict(plan, edit, uri_for)
    assert result_dict(plan, edit, uri_for, lambda _: {"as": "json"})["edit"] == {"as": "json"}


def test_importing_the_builders_does_not_load_lsprotocol() -> None:
    # The CLI builds its --json with these; lsprotocol would cost it its start-up time.
    code = "import sys, lsp_server.results; print('lsprotocol' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2])
    assert run.stdout.strip() == "False"
