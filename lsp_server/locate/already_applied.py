"""Already applied (docs/formats.md "Statuses"): a block whose old text is not in the file but
whose new text is, once, where the old text would have been. The response was applied
before, or the user made the same change: nothing is written and it is not a failure, so
running a response twice is safe.

How each kind of block shows it:

- A block that fails to locate is tried *undone*: old and new swapped (``+`` and ``-`` in
  hunks), located by the same policy with the same levels and uniqueness rules as the
  block itself. Only blocks whose new text can show it are tried (:func:`undone`): new text
  that is only blank lines, or none (a deletion), shows nothing unless kept lines pin its
  place on both sides.
- Where the undone block locates is accepted only when what the block *keeps* (anchor,
  context, lines equal in old and new, the words a changed line keeps, a hunk's ``@@`` line
  right above it) puts the change there on its own (``kept_lines.kept_lines_place``): the new
  text is where the old text would have been, never merely somewhere in the file.
  ``timeout = 30`` -> ``timeout = 60`` is not already applied because another function holds
  ``timeout = 60`` while this one's ``timeout = 45`` could be where the old text was.
- A pure insertion (no line removed) locates the same before and after it was applied, its
  anchor or context still being there; it is already applied when its new lines already
  sit next to them (:func:`inserted_already`).
- A create: the file holds exactly its text; an append: the file already ends with it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..diagnosis import Diagnosis
from ..matching import FileMatcher
from ..model import Block, Hunk
from .common import BlockFailure, Item, LocateOptions, LocatePolicy, Placement, common_ends
from .kept_lines import kept_lines_place


class AlreadyApplied(Placement):
    """A placement that changes nothing: the block's new text is already there (its line
    and match are where and how the new text was found)."""


def locate_or_already_applied(policy: LocatePolicy, block: Block, fm: FileMatcher,
                              options: LocateOptions) -> Placement:
    """The block's placement, or :class:`AlreadyApplied` when its new text is in place
    instead of its old text; raises the block's own failure otherwise (saying where its new
    text is when nothing the block keeps places it there)."""
    try:
        placement = policy(block, fm, options)
    except BlockFailure as failure:
        found = None if failure.ambiguous else _undone_located(policy, block, fm, options)
        if found is None:
            raise
        if not kept_lines_place(block, found, fm):
            raise _new_text_elsewhere(failure, found.line) from None
        return AlreadyApplied([], found.line, found.match, found.offset)
    return inserted_already(block, placement, fm.lines) or placement


def _undone_located(policy: LocatePolicy, block: Block, fm: FileMatcher,
                    options: LocateOptions) -> Placement | None:
    """Where the block undone locates (None: nowhere, or it cannot be undone)."""
    undo = undone(block)
    if undo is None:
        return None
    try:  # not forced: a quick fix's line is for the block, not for its undoing
        return policy(undo, fm, LocateOptions(options.tolerant))
    except BlockFailure:  # dropped unread, so never diagnosed
        return None


def _new_text_elsewhere(failure: BlockFailure, line: int) -> BlockFailure:
    """``failure`` with a note: the block's new text is at ``line``, but not shown to be where
    its old text was, so the block is not counted as already applied."""
    def explain() -> Diagnosis:
        d = failure.diagnosis()
        note = (f"; its new text is at line {line + 1}, but nothing the block keeps (a context "
                "line, an unchanged word) shows its old text was there: not counted as applied")
        return replace(d, reason=d.reason + note)

    return BlockFailure(explain=explain)


# ------------------------------------------------------------------------ undoing blocks


def undone(block: Block) -> Block | None:
    """The block with old and new text swapped, or None when its new text cannot show that
    it was applied (see the module docstring)."""
    return _undone_hunks(block) if block.hunks else _undone_lines(block)


def _undone_hunks(block: Block) -> Block | None:
    hunks: list[Hunk] = []
    for hunk in block.hunks or []:
        undone_hunk = _undone_hunk(hunk)
        if undone_hunk is None:
            return None
        hunks.append(undone_hunk)
    return Block(format=block.format, file=block.file, hunks=hunks, index=block.index,
                 response_line=block.response_line)


def _undone_lines(block: Block) -> Block | None:
    nothing_to_find = not (block.anchor or block.old or block.trailing)
    if block.op != "update" or nothing_to_find or block.old == block.new:
        return None
    if not _lines_show_new_text(block):
        return None
    return Block(format=block.format, file=block.file, anchor=block.anchor, old=block.new,
                 new=block.old, trailing=block.trailing, index=block.index,
                 response_line=block.response_line)


def _lines_show_new_text(block: Block) -> bool:
    """A line block's written lines are not all blank, or kept lines around them (anchors,
    lines equal in old and new) pin where they go."""
    p, s = common_ends(block.old, block.new)
    if _any_text(block.new[p : len(block.new) - s]):
        return True
    before = block.anchor or block.new[:p]
    after = block.trailing or block.new[len(block.new) - s :]
    return _any_text(before) and _any_text(after)


_SWAPPED = {"+": "-", "-": "+", " ": " "}
_NEW_START_RE = re.compile(r"\+(\d+)")


def _undone_hunk(hunk: Hunk) -> Hunk | None:
    """The hunk with ``+`` and ``-`` swapped; a unified diff's new start becomes its hint."""
    if not _any_text(_added(hunk)) and not _between_context(hunk):
        return None  # what it removed is not pinned between kept lines
    return Hunk(header=hunk.header, lines=[(_SWAPPED[k], t) for k, t in hunk.lines],
                anchor=hunk.anchor, old_start=_new_start(hunk), end_of_file=hunk.end_of_file,
                response_line=hunk.response_line)


