"""One block's own change as a unified diff, with the file's line numbers (for its hover).

A plan's changes are composed per file, from every block, as minimal edits against the text
the editor has (``planning``); :class:`~lsp_server.block_spans.BlockSpans` says which block
made which edit. A block's diff is the edits it made, alone, against that text: the old side
numbers lines as the file is now, the new side as the file would be with this block's
change only. An edit shared with another block (their changes touch) shows both, and the
diff says so. Without spans (nothing was recorded), a block's file edits are its own only
when no other block changed the file.

No LSP here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...block_spans import BlockSpans, operation_blocks
from ...limits import DEFAULT_MAX_BLOCK_LINES
from ...model import (
    OK_STATUSES,
    Block,
    BlockResult,
    FileEdit,
    ParseResult,
    PlanResult,
    ResourceOp,
    TextEdit,
    text_to_lines,
)
from ...planning import ReadFile, plan_edits
from ..protocol.positions import lines_with_breaks

CONTEXT_LINES = 3  # unchanged lines shown around a change, as `diff -u`
MAX_DIFF_LINES = 200  # a hover is read, not scrolled: longer diffs are cut, saying so


@dataclass
class Change:
    """Original lines ``[start, start + len(old))`` become ``new``."""

    start: int
    old: list[str]
    new: list[str]


@dataclass
class BlockChange:
    """What one block does to the workspace: its diff text per file, its file operations,
    and the other blocks whose changes are mixed into its diff."""

    diffs: list[str] = field(default_factory=list)
    operations: list[ResourceOp] = field(default_factory=list)
    shared_with: set[int] = field(default_factory=set)


def edit_change(lines: list[str], edit: TextEdit) -> Change:
    """A text edit as whole lines: ``lines`` are the original's lines with their breaks
    (:func:`~.positions.lines_with_breaks`); lines that stay the same at either end of the
    edit's lines are left out."""
    first = edit.start_line
    after = edit.end_line + (1 if edit.end_col else 0)
    region = "".join(lines[first:after])
    prefix = lines[first][:edit.start_col] if first < len(lines) else ""
    suffix = lines[edit.end_line][edit.end_col:] if edit.end_col else ""
    old = text_to_lines(region)
    new = text_to_lines(prefix + edit.new_text + suffix)
    lead, trail = _common_ends(old, new)
    return Change(first + lead, old[lead:len(old) - trail], new[lead:len(new) - trail])


def _common_ends(old: list[str], new: list[str]) -> tuple[int, int]:
    """How many lines ``old`` and ``new`` share at their start, then at their end."""
    shorter = min(len(old), len(new))
    lead = 0
    while lead < shorter and old[lead] == new[lead]:
        lead += 1
    trail = 0
    while trail < shorter - lead and old[-1 - trail] == new[-1 - trail]:
        trail += 1
    return lead, trail


def _span(start: int, count: int) -> str:
    """A hunk header's range: 1-based start, the count when not 1 (``diff -u``'s form; an
    empty range names the line before it)."""
    if count == 0:
        return f"{start},0"
    return str(start + 1) if count == 1 else f"{start + 1},{count}"


def _groups(changes: list[Change], context: int) -> list[list[Change]]:
    """Changes close enough to share a hunk (their contexts would overlap or touch)."""
    groups: list[list[Change]] = []
    for change in changes:
        if groups:
            last = groups[-1][-1]
            if change.start - (last.start + len(last.old)) <= 2 * context:
                groups[-1].append(change)
                continue
        groups.append([change])
    return groups


def unified_hunks(original: list[str], changes: list[Change],
                  context: int = CONTEXT_LINES) -> list[str]:
    """The hunks (``@@`` lines and bodies) of ``changes`` (in file order, disjoint) to the
    text whose lines are ``original``."""
    out: list[str] = []
    delta = 0  # lines the hunks so far added (new side) minus removed
    for group in _groups([c for c in changes if c.old or c.new], context):
        lo = max(0, group[0].start - context)
        hi = min(len(original), group[-1].start + len(group[-1].old) + context)
        old_count = hi - lo
        new_count = old_count + sum(len(c.new) - len(c.old) for c in group)
        out.append(f"@@ -{_span(lo, old_count)} +{_span(lo + delta, new_count)} @@")
        out += _hunk_body(original, group, lo, hi)
        delta += new_count - old_count
    return out


def _hunk_body(original: list[str], group: list[Change], lo: int, hi: int) -> list[str]:
    body: list[str] = []
    position = lo
    for change in group:
        body += [" " + line for line in original[position:change.start]]
        body += ["-" + line for line in change.old]
        body += ["+" + line for line in change.new]
        position = change.start + len(change.old)
    return body + [" " + line for line in original[position:hi]]


