"""parsing.str_replace: agents' string-replacement tool calls, wherever the JSON holds them."""

from __future__ import annotations

import json

import pytest

from lsp_server.model import Block
from lsp_server.parsing import block_text_fields, parse_response
from lsp_server.parsing.str_replace import str_replace_block

ONLY = {"str-replace"}


def _edits(blocks: list[Block]) -> list[tuple]:
    return [(b.file, b.op, b.tool.old_text if b.tool else None, b.tool.new_text if b.tool else None)
            for b in blocks]


def _line(obj: object) -> str:
    return json.dumps(obj) + "\n"


def test_claude_code_edit_in_an_anthropic_message_pretty_printed() -> None:
    message = {"role": "assistant", "content": [
        {"type": "text", "text": "I'll fix the timeout."},
        {"type": "tool_use", "id": "toolu_01", "name": "Edit", "input": {
            "file_path": "src/app.py", "old_string": "timeout = 30",
            "new_string": "timeout = 60"}},
        {"type": "tool_use", "id": "toolu_02", "name": "Edit", "input": {
            "file_path": "src/app.py", "old_string": "retries = 1\n",
            "new_string": "retries = 3\n", "replace_all": True}},
    ]}
    text = "Here is the transcript:\n\n" + json.dumps(message, indent=2) + "\n\nDone.\n"
    parsed = parse_response(text, ONLY)
    assert parsed.warnings == []
    assert _edits(parsed.blocks) == [
        ("src/app.py", "update", "timeout = 30", "timeout = 60"),
        ("src/app.py", "update", "retries = 1\n", "retries = 3\n")]
    first, second = parsed.blocks
    assert not first.tool.replace_all and second.tool.replace_all
    # Each block stands on the line of its own call, not on the message's first line.
    lines = text.split("\n")
    assert '"old_string": "timeout = 30"' in lines[first.response_line]
    assert '"old_string": "retries = 1\\n"' in lines[second.response_line]
    assert first.end_line == second.response_line


def test_multi_edit_and_mcp_edit_file_are_one_block_per_edit() -> None:
    multi = {"name": "MultiEdit", "input": {"file_path": "a.py", "edits": [
        {"old_string": "x = 1", "new_string": "x = 2"},
        {"old_string": "y = 1", "new_string": "y = 2", "replace_all": True}]}}
    mcp = {"path": "b.md", "edits": [{"oldText": "# Old", "newText": "# New"}], "dryRun": False}
    parsed = parse_response(_line(multi) + _line(mcp), ONLY)
    assert _edits(parsed.blocks) == [("a.py", "update", "x = 1", "x = 2"),
                                     ("a.py", "update", "y = 1", "y = 2"),
                                     ("b.md", "update", "# Old", "# New")]
    assert [b.response_line for b in parsed.blocks] == [0, 0, 1]
    assert [b.index for b in parsed.blocks] == [0, 1, 2]


def test_function_call_arguments_strings_are_read_openai_and_chat_completions() -> None:
    args = json.dumps({"file_path": "c.py", "old_string": "a", "new_string": "b"})
    responses_api = {"output": [{"type": "function_call", "name": "edit_block",
                                 "call_id": "call_9", "arguments": args}]}
    chat = {"choices": [{"message": {"tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "edit_file", "arguments": json.dumps(
                {"path": "d.py", "edits": [{"oldText": "u", "newText": "v"}]})}}]}}]}
    parsed = parse_response(_line(responses_api) + _line(chat), ONLY)
    assert _edits(parsed.blocks) == [("c.py", "update", "a", "b"), ("d.py", "update", "u", "v")]


def test_desktop_commander_expected_replacements() -> None:
    call = {"file_path": "e.py", "old_string": "k", "new_string": "K",
            "expected_replacements": 3}
    [block] = parse_response(_line(call), ONLY).blocks
    assert block.tool.expected == 3
    [one] = parse_response(_line({**call, "expected_replacements": 1}), ONLY).blocks
    assert one.tool.expected is None  # one occurrence: the plain unique rule


