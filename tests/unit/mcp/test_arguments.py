"""lsp_server/mcp/arguments.py: a tool call's arguments checked into a typed call."""

from __future__ import annotations

import pytest

from lsp_server.mcp.arguments import (
    ArgumentError,
    EditFileCall,
    EditsCall,
    InstructionsCall,
    parse_call,
)


def test_apply_edits_takes_its_options() -> None:
    call = parse_call("apply_edits", {
        "response": "r", "dry_run": True, "formats": ["unified-diff"], "matching": "whitespace",
        "atomic": True, "expected_sha256": {"a.py": "AB" * 32}})
    assert call == EditsCall("r", True, frozenset({"unified-diff"}), "whitespace", True, None,
                             {"a.py": "ab" * 32})


def test_check_edits_is_always_a_dry_run() -> None:
    check = parse_call("check_edits", {"response": "r", "expected_sha256": {"a": "0" * 64}})
    assert check.dry_run is True and check.expected_sha256 == {"a": "0" * 64}
    assert parse_call("apply_edits", {"response": "r"}).dry_run is False


def test_edit_file_and_format_instructions() -> None:
    assert parse_call("edit_file", {"path": "a", "old_string": "x", "new_string": "y",
                                    "replace_all": True}) == EditFileCall("a", "x", "y", True)
    assert parse_call("format_instructions", None) == InstructionsCall(None)


@pytest.mark.parametrize(("name", "arguments", "message"), [
    ("apply_edits", [], "must be a JSON object"),
    ("apply_edits", {"response": "r", "atomic": "yes"}, "'atomic' must be true or false"),
    ("apply_edits", {"response": "r", "formats": []}, "non-empty array"),
    ("apply_edits", {"response": "r", "matching": "fuzzy"}, "'matching' must be one of"),
    ("apply_edits", {"response": "r", "expected_sha256": ["a"]}, "must be an object"),
    ("edit_file", {"path": " ", "old_string": "", "new_string": ""}, "'path' is empty"),
    ("edit_file", {"path": "a", "old_string": "", "new_string": "",
                   "expected_sha256": 5}, "64 hexadecimal digits"),
    ("write_file", {}, "unknown tool 'write_file'"),
    # an agent's own tool-call format has nothing to teach (its tool defines it)
    ("format_instructions", {"format": "str-replace"}, "'format' must be one of"),
])
def test_what_the_schema_refuses_is_an_argument_error(name: str, arguments: object,
                                                      message: str) -> None:
    with pytest.raises(ArgumentError, match=message.replace("(", r"\(")):
        parse_call(name, arguments)


def test_the_size_limit_counts_utf8_bytes() -> None:
    parse_call("apply_edits", {"response": "é" * 50}, max_response_bytes=100)
    with pytest.raises(ArgumentError, match="101 bytes, over the 100-byte limit"):
        parse_call("apply_edits", {"response": "é" * 50 + "x"}, max_response_bytes=100)
    with pytest.raises(ArgumentError, match="old_string and new_string"):
        parse_call("edit_file", {"path": "a", "old_string": "x" * 60, "new_string": "y" * 60},
                   max_response_bytes=100)
