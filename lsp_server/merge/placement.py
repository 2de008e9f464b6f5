"""Where new definitions go (docs/formats.md, `code-block`, "New definitions"), and the edits
a merge makes on the file's lines.

A group of new definitions (shown one after another, no elision between) goes right after
the nearest unit shown before it when no elision lies between the two, preceded by the blank
lines the snippet puts there; else right before the nearest unit shown after it (followed by
the snippet's blank lines); else at the end of its container (the class, or the file), after as
many blank lines as the container's units are separated by. An elision inside a new definition
stands for nothing: it is dropped with the blank lines around it.
"""

from __future__ import annotations

import itertools

from ..reindent import leading_ws
from .indent import reindent
from .snippet_state import Edit, SnippetState
from .units import Unit

_OPENERS = ("{", ":", "(", "[", "do")
_ELLIPSES = ("...", "…")


def insert_new_units(merge: SnippetState, new: list[Unit], shown: list[Unit],
                     file_units: list[Unit], file_span: tuple[int, int]) -> list[Edit]:
    """The insertions of the ``new`` units of one region (``shown``: the region's snippet
    units in order; ``file_units``: the file's units of the region)."""
    edits: list[Edit] = []
    new_ids = {id(u) for u in new}
    for group in _new_groups(shown, new_ids, merge.elided):
        at = shown.index(group[0])
        before = shown[at - 1] if at > 0 else None
        after = shown[at + len(group)] if at + len(group) < len(shown) else None
        body = _new_lines(merge, group, file_units, file_span)
        if before is not None and id(before) in merge.placed and not _elision_between(
                merge, before.end, group[0].comment_start):
            blanks = _blank_lines(merge, before.end, group[0].comment_start)
            edits.append(Edit(merge.placed[id(before)][1], merge.placed[id(before)][1],
                              [""] * blanks + body))
        elif after is not None and id(after) in merge.placed and not _elision_between(
                merge, group[-1].end, after.comment_start):
            blanks = _blank_lines(merge, group[-1].end, after.comment_start)
            edits.append(Edit(merge.placed[id(after)][0], merge.placed[id(after)][0],
                              body + [""] * blanks))
        else:
            edits.append(_at_end(merge, body, file_units, file_span))
    return edits


def _new_groups(shown: list[Unit], new_ids: set[int], elided: frozenset[int]
                ) -> list[list[Unit]]:
    groups: list[list[Unit]] = []
    previous_new = False
    for unit in shown:
        is_new = id(unit) in new_ids
        if is_new and previous_new and not any(
                groups[-1][-1].end <= i < unit.comment_start for i in elided):
            groups[-1].append(unit)
        elif is_new:
            groups.append([unit])
        previous_new = is_new
    return groups


def _elision_between(merge: SnippetState, lo: int, hi: int) -> bool:
    return any(lo <= i < hi for i in merge.elided)


def _blank_lines(merge: SnippetState, lo: int, hi: int) -> int:
    return sum(1 for line in merge.code_lines[lo:hi] if not line.strip())


def _new_lines(merge: SnippetState, group: list[Unit], file_units: list[Unit],
               file_span: tuple[int, int]) -> list[str]:
    """The group's lines without its elisions, at the indentation of the region's units in
    the file."""
    lo, hi = group[0].comment_start, group[-1].end
    code = merge.code_lines
    stub = frozenset(i for i in merge.elided if merge.ellipsis_is_code
                     and code[i].strip() in _ELLIPSES)  # a stub's `...` body is code
    while hi in stub:
        hi += 1  # the unit's end (its last shown line) left it out
    kept = _without_elisions(code, range(lo, hi), merge.elided - stub)
    from_ws = leading_ws(code[group[0].def_start])
    return reindent(kept, from_ws, _member_indent(merge, file_units, file_span),
                    merge.code_unit, lambda: merge.file_unit)


def _without_elisions(code: list[str], indexes: range, elided: frozenset[int]) -> list[str]:
    """The lines at ``indexes`` without the elisions. An elision goes with the blank lines on
    one side of it: those after it stay when there were some before it too, unless it
    follows the opening of a block."""
    kept: list[str] = []
    skip_blanks = False
    for i in indexes:
        line = code[i]
        if i in elided:
            blank_before = bool(kept) and not kept[-1].strip()
            while kept and not kept[-1].strip():
                kept.pop()
            skip_blanks = not blank_before or not kept or kept[-1].rstrip().endswith(_OPENERS)
        elif line.strip() or not skip_blanks:
            kept.append(line)
            skip_blanks = skip_blanks and not line.strip()
    return kept


def _member_indent(merge: SnippetState, file_units: list[Unit],
                   file_span: tuple[int, int]) -> str:
    """The indentation of the region's units in the file (one step into a container that
    has none yet)."""
    if file_units:
        return leading_ws(merge.file_lines[file_units[0].def_start])
    lo = file_span[0]
    if lo == 0:
        return ""
    return leading_ws(merge.file_lines[lo - 1]) + merge.file_unit


def _at_end(merge: SnippetState, body: list[str], file_units: list[Unit],
            file_span: tuple[int, int]) -> Edit:
    """An insertion after the region's last unit, separated as the region's units are."""
    defs = [u for u in file_units if u.end <= file_span[1]]
    if not defs:
        return Edit(file_span[0], file_span[0], body)
    last = defs[-1]
    gaps = [sum(1 for line in merge.file_lines[a.end:b.comment_start] if not line.strip())
            for a, b in itertools.pairwise(defs)]
    blanks = gaps[-1] if gaps else merge.default_gap
    return Edit(last.end, last.end, [""] * blanks + body)