def test_text_editor_commands() -> None:
    calls = [
        {"command": "view", "path": "f.py"},
        {"command": "str_replace", "path": "f.py", "old_str": "a", "new_str": "b"},
        {"command": "insert", "path": "f.py", "insert_line": 0, "new_str": "# top\n"},
        {"command": "insert", "path": "f.py", "insert_line": 2, "insert_text": "mid"},
        {"command": "create", "path": "g.py", "file_text": "print(1)"},
    ]
    parsed = parse_response("".join(_line(c) for c in calls), ONLY)
    assert parsed.warnings == []
    update, top, middle, create = parsed.blocks
    assert (update.op, update.tool.old_text, update.tool.new_text) == ("update", "a", "b")
    assert (top.op, top.tool.insert_line, top.new) == ("update", 0, ["# top"])
    assert (middle.tool.insert_line, middle.new) == (2, ["mid"])
    # A created file ends with a newline (docs/formats.md, "Nothing outside the edit").
    assert (create.op, create.file, create.create_text) == ("create", "g.py", "print(1)\n")


def test_an_empty_old_string_creates_the_file_as_claude_codes_edit_does() -> None:
    [block] = parse_response(_line({"file_path": "n.py", "old_string": "",
                                    "new_string": "x = 1\n"}), ONLY).blocks
    assert (block.op, block.create_text) == ("create", "x = 1\n")


@pytest.mark.parametrize(("call", "named"), [
    ({"file_path": "a.py", "old_string": "x"}, '"new_string" is missing'),
    ({"file_path": "a.py", "old_string": 3, "new_string": "y"}, '"old_string" is not a string'),
    ({"old_string": "x", "new_string": "y"}, '"file_path" is missing'),
    ({"path": "a.py", "old_str": "x", "new_str": None}, '"new_str" is missing'),
    ({"path": "  ", "oldText": "x", "newText": "y"}, '"path" is empty'),
    ({"file_path": "a.py", "old_string": "x", "new_string": "y", "replace_all": "yes"},
     '"replace_all" is not true or false'),
    ({"file_path": "a.py", "edits": [{"old_string": "x", "new_string": "y"}, {"new": 1}]},
     '"edits[1].old_string" is missing'),
    ({"file_path": "a.py", "edits": []}, '"edits" is empty'),
    ({"command": "insert", "path": "a.py", "insert_line": -1, "new_str": "x"},
     '"insert_line" is not a line number'),
    ({"command": "insert", "path": "a.py", "insert_line": True, "new_str": "x"},
     '"insert_line" is not a line number'),
    ({"command": "create", "path": "a.py"}, '"file_text" is missing'),
    ({"command": "undo_edit", "path": "a.py"}, "undo_edit cannot be replayed"),
    ({"file_path": "a\ud800.py", "old_string": "x", "new_string": "y"}, "lone surrogate"),
])
def test_a_recognisable_call_with_a_bad_key_is_a_warning_naming_it(call: dict,
                                                                   named: str) -> None:
    text = "before\n" + json.dumps(call) + "\n" + _line({"file_path": "ok.py",
                                                         "old_string": "1", "new_string": "2"})
    parsed = parse_response(text, ONLY)
    assert _edits(parsed.blocks) == [("ok.py", "update", "1", "2")]  # the next call is kept
    [warning] = parsed.warnings
    assert named in warning.message and warning.response_line == 1


def test_other_json_and_code_are_ignored_silently() -> None:
    text = ("```json\n{\"name\": \"old_string\", \"value\": [1, 2]}\n```\n"
            "function f() {\n  return {a: 1};\n}\n"
            "{\"command\": \"run\", \"path\": \"x\"}\n"
            "{\"file_path\": \"x.py\", \"content\": \"whole file (a Write call)\"}\n"
            "[1, 2, 3]\n")
    parsed = parse_response(text + "old_str appears in prose\n", ONLY)
    assert parsed.blocks == [] and parsed.warnings == []


def test_in_a_json_fence_and_on_a_log_line() -> None:
    call = {"file_path": "h.py", "old_string": "p", "new_string": "q"}
    text = ("Run this:\n```json\n" + json.dumps(call, indent=2) + "\n```\n"
            "2026-01-01T10:00:00Z INFO tool_use: " + json.dumps(call) + " (ok)\n"
            "data: " + json.dumps({"input": call}) + "\n")
    parsed = parse_response(text)
    assert [(b.format, b.file) for b in parsed.blocks] == [("str-replace", "h.py")] * 3
    assert [b.response_line for b in parsed.blocks] == [4, 8, 9]


