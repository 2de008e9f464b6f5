"""A call's outcome as the agent gets it: ``structuredContent`` (the result JSON of the
server's and the CLI's commands, plus ``feedback``, the retry text) and a text a model can act
on: a summary, one line per block, then for a failure the retry feedback (its reason, the
did-you-mean with the caret, the file's real lines around the estimated line).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import BlockResult, FileEdit, FileSnapshot, PlanResult
from ..results import block_dict, warning_dict
from ..shell_display import command_parts, display_text, shell_command_dict
from ..workspace import display_path
from .preconditions import content_sha256, snapshot_sha256

JsonObject = dict[str, Any]


@dataclass
class ToolOutcome:
    text: str
    structured: JsonObject = field(default_factory=dict)
    is_error: bool = False

    @classmethod
    def error(cls, message: str) -> ToolOutcome:
        return cls(message, {"error": message}, True)


def instructions_outcome(format_name: str | None) -> ToolOutcome:
    from ..instructions import TAUGHT_FORMAT_NAMES, format_instructions

    text = format_instructions(format_name)
    formats = [format_name] if format_name else list(TAUGHT_FORMAT_NAMES)
    return ToolOutcome(text, {"text": text, "formats": formats})


def edits_outcome(result: PlanResult, *, feedback: str, dry_run: bool,
                  write_errors: list[str], snapshots: dict[Path, FileSnapshot],
                  roots: list[Path], uri_for: Callable[[Path], str],
                  single_edit: bool = False) -> ToolOutcome:
    """The outcome of apply_edits / check_edits / edit_file."""
    failed = [b for b in result.blocks if b.status == "failed"]
    structured: JsonObject = {
        "blocks": [block_dict(b, uri_for) for b in result.blocks],
        "warnings": [warning_dict(w) for w in result.warnings],
        "shellSuggestions": list(result.shell_suggestions),
        "shellCommands": [shell_command_dict(c) for c in result.shell_suggestions],
        "feedback": feedback,
        "files": _files(result, snapshots, roots, uri_for),
        "dryRun": dry_run,
        "ok": bool(result.blocks) and not failed and not write_errors,
    }
    if not dry_run:
        structured["applied"] = any(b.status == "applied" for b in result.blocks)
    if write_errors:
        structured["writeErrors"] = list(write_errors)
    text = _text(result, feedback, dry_run, write_errors, roots, single_edit)
    return ToolOutcome(text, structured, not structured["ok"])


# ----------------------------------------------------------------------------- text


def _text(result: PlanResult, feedback: str, dry_run: bool, write_errors: list[str],
          roots: list[Path], single_edit: bool) -> str:
    if not result.blocks:
        lines = ["No edit block was found, so nothing was changed."]
        lines += [f"- response line {w.response_line + 1}: {w.message}" for w in result.warnings]
        return "\n".join(lines) + "\n"
    out = [_summary(result.blocks, dry_run)]
    out += [_block_line(b, dry_run, roots, single_edit) for b in result.blocks]
    out += [f"Not written: {message}" for message in write_errors]
    out += [f"Warning: {w.message}" if single_edit  # a call: no response lines to name
            else f"Warning (response line {w.response_line + 1}): {w.message}"
            for w in result.warnings]
    # As every confirmation shows them: split where a shell runs another command, invisible
    # characters written out (a bidi override or a line separator would hide what runs).
    out += [f"Shell command suggested, not run: {display_text(part)}"
            for command in result.shell_suggestions for part in command_parts(command)]
    if any(b.status in ("failed", "skipped") for b in result.blocks) or write_errors:
        out += ["", feedback.rstrip("\n")]
    return "\n".join(out) + "\n"


_DONE = {"applied": "applied", "validated": "would apply"}


def _summary(blocks: list[BlockResult], dry_run: bool) -> str:
    counts: dict[str, int] = {}
    for b in blocks:
        counts[b.status] = counts.get(b.status, 0) + 1
    words = {"applied": "applied", "validated": "would apply", "failed": "failed",
             "skipped": "skipped", "already-applied": "already applied",
             "excluded": "excluded"}
    parts = [f"{n} {words.get(status, status)}" for status, n in counts.items()]
    noun = "block" if len(blocks) == 1 else "blocks"
    mode = " (dry run: nothing written)" if dry_run else ""
    return f"{len(blocks)} edit {noun}{mode}: {', '.join(parts)}."


def _block_line(block: BlockResult, dry_run: bool, roots: list[Path],
                single_edit: bool) -> str:
    name = block.file if single_edit else f"block {block.index + 1}: {block.file}"
    where = f" at line {block.line + 1}" if block.line is not None else ""
    if block.status in _DONE:
        how = "" if block.match in (None, "exact") else f" ({block.match} match)"
        return f"{name}: {_DONE[block.status]}{where}{how}"
    if block.status == "already-applied":
        return f"{name}: already applied (the file has this change){where}"
    reason = f": {block.reason}" if block.reason else ""
    return f"{name}: {block.status.upper()}{where}{reason}"


# ---------------------------------------------------------------------------- files


def _files(result: PlanResult, snapshots: dict[Path, FileSnapshot], roots: list[Path],
           uri_for: Callable[[Path], str]) -> list[JsonObject]:
    """Each file the call read: its SHA-256 as read and, when the call changes it, after
    (``sha256After``; null when it is deleted or moved away). An agent passes ``sha256`` (or
    ``sha256After`` after an apply) as ``expected_sha256`` of its next call."""
    after = _hashes_after(result, snapshots)
    out = []
    for path, snapshot in snapshots.items():
        entry: JsonObject = {"path": display_path(path, roots), "uri": uri_for(path),
                             "sha256": snapshot_sha256(snapshot)}
        if path in after:
            entry["sha256After"] = after.pop(path)
        out.append(entry)
    for path, digest in after.items():  # reached by a move: read by no block
        out.append({"path": display_path(path, roots), "uri": uri_for(path), "sha256": None,
                    "sha256After": digest})
    return out


def _hashes_after(result: PlanResult, snapshots: dict[Path, FileSnapshot]
                  ) -> dict[Path, str | None]:
    after: dict[Path, str | None] = {}
    for change in result.changes:
        if isinstance(change, FileEdit):
            bom = "\ufeff" if change.has_bom else ""
            after[change.path] = content_sha256(bom + change.new_text)
        elif change.kind == "create":
            after[change.path] = content_sha256("")
        elif change.kind == "delete":
            after[change.path] = None
        elif change.new_path is not None:
            moved = after.get(change.path)
            if change.path not in after and change.path in snapshots:
                moved = snapshot_sha256(snapshots[change.path])
            after[change.path] = None
            after[change.new_path] = moved
    return after


__all__ = ["ToolOutcome", "edits_outcome", "instructions_outcome"]
