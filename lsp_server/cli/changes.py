"""What a run does to each file: one summary per affected file, its diff and its line counts,
for the report (``--diff``, ``--json``'s ``files``, the closing "Would change"/"Written" line).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from ..model import FileEdit, ResourceOp, text_to_lines
from ..workspace import read_disk_file


@dataclass
class FileSummary:
    kind: str  # edit | create | rename | delete
    path: Path
    new_path: Path | None = None
    old_text: str | None = None  # None: unknown / not applicable
    new_text: str | None = None


def summarise(changes: list[FileEdit | ResourceOp]) -> list[FileSummary]:
    """One summary per affected file, folding a create + fill or an update + rename."""
    by_path: dict[Path, FileSummary] = {}  # keyed by the file's current path
    order: list[FileSummary] = []
    for change in changes:
        if isinstance(change, FileEdit):
            _fold_edit(change, by_path, order)
        elif change.kind == "create":
            summary = FileSummary("create", change.path, old_text="", new_text="")
            by_path[change.path] = summary
            order.append(summary)
        elif change.kind == "rename":
            _fold_rename(change, by_path, order)
        else:
            _fold_delete(change, by_path, order)
    return order


def _fold_edit(edit: FileEdit, by_path: dict[Path, FileSummary],
               order: list[FileSummary]) -> None:
    summary = by_path.get(edit.path)
    if summary is None:
        summary = FileSummary("edit", edit.path, old_text=edit.original)
        by_path[edit.path] = summary
        order.append(summary)
    elif summary.old_text is None:
        summary.old_text = edit.original
    summary.new_text = edit.new_text


def _fold_rename(op: ResourceOp, by_path: dict[Path, FileSummary],
                 order: list[FileSummary]) -> None:
    assert op.new_path is not None
    summary = by_path.pop(op.path, None)
    if summary is None:
        summary = FileSummary("rename", op.path)
        order.append(summary)
    if summary.kind == "edit":
        summary.kind = "rename"
    summary.new_path = op.new_path
    by_path[op.new_path] = summary


def _fold_delete(op: ResourceOp, by_path: dict[Path, FileSummary],
                 order: list[FileSummary]) -> None:
    summary = by_path.pop(op.path, None)
    if summary is None:
        summary = FileSummary("delete", op.path, old_text=_read_for_diff(op.path))
        order.append(summary)
    summary.kind = "delete"
    summary.new_text = None


def _read_for_diff(path: Path) -> str | None:
    snapshot = read_disk_file(path)
    if snapshot.text is None or snapshot.binary or snapshot.error:
        return None
    return snapshot.text.removeprefix("\ufeff")


def display_path(path: Path, roots: list[Path]) -> str:
    """``path`` relative to the first root holding it (POSIX slashes), else as it is."""
    for root in roots:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            continue
    return str(path)


def _old_and_new_lines(summary: FileSummary) -> tuple[list[str], list[str]]:
    old = text_to_lines(summary.old_text or "")
    if summary.kind == "delete":
        return old, []
    if summary.kind == "rename" and summary.new_text is None:
        return old, old  # moved, not edited
    return old, text_to_lines(summary.new_text or "")


def diff_lines(summary: FileSummary, roots: list[Path]) -> list[str]:
    """The file's change as unified-diff lines (git's ``rename from/to`` head for a move)."""
    old_name = display_path(summary.path, roots)
    new_name = display_path(summary.new_path, roots) if summary.new_path else old_name
    from_file = "/dev/null" if summary.kind == "create" else f"a/{old_name}"
    to_file = "/dev/null" if summary.kind == "delete" else f"b/{new_name}"
    old, new = _old_and_new_lines(summary)
    lines = list(difflib.unified_diff(old, new, from_file, to_file, lineterm=""))
    if summary.kind == "rename":
        return [f"rename from {old_name}", f"rename to {new_name}", *lines]
    if not lines and summary.kind in ("create", "delete"):
        what = "new empty file" if summary.kind == "create" else "deleted file"
        return [f"--- {from_file}", f"+++ {to_file}", f"({what})"]
    return lines


def line_counts(summary: FileSummary) -> tuple[int, int]:
    """Lines added and removed by the change (the ``+``/``-`` lines of its diff)."""
    old, new = _old_and_new_lines(summary)
    if old == new:
        return 0, 0
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed


__all__ = ["FileSummary", "diff_lines", "display_path", "line_counts", "summarise"]