def test_strings_are_crlf_normalised_and_parse_output_is_exact() -> None:
    call = {"file_path": "w.txt", "old_string": "a\r\nb", "new_string": "A\r\nB\r\n"}
    [block] = parse_response(_line(call), ONLY).blocks
    assert (block.tool.old_text, block.tool.new_text) == ("a\nb", "A\nB\n")
    assert (block.old, block.new) == (["a", "b"], ["A", "B"])
    fields = block_text_fields(block)
    assert (fields["old"], fields["new"], fields["op"]) == ("a\nb", "A\nB\n", "update")
    insert = parse_response(_line({"command": "insert", "path": "w.txt", "insert_line": 4,
                                   "new_str": "x"}), ONLY).blocks[0]
    assert block_text_fields(insert)["insertLine"] == 4


def test_a_truncated_call_is_pending_and_a_broken_one_says_why() -> None:
    cut = parse_response('{"file_path": "a.py", "old_string": "x", "new_str', ONLY)
    [pending] = cut.warnings
    assert cut.blocks == [] and pending.pending and pending.format == "str-replace"
    broken = parse_response('{"file_path": "a.py", "old_string": "x" "new_string": "y"}\n'
                            "more text\n", ONLY)
    [warning] = broken.warnings
    assert "not valid JSON" in warning.message and not warning.pending


def test_hostile_json_never_raises() -> None:
    deep = '{"old_str": ' + "[" * 100_000 + "\n"
    huge_number = '{"file_path": "a", "old_string": "x", "new_string": "y", "n": ' + \
        "9" * 5000 + "}\n"
    nested_args = {"arguments": json.dumps({"arguments": json.dumps({"arguments": json.dumps(
        {"arguments": json.dumps({"file_path": "z", "old_string": "1", "new_string": "2"})})})})}
    for text in (deep, huge_number, _line(nested_args), "{" * 5000 + '"old_str"',
                 '\n'.join(['{"old_str": "x",'] * 2000)):
        parse_response(text, ONLY)  # no exception
    assert len(parse_response(huge_number, ONLY).blocks) == 1
    # Argument strings are read at most three deep.
    assert parse_response(_line(nested_args), ONLY).blocks == []


def test_str_replace_block_is_what_a_tool_call_gives() -> None:
    [parsed] = parse_response(_line({"file_path": "m.py", "old_string": "a\r\n",
                                     "new_string": "b", "replace_all": True}), ONLY).blocks
    built = str_replace_block("m.py", "a\r\n", "b", True)
    assert (built.format, built.file, built.op, built.tool, built.old, built.new) == (
        parsed.format, parsed.file, parsed.op, parsed.tool, parsed.old, parsed.new)
    assert str_replace_block("n.py", "", "x").op == "create"


def test_streamed_in_pieces_a_block_counted_complete_is_the_finished_ones() -> None:
    from lsp_server.parsing.completion import complete_count
    from lsp_server.parsing.incremental import IncrementalParse

    text = ("The agent's log:\n"
            + _line({"name": "Edit", "input": {"file_path": "a.py", "old_string": "x",
                                               "new_string": "y"}})
            + "and the API's answer:\n"
            + json.dumps({"content": [{"type": "tool_use", "input": {
                "command": "str_replace", "path": "b.py", "old_str": "1", "new_str": "2"}}, {
                "type": "tool_use", "input": {"command": "insert", "path": "b.py",
                                              "insert_line": 0, "new_str": "# top"}}]},
                         indent=2)
            + "\nthen by hand:\n\nc.py\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n"
            + _line({"file_path": "d.py", "old_string": "p", "new_string": "q"}))
    final = parse_response(text).blocks
    assert [b.format for b in final] == ["str-replace"] * 3 + ["search-replace", "str-replace"]
    streamed = IncrementalParse(None)
    counted = 0
    for end in range(0, len(text) + 1, 3):
        prefix = text[:end]
        streamed.update(prefix)
        count = complete_count(prefix, streamed)
        assert streamed.result.blocks[:count] == final[:count], prefix
        assert count >= counted, prefix
        counted = count
    streamed.update(text)
    assert streamed.result.blocks == final
