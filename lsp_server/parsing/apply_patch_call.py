"""apply-patch-call blocks: OpenAI Responses API ``apply_patch_call`` items (docs/formats.md
"Agents' tool calls").

Grammar (JSON, found as :mod:`.tool_calls` finds it: a bare item or a JSONL line, in a
fence, inside a response's ``output`` list, a transcript or a log)::

    item      := {"type": "apply_patch_call", "call_id"?: str, "operation": operation, ...}
    operation := {"type": "create_file", "path": str, "diff": ADD-LINES}
               | {"type": "update_file", "path": str, "diff": V4A-CHUNKS}
               | {"type": "delete_file", "path": str}

``diff`` is the V4A text of ONE file without the ``*** Begin Patch`` envelope: for a create,
``+`` lines (the file's content); for an update, chunks as in an ``*** Update File`` section
of apply-patch (``@@`` / ``@@ context line`` headers, `` ``/``-``/``+`` lines, ``*** End of
File``). It is read by apply-patch's own reader (:mod:`.apply_patch`, the diff put inside an
envelope) and located with apply-patch's rules, so both formats agree line for line.

One item is one block (op ``create``, ``update`` or ``delete``), carrying its ``call_id``
(``Block.tool.call_id``) so that the result can answer the call
(``apply_patch_call_output``). An item with a missing or malformed key is a warning naming
the key; a diff line that would be a patch marker (``*** ...`` other than ``*** End of
File``), or a create line without ``+``, is a warning too (the diff cannot leave its file).
"""

from __future__ import annotations

from ..model import Block, ParseWarning, ToolEdit
from . import apply_patch
from .marker_scan import MarkerLines, scan_markers
from .parsed_span import ParsedSpan, new_block
from .tool_calls import CallLines, tool_call_spans

FORMAT = "apply-patch-call"
ITEM_TYPE = "apply_patch_call"
TRIGGERS = (ITEM_TYPE,)
_OPERATIONS = {"create_file": "create", "update_file": "update", "delete_file": "delete"}


class _ItemError(Exception):
    """An item that cannot become a block; the message names the key."""