def _added(hunk: Hunk) -> list[str]:
    return [text for kind, text in hunk.lines if kind == "+"]


def _between_context(hunk: Hunk) -> bool:
    """The hunk starts and ends with context lines."""
    return bool(hunk.lines) and hunk.lines[0][0] == " " and hunk.lines[-1][0] == " "


def _new_start(hunk: Hunk) -> int | None:
    """A unified diff hunk's new-side start line (``+l``), where its new text now is."""
    if hunk.old_start is None:
        return None
    found = _NEW_START_RE.search(hunk.header)
    return int(found.group(1)) if found else hunk.old_start


def _any_text(lines: list[str]) -> bool:
    return any(line.strip() for line in lines)


# ------------------------------------------------------------------------ insertions


def inserted_already(block: Block, placement: Placement,
                     lines: list[str]) -> AlreadyApplied | None:
    """A pure insertion whose new lines already sit where it would insert them."""
    for start, end, items in placement.replacements:
        if len(items) <= end - start:  # adds no line: not an insertion (the usual case)
            return None
    if not placement.replacements or not _is_pure_insertion(block):
        return None
    for start, end, items in placement.replacements:
        if not _items_present(start, end, items, lines):
            return None
    return AlreadyApplied([], placement.line, placement.match, placement.offset)


def _is_pure_insertion(block: Block) -> bool:
    """The block removes no line and writes some text (its anchors or context stay)."""
    if block.hunks:
        return _hunks_only_insert(block.hunks)
    if block.op != "update" or block.old:
        return False
    return bool(block.anchor or block.trailing) and _any_text(block.new)


def _hunks_only_insert(hunks: list[Hunk]) -> bool:
    removes = any(kind == "-" for hunk in hunks for kind, _ in hunk.lines)
    return not removes and any(_any_text(_added(hunk)) for hunk in hunks)


def _items_present(start: int, end: int, items: list[Item], lines: list[str]) -> bool:
    """The new text of one replacement of kept lines (ints) and new text (strs) is already
    in ``lines``: right after the kept lines before it, right before the kept lines after
    it, or (nothing kept) at the insertion point, or just before it at the end of the file."""
    new_at = [i for i, item in enumerate(items) if isinstance(item, str)]
    if not new_at:
        return True
    first, last = new_at[0], new_at[-1]
    kept_before, kept_after = first > 0, last < len(items) - 1
    if last - first + 1 != len(new_at) or (kept_before and kept_after):
        return False  # kept lines around new text are adjacent in the file: nothing between
    new = items[first : last + 1]
    if kept_before or (not kept_after and start < len(lines)):
        return lines[end : end + len(new)] == new
    return _just_before(lines, start, new)


def _just_before(lines: list[str], start: int, new: list[Item]) -> bool:
    return start >= len(new) and lines[start - len(new) : start] == new


# ------------------------------------------------------------------ whole-file blocks


def created_already(new_lines: list[str], file_lines: list[str]) -> AlreadyApplied | None:
    """A create whose file already holds exactly its (non-empty) text."""
    if new_lines and new_lines == file_lines:
        return AlreadyApplied([], 0, "exact")
    return None


def appended_already(new_lines: list[str], file_lines: list[str]) -> AlreadyApplied | None:
    """An append (an empty SEARCH) whose text already ends the file."""
    k = len(new_lines)
    if _any_text(new_lines) and k <= len(file_lines) and file_lines[-k:] == new_lines:
        return AlreadyApplied([], len(file_lines) - k, "exact")
    return None
