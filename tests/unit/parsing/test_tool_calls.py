"""parsing.tool_calls: agents' tool calls are found wherever a transcript, a log or an API
response holds them, each once, in order, at a line of its own value."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.parsing import parse_response
from lsp_server.parsing.tool_calls import BrokenJson, JsonValue, json_values, walk_objects

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
_PATH = st.from_regex(r"[a-z]{1,6}/[a-z]{1,6}\.py", fullmatch=True)


def _call(path: str, old: str, new: str) -> dict:
    return {"file_path": path, "old_string": old, "new_string": new}


def _wrapped(call: dict, how: int) -> dict:
    """A call as agents and APIs write it: bare, a tool_use's input, an OpenAI function
    call's arguments string, a Chat Completions tool call."""
    if how == 0:
        return call
    if how == 1:
        return {"type": "tool_use", "id": "toolu_x", "name": "Edit", "input": call}
    if how == 2:
        return {"type": "function_call", "name": "edit_block", "arguments": json.dumps(call)}
    return {"id": "call_x", "type": "function",
            "function": {"name": "edit_block", "arguments": json.dumps(call)}}


def _container(items: list[dict], how: int, indent: int | None) -> str:
    """The items as a response holds them: JSONL lines, one API response, a json fence, log
    lines with a prefix."""
    if how == 0:
        return "".join(json.dumps(item, ensure_ascii=indent is None) + "\n" for item in items)
    if how == 1:
        return json.dumps({"output": items}, indent=indent, ensure_ascii=False) + "\n"
    if how == 2:
        return "```json\n" + json.dumps(items, indent=indent) + "\n```\n"
    return "".join(f"12:00:0{i % 10} INFO tool: {json.dumps(item)}\n"
                   for i, item in enumerate(items))


_CASE = st.tuples(
    st.lists(st.tuples(_PATH, _TEXT, _TEXT, st.integers(0, 3)), min_size=1, max_size=6),
    st.integers(0, 3), st.sampled_from([None, 2]), st.sampled_from(["", "Prose first.\n\n"]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_CASE)
def test_every_call_is_found_once_in_order_at_a_line_of_its_value(case: tuple) -> None:
    calls, container, indent, before = case
    items = [_wrapped(_call(path, old, new), how) for path, old, new, how in calls]
    text = before + _container(items, container, indent) + "Done.\n"
    parsed = parse_response(text, {"str-replace"})
    assert parsed.warnings == []

    def lf(s: str) -> str:
        return s.replace("\r\n", "\n").replace("\r", "\n")

    assert [(b.file, b.tool.old_text, b.tool.new_text) for b in parsed.blocks] == [
        (path, lf(old), lf(new)) for path, old, new, _ in calls]
    lines = text.split("\n")
    first = len(before.split("\n")) - 1
    for block in parsed.blocks:
        assert first <= block.response_line < len(lines) - 2
        assert block.response_line < block.end_line
    starts = [b.response_line for b in parsed.blocks]
    assert starts == sorted(starts)


def test_json_values_reads_each_window_once() -> None:
    # A pretty-printed value decodes as one window; its inner lines are not read again.
    text = json.dumps({"a": [{"old_str": "x"}, {"old_str": "y"}]}, indent=2) + "\n"
    [found] = json_values(text, ("old_str",))
    assert isinstance(found, JsonValue) and (found.start, found.end) == (0, len(text) - 1)
    # Broken: one warning for the window, not one per inner line.
    broken = text.replace('"y"', "y")
    assert [type(f) for f in json_values(broken, ("old_str",))] == [BrokenJson]
    # A one-line object inside a broken window is still read (a log cut short around it).
    cut = '{\n  "log": [\n    {"old_str": "x"},\n    {"old_str": \n'
    assert [type(f) for f in json_values(cut, ("old_str",))] == [BrokenJson, JsonValue]


def test_walk_objects_visits_in_document_order_and_stops_where_told() -> None:
    value = {"a": {"stop": 1, "inner": {"x": 1}}, "b": [{"c": 2}],
             "arguments": json.dumps({"d": 3})}
    seen: list[list[str]] = []

    def visit(obj: dict) -> bool:
        seen.append(sorted(obj))
        return "stop" in obj

    walk_objects(value, visit)
    assert seen == [["a", "arguments", "b"], ["inner", "stop"], ["c"], ["d"]]