def file_diff(original: str, changes: list[Change], name: str, created: bool) -> str:
    """The unified diff of ``changes`` to ``original`` (``---``/``+++`` lines naming
    ``name``; ``--- /dev/null`` for a file the changes create)."""
    hunks = unified_hunks(text_to_lines(original), changes)
    header = ["--- /dev/null" if created else f"--- a/{name}", f"+++ b/{name}"]
    return "\n".join(header + hunks)


def cut(diff: str, limit: int = MAX_DIFF_LINES) -> str:
    """``diff`` with at most ``limit`` lines, and a last line saying how many were left out."""
    lines = diff.split("\n")
    if len(lines) <= limit:
        return diff
    return "\n".join([*lines[:limit], f"… {len(lines) - limit} more lines"])


def _own_edits(plan: PlanResult, spans: BlockSpans | None, index: int,
               file_edit: FileEdit, change: BlockChange) -> list[TextEdit]:
    """The edits of ``file_edit`` block ``index`` made (noting the blocks it shares them
    with): from the spans when recorded, else all of them."""
    if spans is None:
        change.shared_with.update(b.index for b in plan.blocks if b.path == file_edit.path
                                  and b.status in OK_STATUSES and b.index != index)
        return list(file_edit.edits)
    mine = []
    for edit, owners in zip(file_edit.edits, spans.edit_blocks(file_edit), strict=True):
        if index in owners:
            mine.append(edit)
            change.shared_with.update(owners)
    change.shared_with.discard(index)
    return mine


def _operations(plan: PlanResult, index: int) -> list[ResourceOp]:
    owners = operation_blocks(plan)
    return [op for op in plan.changes if isinstance(op, ResourceOp) and owners[id(op)] == index]


def _changing_result(plan: PlanResult, index: int) -> BlockResult | None:
    """Block ``index``'s result if it can have changed something (did not fail)."""
    result = next((b for b in plan.blocks if b.index == index), None)
    return result if result is not None and result.status in OK_STATUSES else None


def block_change(plan: PlanResult, spans: BlockSpans | None, index: int,
                 name: str) -> BlockChange:
    """What block ``index`` (whose file is written ``name``) changes in ``plan``."""
    result = _changing_result(plan, index)
    change = BlockChange()
    if result is None or result.path is None:
        return change
    change.operations = _operations(plan, index)
    created = {op.path for op in change.operations if op.kind == "create"}
    # A block's text edits address its own file (a renamed file's, before the rename).
    for item in plan.changes:
        if isinstance(item, FileEdit) and item.path == result.path:
            diff = _file_diff_of(plan, spans, index, item, change, name, item.path in created)
            if diff is not None:
                change.diffs.append(diff)
    return change


def _file_diff_of(plan: PlanResult, spans: BlockSpans | None, index: int, item: FileEdit,
                  change: BlockChange, name: str, created: bool) -> str | None:
    edits = _own_edits(plan, spans, index, item, change)
    if not edits:
        return None
    lines = lines_with_breaks(item.original)
    return file_diff(item.original, [edit_change(lines, edit) for edit in edits], name, created)


def changes_in(plan: PlanResult, spans: BlockSpans | None) -> Callable[[Block], BlockChange]:
    """What each block of a plan (recorded with ``spans``) changes."""
    return lambda block: block_change(plan, spans, block.index, block.file)


def replanned_changes(parsed: ParseResult, results: Sequence[BlockResult], read_file: ReadFile,
                      roots: list[Path], *, matching: str = "exact",
                      max_block_lines: int | None = DEFAULT_MAX_BLOCK_LINES,
                      ) -> Callable[[Block], BlockChange]:
    """What each block changes, found by planning again, recording which block made which
    edit, the blocks that ``results`` (a validation that recorded nothing) say target the
    block's file, over the same files (``read_file``: that validation's snapshot). Blocks
    of other files cannot change that file, unless a block moves one: then every block is
    planned. The cost is one file's blocks, paid when one block's change is asked for."""
    moves = any(b.op == "rename" or b.move_to for b in parsed.blocks)

    def change_of(block: Block) -> BlockChange:
        result = results[block.index] if block.index < len(results) else None
        if result is None or result.path is None or result.status not in OK_STATUSES:
            return BlockChange()
        only = None if moves else {r.index for r in results if r.path == result.path}
        spans = BlockSpans()
        plan = plan_edits(ParseResult(list(parsed.blocks[:len(results)])), read_file, roots,
                          matching=matching, only=only, max_block_lines=max_block_lines,
                          on_change=spans.record)
        return block_change(plan, spans, block.index, block.file)

    return change_of
