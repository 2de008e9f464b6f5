"""Locate a whole-file block (docs/formats.md "whole-file"): the file's complete new text,
applied as the minimal line edits from the current lines to it.

Lines the new text shares with the file (aligned by :class:`difflib.SequenceMatcher`) stay
kept lines, so the editor receives only the changed lines: a buffer keeps its undo history,
cursors and folds, and the file's EOL style, BOM and final newline stay as they are.

A whole file is refused when it looks like part of one ("Looks like part of the file"):
- it holds an elision placeholder (``...``, ``# rest of code``, ``// ... existing code ...``:
  ``diagnosis.elision_lines``) that is not a line of the file already (a real ``...`` of a
  Python stub that the file has is code);
- it would remove more than half of an existing file's non-blank lines, whatever it adds
  (``removed_lines.removes_most_of``: lines compared ignoring surrounding whitespace, as a
  multiset, so a re-indented or moved line is not removed): a model that wrote the start of
  a file and stopped, or an excerpt with a few new lines. The code-block merge applies the
  same rule, from the same module.
A file that already holds exactly the new text is already applied.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from ..diagnosis import elision_lines
from ..did_you_mean import quote
from ..matching import FileMatcher
from ..model import Block
from ..removed_lines import removes_most_of
from .already_applied import AlreadyApplied
from .common import BlockFailure, Item, LocateOptions, Placement, common_ends

# (tag, current start, current end, new start, new end), as SequenceMatcher.get_opcodes().
Opcode = tuple[str, int, int, int, int]

PART_OF_FILE = "Looks like part of the file"
_WRITE_IT_ALL = "write every line of the file, or use an edit format for a partial change"


def locate_whole_file(block: Block, fm: FileMatcher, options: LocateOptions) -> Placement:
    """The file's lines become ``block.new``: kept lines where they agree, new text where
    they differ; a failure when the text looks like part of a file."""
    current, new = fm.lines, block.new
    if new == current and new:
        return AlreadyApplied([], 0, "exact")
    opcodes = line_opcodes(current, new)
    _refuse_elisions(new, fm, opcodes)
    _refuse_drastic_shrinking(current, new, opcodes)
    first = next((i1 for tag, i1, _, _, _ in opcodes if tag != "equal"), 0)
    return Placement([(0, len(current), kept_and_new(opcodes, new))], first, "exact")


def kept_and_new(opcodes: list[Opcode], new: list[str]) -> list[Item]:
    """Kept current lines where the texts agree, new text elsewhere (the code-block
    policy's too)."""
    items: list[Item] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            items.extend(range(i1, i2))
        else:
            items.extend(new[j1:j2])
    return items


def line_opcodes(current: list[str], new: list[str]) -> list[Opcode]:
    """How ``current`` becomes ``new``, line by line: the shared first and last lines are
    found by a plain comparison, only the differing middle is aligned by SequenceMatcher
    (which also keeps its cost to the changed part of a big file)."""
    p, s = common_ends(current, new)
    opcodes: list[Opcode] = [("equal", 0, p, 0, p)] if p else []
    opcodes += _middle_opcodes(current[p : len(current) - s], new[p : len(new) - s], p)
    if s:
        opcodes.append(("equal", len(current) - s, len(current), len(new) - s, len(new)))
    return opcodes


def _middle_opcodes(mid_current: list[str], mid_new: list[str], p: int) -> list[Opcode]:
    """The opcodes of the differing middles, which both start at line ``p``."""
    if mid_current and mid_new:
        matcher = SequenceMatcher(None, mid_current, mid_new)
        return [(tag, i1 + p, i2 + p, j1 + p, j2 + p)
                for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    if mid_current or mid_new:  # only deleted or only inserted lines
        return [("replace", p, p + len(mid_current), p, p + len(mid_new))]
    return []


def _refuse_elisions(new: list[str], fm: FileMatcher, opcodes: list[Opcode]) -> None:
    """Fail at the first placeholder line of ``new`` that the file does not have."""
    elided = elision_lines(new, fm)
    if not elided:
        return
    at = elided[0]
    raise BlockFailure(
        f"{PART_OF_FILE}: line {at + 1} of the new text ({quote(new[at].strip())}) is an "
        f"elision placeholder; {_WRITE_IT_ALL}",
        _current_line_of(at, opcodes),
    )


def _current_line_of(new_line: int, opcodes: list[Opcode]) -> int:
    """The current line where line ``new_line`` of the new text goes (a failure's line)."""
    for _tag, i1, i2, j1, j2 in opcodes:
        if j1 <= new_line < j2:
            return min(i1 + (new_line - j1), max(i2 - 1, i1))
    return 0


def _refuse_drastic_shrinking(current: list[str], new: list[str],
                              opcodes: list[Opcode]) -> None:
    """Fail when more than half of the file's non-blank lines would go
    (:func:`lsp_server.removed_lines.removes_most_of`)."""
    shrinking = removes_most_of(current, new)
    if shrinking is not None:
        removed, total = shrinking
        raise BlockFailure(
            f"{PART_OF_FILE}: it would remove {removed} of the file's {total} non-blank lines; "
            f"{_WRITE_IT_ALL} (delete a file with a shell command)",
            _first_removed(current, opcodes),
        )


def _first_removed(current: list[str], opcodes: list[Opcode]) -> int:
    """The first current line a change deletes that is not blank (the failure's line)."""
    for tag, i1, i2, _, _ in opcodes:
        if tag != "equal":
            for i in range(i1, i2):
                if current[i].strip():
                    return i
    return 0
