"""str-replace blocks: agents' string-replacement tool calls (docs/formats.md "Agents' tool
calls").

Grammar (JSON, found as :mod:`.tool_calls` finds it: a bare object or a JSONL line, in a
fence, a tool call's ``input`` object or its ``arguments`` JSON string, nested anywhere in a
transcript, a log or an API response)::

    edit        := {PATH, OLD, NEW, "replace_all"?: bool, "expected_replacements"?: int}
                   (Claude Code Edit, MCP-style edits, DesktopCommander edit_block)
    multi-edit  := {PATH, "edits": [{OLD, NEW, "replace_all"?: bool}, ...]}
                   (Claude Code MultiEdit, the MCP filesystem server's edit_file)
    text-editor := {"command": "str_replace", PATH, OLD, NEW}
                 | {"command": "insert", PATH, "insert_line": int >= 0, NEW}
                 | {"command": "create", PATH, "file_text": str}
                 | {"command": "view" | "undo_edit", ...}          (no block)
    PATH := "file_path" | "path";  OLD := "old_string" | "old_str" | "oldText";
    NEW  := "new_string" | "new_str" | "newText" ("insert_text" too, for an insert)

One block per edit, op ``update`` (an insert is an ``update`` that inserts after its line);
``create`` for the text editor's create and for an edit whose old string is empty (as
Claude Code's Edit creates a file then). An object with an OLD key, an ``edits`` list beside
a PATH, or a text editor ``command`` is a recognisable tool call: a missing or non-string
key is a warning naming the key, and that edit is skipped. Any other object is ignored.
Strings are CRLF→LF normalised; the substring semantics are the locate policy's
(:mod:`lsp_server.locate.str_replace`).
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import Block, ParseWarning, ToolEdit, text_to_lines
from .marker_scan import MarkerLines
from .parsed_span import ParsedSpan, new_block
from .tool_calls import CallLines, tool_call_spans

FORMAT = "str-replace"
# Any tool call of the format holds one of these (looked for before any JSON is read).
TRIGGERS = ("old_str", "oldText", "insert_line", "file_text")

_PATH_KEYS = ("file_path", "path")
_OLD_KEYS = ("old_string", "old_str", "oldText")
_NEW_FOR_OLD = {"old_string": "new_string", "old_str": "new_str", "oldText": "newText"}
_PATH_FOR_OLD = {"old_string": "file_path", "old_str": "path", "oldText": "path"}
_TEXT_EDITOR = ("str_replace", "insert", "create", "view", "undo_edit")
_MAX_EDITS_PER_CALL = 10_000


class _CallError(Exception):
    """A recognisable call that cannot become a block; the message names the key."""


def str_replace_block(path: str, old_string: str, new_string: str, replace_all: bool = False,
                      *, expected: int | None = None, response_line: int = 0,
                      end_line: int | None = None) -> Block:
    """The str-replace block of one edit: ``old_string`` (an exact substring, unique unless
    ``replace_all``) becomes ``new_string`` in ``path``; an empty ``old_string`` creates the
    file. Its ``index`` is 0: a caller planning it alone passes it to ``plan_edits`` in a
    ``ParseResult`` as it is (``llm-edits mcp``'s ``edit_file`` does)."""
    old, new = _lf(old_string), _lf(new_string)
    end = response_line + 1 if end_line is None else end_line
    if not old:
        return _create_block(path, new, response_line, end)
    block = new_block(FORMAT, path, "update", response_line, end, "")
    block.old, block.new = text_to_lines(old), text_to_lines(new)
    block.tool = ToolEdit(old_text=old, new_text=new, replace_all=replace_all,
                          expected=expected)
    return block


def _create_block(path: str, text: str, line: int, end: int) -> Block:
    block = new_block(FORMAT, path, "create", line, end, "")
    block.new = text_to_lines(text)
    block.create_text = text if not text or text.endswith("\n") else text + "\n"
    block.tool = ToolEdit(new_text=text)
    return block


def _insert_block(path: str, after_line: int, text: str, line: int, end: int) -> Block:
    block = new_block(FORMAT, path, "update", line, end, "")
    block.new = text_to_lines(text)
    block.tool = ToolEdit(new_text=text, insert_line=after_line)
    return block


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


# ------------------------------------------------------------------ reading one call


def _string(call: dict, key: str, *, where: str = "") -> str:
    value = call.get(key)
    if not isinstance(value, str):
        state = "missing" if value is None else "not a string"
        raise _CallError(f'"{where}{key}" is {state}')
    return value


def _path(call: dict, default_key: str) -> str:
    key = next((k for k in _PATH_KEYS if k in call), default_key)
    path = _string(call, key).strip()
    if not path:
        raise _CallError(f'"{key}" is empty')
    if not path.isascii():
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            raise _CallError(f'"{key}" holds a lone surrogate escape: not valid Unicode') from None
    return path


def _old_key(call: dict) -> str | None:
    return next((k for k in _OLD_KEYS if k in call), None)


def _flag(call: dict, key: str, where: str = "") -> bool:
    value = call.get(key, False)
    if not isinstance(value, bool):
        raise _CallError(f'"{where}{key}" is not true or false')
    return value


def _expected(call: dict) -> int | None:
    value = call.get("expected_replacements")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise _CallError('"expected_replacements" is not a whole number of at least 1')
    return None if value == 1 else value


class _Reader:
    """The blocks and warnings of the calls in one JSON value, each at its response line."""

    def __init__(self, lines: CallLines) -> None:
        self.lines = lines
        self.blocks: list[Block] = []
        self.warnings: list[ParseWarning] = []

    def visit(self, call: dict) -> bool:
        """Read ``call`` if it is a recognisable tool call (then it is not entered)."""
        command = call.get("command")
        if isinstance(command, str) and command in _TEXT_EDITOR and (
                "path" in call or "file_path" in call):
            self._read(call, lambda line: self._text_editor(call, command, line))
        elif _old_key(call) is not None:
            self._read(call, lambda line: [self._single(call, line)])
        elif isinstance(call.get("edits"), list) and any(k in call for k in _PATH_KEYS):
            self._read(call, lambda line: self._multi_edit(call, line))
        else:
            return False
        return True

    def _read(self, call: dict, make: Callable[[int], list[Block]]) -> None:
        """The blocks ``make`` reads from ``call`` at its response line, or its warning."""
        needle = next((call[k] for k in (*_OLD_KEYS, "new_str", "file_text", *_PATH_KEYS)
                       if isinstance(call.get(k), str) and call[k]), "")
        line = self.lines.line_of(needle)
        try:
            self.blocks.extend(make(line))
        except _CallError as exc:
            path = next((call[k] for k in _PATH_KEYS if isinstance(call.get(k), str)), None)
            self.warnings.append(ParseWarning(
                line, f"str-replace tool call: {exc}; skipped", format=FORMAT, file=path))

    def _single(self, call: dict, line: int) -> Block:
        path = _path(call, _PATH_FOR_OLD[_old_key(call) or "old_string"])
        return self._edit(call, path, line)

    def _edit(self, call: dict, path: str, line: int, where: str = "") -> Block:
        old_key = _old_key(call) or "old_string"
        old = _string(call, old_key, where=where)
        new = _string(call, _NEW_FOR_OLD[old_key], where=where)
        replace_all = _flag(call, "replace_all", where)
        expected = None if where else _expected(call)
        return str_replace_block(path, old, new, replace_all, expected=expected,
                                 response_line=line)

    def _multi_edit(self, call: dict, line: int) -> list[Block]:
        edits = call["edits"]
        old_keys = [_old_key(e) for e in edits if isinstance(e, dict)]
        path = _path(call, _PATH_FOR_OLD[next((k for k in old_keys if k), "old_string")])
        if not edits:
            raise _CallError('"edits" is empty')
        if len(edits) > _MAX_EDITS_PER_CALL:
            raise _CallError(f'"edits" has {len(edits)} edits, more than {_MAX_EDITS_PER_CALL}')
        blocks = []
        for number, edit in enumerate(edits):
            where = f"edits[{number}]."
            if not isinstance(edit, dict):
                raise _CallError(f'"edits[{number}]" is not an object')
            if _old_key(edit) is None:
                raise _CallError(f'"{where}old_string" is missing')
            blocks.append(self._edit(edit, path, line, where))
        return blocks

    def _text_editor(self, call: dict, command: str, line: int) -> list[Block]:
        if command in ("view", "undo_edit"):
            if command == "undo_edit":
                raise _CallError("undo_edit cannot be replayed (it undoes the tool's own "
                                 "last edit)")
            return []
        path = _path(call, "path")
        if command == "create":
            return [_create_block(path, _lf(_string(call, "file_text")), line, line + 1)]
        if command == "insert":
            after = call.get("insert_line")
            if not isinstance(after, int) or isinstance(after, bool) or after < 0:
                raise _CallError('"insert_line" is not a line number (0 or more)')
            key = "insert_text" if "insert_text" in call and "new_str" not in call else "new_str"
            return [_insert_block(path, after, _lf(_string(call, key)), line, line + 1)]
        old = _string(call, "old_str")
        return [str_replace_block(path, old, _string(call, "new_str"), response_line=line)]


# ------------------------------------------------------------------ the response


def find_blocks(text: str, lines: list[str], markers: MarkerLines) -> list[ParsedSpan]:
    """Every str-replace tool call of the response (and every malformed one, as a warning),
    one span per JSON value holding some."""
    return tool_call_spans(text, TRIGGERS, _Reader, FORMAT, "a tool call")


def render(block: Block) -> str:
    """The block as a Claude Code ``Edit`` call (or the text editor's insert / create), one
    JSON line. Raises ValueError for a block of another shape."""
    import json

    tool = block.tool
    if block.op == "create":
        text = block.create_text if block.create_text is not None else "\n".join(block.new)
        call: dict = {"command": "create", "path": block.file, "file_text": text}
    elif block.op == "update" and tool is not None and tool.insert_line is not None:
        call = {"command": "insert", "path": block.file, "insert_line": tool.insert_line,
                "new_str": tool.new_text}
    elif block.op == "update" and tool is not None:
        call = {"file_path": block.file, "old_string": tool.old_text,
                "new_string": tool.new_text}
        if tool.replace_all:
            call["replace_all"] = True
    else:
        raise ValueError(f"str-replace cannot express a {block.op!r} block of this shape")
    return json.dumps(call, ensure_ascii=False) + "\n"
