"""The result JSON of a run: what ``llmEdits.preview``/``llmEdits.apply`` return and what
``llm-edits --json`` prints, built in one place so the server and the CLI cannot drift.

Keys are camelCase, as the protocol's (docs/protocol.md). Nothing here imports lsprotocol:
the CLI uses these builders and must not pay for loading it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .model import BlockResult, FileEdit, ParseWarning, PlanResult, ResourceOp
from .shell_display import shell_command_dict

# A file's URI as the client knows it (the server maps open buffers' paths to their URIs).
UriFor = Callable[[Path], str]
JsonObject = dict[str, Any]


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


def block_dict(block: BlockResult, uri_for: UriFor) -> JsonObject:
    """One entry of the result's ``blocks``. ``anchorPreview``/``oldPreview``/``newPreview``
    (seed 001's EditResult): the block's first anchor, old and new line, at most 50
    characters, for UIs (the CLI table, summaries, lens titles)."""
    out: JsonObject = {
        "index": block.index,
        "file": block.file,
        "uri": uri_for(block.path) if block.path is not None else None,
        "format": block.format,
        "status": block.status,
        "reason": block.reason,
        "line": block.line,
        "match": block.match,
        "responseLine": block.response_line,
        "hint": block.hint,
        "fixes": {_camel(k): v for k, v in (block.fixes or {}).items()},
        "anchorPreview": block.anchor_preview,
        "oldPreview": block.old_preview,
        "newPreview": block.new_preview,
    }
    if block.offset is not None:
        out["offset"] = block.offset
    if block.call_id is not None:
        out["callId"] = block.call_id  # the agent's tool call this block came from
    return out


def warning_dict(warning: ParseWarning) -> JsonObject:
    """One entry of the result's ``warnings`` (a malformed block, or what an edit lost)."""
    return {"responseLine": warning.response_line, "message": warning.message}


def changed_files(
    plan: PlanResult, uri_for: UriFor, read_text: Callable[[Path], str | None]
) -> list[JsonObject]:
    """``options.includeText``: the full before/after text of every changed file.

    One entry per file, folding a create and its fill or an edit and its rename.
    ``read_text(path)`` gives a file's current text (needed for a rename or delete of a
    file the plan did not edit).
    """
    entries: dict[Path, JsonObject] = {}  # keyed by the file's current path
    order: list[JsonObject] = []

    def add(path: Path, entry: JsonObject) -> None:
        entries[path] = entry
        order.append(entry)

    for change in plan.changes:
        if isinstance(change, FileEdit):
            entry = entries.get(change.path)
            if entry is None:
                add(change.path, {"uri": uri_for(change.path), "kind": "edit",
                                  "oldText": change.original, "newText": change.new_text})
            else:
                entry["newText"] = change.new_text
        elif change.kind == "create":
            add(change.path, {"uri": uri_for(change.path), "kind": "create",
                              "oldText": "", "newText": ""})
        elif change.kind == "rename" and change.new_path is not None:
            _fold_rename(change, entries, order, uri_for, read_text)
        else:
            _fold_delete(change, entries, order, uri_for, read_text)
    return order


def _fold_rename(change: ResourceOp, entries: dict[Path, JsonObject], order: list[JsonObject],
                 uri_for: UriFor, read_text: Callable[[Path], str | None]) -> None:
    assert change.new_path is not None
    entry = entries.pop(change.path, None)
    if entry is None:
        text = read_text(change.path) or ""
        entry = {"uri": uri_for(change.path), "kind": "rename", "oldText": text,
                 "newText": text}
        order.append(entry)
    if entry["kind"] == "edit":
        entry["kind"] = "rename"
    entry["newUri"] = uri_for(change.new_path)
    entries[change.new_path] = entry


def _fold_delete(change: ResourceOp, entries: dict[Path, JsonObject], order: list[JsonObject],
                 uri_for: UriFor, read_text: Callable[[Path], str | None]) -> None:
    entry = entries.pop(change.path, None)
    if entry is None:
        entry = {"uri": uri_for(change.path), "kind": "delete",
                 "oldText": read_text(change.path) or "", "newText": ""}
        order.append(entry)
    entry["kind"] = "delete"
    entry["newText"] = ""


def result_dict(
    plan: PlanResult,
    edit: Any,
    uri_for: UriFor,
    unstructure: Callable[[Any], Any] | None = None,
    *,
    run_id: str | None = None,
    extra_warnings: Iterable[ParseWarning] = (),
    files: list[JsonObject] | None = None,
) -> JsonObject:
    """The result object of ``llmEdits.preview`` / ``llmEdits.apply``.

    ``edit`` is the WorkspaceEdit's JSON (the server sends that very object with
    ``workspace/applyEdit``), None, or an lsprotocol edit that ``unstructure`` turns into
    JSON (typed ``Any``: this module never imports lsprotocol, even for types).
    """
    if edit is not None and not isinstance(edit, dict):
        if unstructure is None:
            raise TypeError("an lsprotocol edit needs `unstructure` to become JSON")
        edit = unstructure(edit)
    warnings = sorted([*plan.warnings, *extra_warnings], key=lambda w: w.response_line)
    out: JsonObject = {
        "edit": edit,
        "blocks": [block_dict(b, uri_for) for b in plan.blocks],
        "shellSuggestions": list(plan.shell_suggestions),
        "shellCommands": [shell_command_dict(c) for c in plan.shell_suggestions],
        "warnings": [warning_dict(w) for w in warnings],
    }
    if run_id is not None:
        out["runId"] = run_id
    if files is not None:
        out["files"] = files
    return out


__all__ = ["JsonObject", "UriFor", "block_dict", "changed_files", "result_dict", "warning_dict"]
