"""parsing.apply_patch_call: OpenAI Responses API apply_patch_call items, their V4A diff read
by apply-patch's own reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.model import FileSnapshot
from lsp_server.parsing import block_text_fields, parse_response
from lsp_server.planning import plan_response

ONLY = {"apply-patch-call"}


def _item(op: str, path: str, diff: str | None = None, call_id: str = "call_1") -> dict:
    operation: dict = {"type": op, "path": path}
    if diff is not None:
        operation["diff"] = diff
    return {"type": "apply_patch_call", "id": "apc_1", "call_id": call_id,
            "status": "completed", "operation": operation}


def test_items_of_a_responses_api_output_list() -> None:
    response = {"id": "resp_1", "object": "response", "output": [
        {"type": "message", "content": [{"type": "output_text", "text": "Patching."}]},
        _item("update_file", "src/app.py", "@@ def greet():\n-    return 1\n+    return 2\n",
              "call_a"),
        _item("create_file", "src/new.py", "+print(1)\n+\n+print(2)\n", "call_b"),
        _item("delete_file", "src/old.py", call_id="call_c"),
        {"type": "apply_patch_call_output", "call_id": "call_z", "status": "completed"},
    ]}
    text = json.dumps(response, indent=2) + "\n"
    parsed = parse_response(text)  # found with the default formats
    assert parsed.warnings == []
    update, create, delete = parsed.blocks
    assert [(b.format, b.op, b.file, b.tool.call_id) for b in parsed.blocks] == [
        ("apply-patch-call", "update", "src/app.py", "call_a"),
        ("apply-patch-call", "create", "src/new.py", "call_b"),
        ("apply-patch-call", "delete", "src/old.py", "call_c")]
    [hunk] = update.hunks
    assert (hunk.anchor, hunk.old, hunk.new) == ("def greet():", ["    return 1"],
                                                 ["    return 2"])
    assert create.new == ["print(1)", "", "print(2)"]
    lines = text.split("\n")
    assert [b.response_line for b in parsed.blocks] == sorted({b.response_line
                                                               for b in parsed.blocks})
    assert all('"call_id"' in lines[b.response_line] for b in parsed.blocks)
    assert block_text_fields(delete)["callId"] == "call_c"


def test_end_of_file_and_several_chunks_read_as_apply_patch_reads_them() -> None:
    diff = "@@ class A:\n     x = 1\n-    y = 2\n+    y = 3\n@@\n+tail\n*** End of File\n"
    [block] = parse_response(json.dumps(_item("update_file", "a.py", diff)), ONLY).blocks
    first, last = block.hunks
    assert first.anchor == "class A:" and last.end_of_file and last.new == ["tail"]


@pytest.mark.parametrize(("item", "named"), [
    ({"type": "apply_patch_call", "call_id": "c"}, '"operation" is missing'),
    (_item("rename_file", "a.py", ""), '"operation.type" \'rename_file\''),
    (_item("update_file", "a.py"), '"operation.diff" is missing'),
    ({**_item("update_file", "a.py", "@@\n-a\n+b\n"), "operation": {"type": "update_file",
                                                                    "diff": "@@\n-a\n+b\n"}},
     '"operation.path" is missing'),
    (_item("update_file", "a.py\n*** Delete File: b.py", "@@\n-a\n+b\n"),
     '"operation.path" is not a file path'),
    (_item("update_file", "a.py", "@@\n-a\n+b\n*** End Patch\n*** Delete File: b.py\n"),
     'line 4 of "operation.diff"'),
    (_item("create_file", "a.py", "+one\ntwo\n"), 'line 2 of "operation.diff" does not start'),
    (_item("update_file", "a.py", "@@ a\n@@ b\n-x\n+y\n"), "stacked"),
    (_item("update_file", "a.py", "just text\n"), "not a patch line"),
])
def test_a_malformed_item_is_a_warning_naming_the_key(item: dict, named: str) -> None:
    good = _item("delete_file", "gone.py", call_id="call_ok")
    parsed = parse_response(json.dumps(item) + "\n" + json.dumps(good) + "\n", ONLY)
    assert [(b.op, b.file) for b in parsed.blocks] == [("delete", "gone.py")]
    [warning] = parsed.warnings
    assert named in warning.message and warning.response_line == 0
    assert warning.message.startswith("apply_patch_call")


def test_an_update_without_chunks_fails_when_planned_as_apply_patch_does(
        tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a\n")
    text = json.dumps(_item("update_file", "a.py", "")) + "\n"
    [result] = plan_response(text, _reader, [tmp_path]).blocks
    assert result.status == "failed" and "Empty update" in (result.reason or "")


def _reader(path: Path) -> FileSnapshot:
    return FileSnapshot(path.read_text() if path.exists() else None)


def test_planned_with_apply_patch_rules(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1   \n\ndef g():\n    return 2\n"
                                   "\ndef h():\n    return 2\n")
    # Codex's ladder: trailing whitespace is forgiven, and reported.
    fuzzy = _item("update_file", "a.py", "@@ def f():\n-    return 1\n+    return 10\n")
    # Under a bare @@ the hunk must be unique: "return 2" is at two places.
    bare = _item("update_file", "a.py", "@@\n-    return 2\n+    return 3\n", "call_2")
    result = plan_response(json.dumps(fuzzy) + "\n" + json.dumps(bare) + "\n", _reader,
                           [tmp_path])
    first, second = result.blocks
    assert (first.status, first.match, first.call_id) == ("validated", "trailing-whitespace",
                                                          "call_1")
    assert second.status == "failed" and "multiple matches" in (second.reason or "")
    assert second.call_id == "call_2"


def test_a_truncated_item_is_pending() -> None:
    text = json.dumps(_item("delete_file", "x.py"))[:-10]
    parsed = parse_response(text, ONLY)
    [warning] = parsed.warnings
    assert parsed.blocks == [] and warning.pending and warning.format == "apply-patch-call"
