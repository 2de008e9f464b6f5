"""What a run does to each file: one summary per affected file, its diff and its line counts,
for the report (``--diff``, ``--json``'s ``files``, the closing "Would change"/"Written" line).

The diff and the counts come from the engine's planned edits, not from diffing the old and
new files: each edit replaces whole lines of the original (the planner keeps the lines a
block keeps, such as its context and the lines equal in its old and new text), so the diff
shows exactly those regions, with three lines of context, and ``linesRemoved``/``linesAdded``
count exactly its ``-`` and ``+`` lines. That costs the size of the change rather than of the
file, and says what the edit does; a diff of the whole files could pair repeated lines
(blank lines, closing braces) differently. Lines are the engine's (``\\r\\n``, ``\\n``, a lone
``\\r``: :func:`~lsp_server.model.text_to_lines`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..model import FileEdit, ResourceOp, TextEdit, text_to_lines
from ..workspace import display_path, read_disk_file

_CONTEXT = 3  # lines of context around each change, as in ``diff -u``

# A changed region: original lines [start, end) become ``new`` (whole lines).
Region = tuple[int, int, list[str]]


@dataclass
class FileSummary:
    kind: str  # edit | create | rename | delete
    path: Path
    new_path: Path | None = None
    old_text: str | None = None  # None: unknown / not applicable
    new_text: str | None = None
    edits: list[FileEdit] = field(default_factory=list)  # the planned edits, in order


def summarise(changes: list[FileEdit | ResourceOp],
              read_old: Callable[[Path], str | None] | None = None) -> list[FileSummary]:
    """One summary per affected file, folding a create + fill or an update + rename.
    ``read_old``: a deleted file's text (default: read from disk, so before the delete)."""
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
            _fold_delete(change, by_path, order, read_old or read_for_diff)
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
    summary.edits.append(edit)


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


def _fold_delete(op: ResourceOp, by_path: dict[Path, FileSummary], order: list[FileSummary],
                 read_old: Callable[[Path], str | None]) -> None:
    summary = by_path.pop(op.path, None)
    if summary is None:
        summary = FileSummary("delete", op.path, old_text=read_old(op.path))
        order.append(summary)
    summary.kind = "delete"
    summary.new_text = None
    summary.edits = []


def read_for_diff(path: Path) -> str | None:
    snapshot = read_disk_file(path)
    if snapshot.text is None or snapshot.binary or snapshot.error:
        return None
    return snapshot.text.removeprefix("\ufeff")


# -------------------------------------------------------------------- changed regions


def _regions(summary: FileSummary) -> list[Region]:
    """The summary's change as regions of its old text, in order."""
    if summary.kind == "delete":
        count = _line_count(summary.old_text or "")
        return [(0, count, [])] if count else []
    if len(summary.edits) == 1 and summary.edits[0].original == summary.old_text:
        regions = planned_regions(summary.edits[0])
        if regions is not None:
            return regions
    if summary.new_text is None or summary.old_text == summary.new_text:
        return []  # moved, or created empty
    # Several edits folded into one file (their regions refer to different texts), or no
    # edit to go by: the texts are compared.
    return _diffed_regions(summary.old_text or "", summary.new_text)


def planned_regions(edit: FileEdit) -> list[Region] | None:
    """The planned edit's changes as whole-line regions of ``edit.original``.

    The planner's edits replace whole lines (:func:`lsp_server.file_text.segment_edit`),
    except at the end of a file without a final newline, where an edit starts at the end of
    the last kept line (with the line break it adds or removes) or ends at the end of the
    last line. None when the edits are of another shape: the regions would not give
    ``edit.new_text`` (checked by counting lines).
    """
    regions: list[Region] = []
    for text_edit in sorted(edit.edits, key=lambda e: (e.start_line, e.start_col)):
        region = _whole_lines(text_edit)
        if region is None or (regions and region[0] < regions[-1][1]):
            return None
        regions.append(region)
    growth = sum(len(new) - (end - start) for start, end, new in regions)
    if _line_count(edit.original) + growth != _line_count(edit.new_text):
        return None
    return regions