def _text(obj: dict, key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise _ItemError(f'"{where}{key}" is {"missing" if value is None else "not a string"}')
    return value


def _path(operation: dict) -> str:
    path = _text(operation, "path", "operation.").strip()
    if not path or any(c in path for c in "\n\r\0"):
        raise _ItemError('"operation.path" is not a file path')
    if not path.isascii():
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            raise _ItemError('"operation.path" holds a lone surrogate escape') from None
    return path


def _check_diff(op: str, diff: str) -> None:
    """Refuse a diff line the envelope would read as something else than this file's."""
    for number, line in enumerate(diff.split("\n"), start=1):
        stray = (line.startswith("*") and line.rstrip() != apply_patch.END_OF_FILE
                 if op == "update" else bool(line.strip()) and not line.startswith("+"))
        if stray:
            wanted = ("' ', '-', '+' or '@@'" if op == "update" else "'+'")
            raise _ItemError(f'line {number} of "operation.diff" does not start with '
                             f"{wanted}: {line[:60]!r}")


def _operation_block(call_id: str | None, op: str, path: str, diff: str | None,
                     line: int, max_lines: int | None) -> Block:
    if op == "delete":
        block = new_block(FORMAT, path, "delete", line, line + 1, "")
    else:
        if diff is None:
            raise _ItemError('"operation.diff" is missing')
        block = _diff_block(op, path, diff.replace("\r\n", "\n").replace("\r", "\n"), line,
                            max_lines)
    block.tool = ToolEdit(call_id=call_id)
    return block


def _diff_block(op: str, path: str, diff: str, line: int, max_lines: int | None) -> Block:
    """The diff read by apply-patch's reader inside an envelope of its own."""
    _check_diff(op, diff)
    block = _read_in_envelope(op, path, diff, max_lines)
    block.format, block.response_line, block.end_line, block.raw = FORMAT, line, line + 1, ""
    for hunk in block.hunks or []:
        hunk.response_line = line
    return block


def _read_in_envelope(op: str, path: str, diff: str, max_lines: int | None) -> Block:
    marker = apply_patch.ADD if op == "create" else apply_patch.UPDATE
    body = diff if not diff or diff.endswith("\n") else diff + "\n"
    patch = f"{apply_patch.BEGIN}\n{marker}{path}\n{body}{apply_patch.END}\n"
    spans = apply_patch.find_blocks(patch, patch.split("\n"), scan_markers(patch, max_lines))
    warnings = [w for span in spans for w in span.warnings]
    blocks = [b for span in spans for b in span.blocks]
    if warnings:
        raise _ItemError(f'"operation.diff": {_without_section(warnings[0].message, path)}')
    if len(blocks) != 1:
        raise _ItemError('"operation.diff" does not read as one file')
    return blocks[0]


def _without_section(message: str, path: str) -> str:
    """An apply-patch warning without the section's name (the item names its file)."""
    return message.replace(f"apply-patch section '{path}': ", "")


class _Reader:
    """The blocks and warnings of the items in one JSON value, each at its response line."""

    def __init__(self, lines: CallLines, max_lines: int | None) -> None:
        self.lines = lines
        self.max_lines = max_lines
        self.blocks: list[Block] = []
        self.warnings: list[ParseWarning] = []

    def visit(self, item: dict) -> bool:
        if item.get("type") != ITEM_TYPE:
            return False
        call_id = item.get("call_id", item.get("id"))
        call_id = call_id if isinstance(call_id, str) else None
        line = self.lines.line_of(call_id or "")
        operation = item.get("operation")
        path = operation.get("path") if isinstance(operation, dict) else None
        try:
            self.blocks.append(self._block(item, call_id, line))
        except _ItemError as exc:
            name = f" {call_id}" if call_id else ""
            self.warnings.append(ParseWarning(
                line, f"apply_patch_call{name}: {exc}; skipped", format=FORMAT,
                file=path if isinstance(path, str) else None))
        return True

    def _block(self, item: dict, call_id: str | None, line: int) -> Block:
        operation = item.get("operation")
        if not isinstance(operation, dict):
            raise _ItemError('"operation" is missing' if operation is None
                             else '"operation" is not an object')
        kind = _text(operation, "type", "operation.")
        op = _OPERATIONS.get(kind)
        if op is None:
            raise _ItemError(f'"operation.type" {kind!r} is not create_file, update_file or '
                             "delete_file")
        path = _path(operation)
        diff = None if op == "delete" else _text(operation, "diff", "operation.")
        return _operation_block(call_id, op, path, diff, line, self.max_lines)


def find_blocks(text: str, lines: list[str], markers: MarkerLines) -> list[ParsedSpan]:
    """Every ``apply_patch_call`` item of the response (and every malformed one, as a
    warning), one span per JSON value holding some."""
    return tool_call_spans(text, TRIGGERS, lambda found: _Reader(found, markers.max_block_lines),
                           FORMAT, "an apply_patch_call")


def render(block: Block) -> str:
    """The block as one ``apply_patch_call`` item (JSON, one line). Raises ValueError for a
    block of another op (a rename, an append)."""
    import json

    operation: dict = {"path": block.file}
    if block.op == "delete":
        operation["type"] = "delete_file"
    elif block.op == "create":
        operation["type"] = "create_file"
        operation["diff"] = "".join(f"+{line}\n" for line in block.new)
    elif block.op == "update" and block.move_to is None:
        patch = apply_patch.render(block)
        body = patch.split("\n")[2:-2]  # without the envelope and the Update File line
        operation["type"] = "update_file"
        operation["diff"] = "".join(line + "\n" for line in body)
    else:
        raise ValueError(f"apply-patch-call cannot express a {block.op!r} block")
    call_id = block.tool.call_id if block.tool is not None else None
    item = {"type": ITEM_TYPE, "call_id": call_id or f"call_{block.index}",
            "operation": operation}
    return json.dumps(item, ensure_ascii=False) + "\n"