def _whole_lines(edit: TextEdit) -> Region | None:
    start, end, text = edit.start_line, edit.end_line, edit.new_text
    if edit.start_col:  # from the end of line ``start``: the text begins with a line break
        if text:
            if text[0] not in "\r\n":
                return None
            text = text[2:] if text.startswith("\r\n") else text[1:]
        start += 1
    if edit.end_col:  # to the end of the last line, which has no line break
        end += 1
    if end < start:
        return None
    return start, end, text_to_lines(text)


def _line_count(text: str) -> int:
    """``len(text_to_lines(text))`` without making the lines."""
    breaks = text.count("\n")
    if "\r" in text:
        breaks += text.count("\r") - text.count("\r\n")
    return breaks + (1 if text and text[-1] not in "\r\n" else 0)


def _diffed_regions(old_text: str, new_text: str) -> list[Region]:
    old, new = text_to_lines(old_text), text_to_lines(new_text)
    matcher = difflib.SequenceMatcher(None, old, new)
    return [(i1, i2, new[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if tag != "equal"]


def line_counts(summary: FileSummary) -> tuple[int, int]:
    """Lines added and removed: the ``+`` and ``-`` lines of :func:`diff_lines`."""
    added = removed = 0
    for start, end, new in _regions(summary):
        removed += end - start
        added += len(new)
    return added, removed


# ----------------------------------------------------------------------------- the diff


def diff_lines(summary: FileSummary, roots: list[Path]) -> list[str]:
    """The file's change as unified-diff lines (git's ``rename from/to`` head for a move)."""
    old_name = display_path(summary.path, roots)
    new_name = display_path(summary.new_path, roots) if summary.new_path else old_name
    from_file = "/dev/null" if summary.kind == "create" else f"a/{old_name}"
    to_file = "/dev/null" if summary.kind == "delete" else f"b/{new_name}"
    regions = _regions(summary)
    lines = [f"--- {from_file}", f"+++ {to_file}"] if regions else []
    if regions:
        lines += _hunks(text_to_lines(summary.old_text or ""), regions)
    if summary.kind == "rename":
        return [f"rename from {old_name}", f"rename to {new_name}", *lines]
    if not lines and summary.kind in ("create", "delete"):
        what = "new empty file" if summary.kind == "create" else "deleted file"
        return [f"--- {from_file}", f"+++ {to_file}", f"({what})"]
    return lines


def _hunks(old: list[str], regions: list[Region]) -> Iterator[str]:
    """Unified-diff hunks of ``regions``, merged where their context would overlap."""
    shift = 0  # new line number minus old line number before the current hunk
    for group in _groups(regions):
        first = max(0, group[0][0] - _CONTEXT)
        last = min(len(old), group[-1][1] + _CONTEXT)
        growth = sum(len(new) - (end - start) for start, end, new in group)
        yield (f"@@ -{_range(first, last - first)} "
               f"+{_range(first + shift, last - first + growth)} @@")
        position = first
        for start, end, new in group:
            yield from (" " + line for line in old[position:start])
            yield from ("-" + line for line in old[start:end])
            yield from ("+" + line for line in new)
            position = end
        yield from (" " + line for line in old[position:last])
        shift += growth


def _groups(regions: list[Region]) -> Iterator[list[Region]]:
    group = [regions[0]]
    for region in regions[1:]:
        if region[0] - group[-1][1] > 2 * _CONTEXT:
            yield group
            group = []
        group.append(region)
    yield group


def _range(start: int, length: int) -> str:
    """A hunk header's range, as diff writes it (difflib's ``_format_range_unified``)."""
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


__all__ = [
    "FileSummary",
    "Region",
    "diff_lines",
    "line_counts",
    "planned_regions",
    "read_for_diff",
    "summarise",
]
