"""Locate str-replace blocks (docs/formats.md "Agents' tool calls"): the substring semantics
of agents' edit tools.

- The old string is an exact *substring* of the file's text (CRLF→LF, BOM not part of it;
  every line counts as ending in a newline, so the file's last line matches ``"x\\n"``
  whether or not the file ends with one: its final-newline state is kept anyway). It must
  occur once, unless ``replace_all`` (every occurrence, left to right, not overlapping) or
  an ``expected`` count (exactly that many, all replaced). Several occurrences fail as
  ambiguous, naming their lines (the ``at`` fix can choose one).
- It becomes the new string; the edit sent is made of whole lines: the lines the old string
  spans are rewritten, lines the change keeps stay the file's.
- With ``matching: "whitespace"``, a string not found exactly is looked for on the lines it
  spans, each compared ignoring leading and trailing whitespace (it must then match whole
  lines, once); the new lines take the file's indentation, as for the line formats.
- Not found: the failure's estimated line and did-you-mean come from the lines it spans
  (``diagnosis``). It is *already applied* when the new string occurs once and lines it
  keeps from the old one (its first or last lines, equal in both) occur once in the file:
  they pin the new text where the old text would have been. A lone changed line pins
  nothing, so it is never already applied (no search of the whole file for the new text).
- An insert (the text editor's ``insert_line``) goes after that 1-based line (0: the top);
  it is already applied when its lines already follow that line.
"""

from __future__ import annotations

from ..ambiguity import MAX_COUNTED, candidate_words, places_diagnosis
from ..diagnosis import Diagnosis, diagnose
from ..matching import FileMatcher
from ..model import Block, ToolEdit, text_to_lines
from ..reindent import apply_reindent, reindent_offset
from .already_applied import AlreadyApplied
from .common import BlockFailure, Item, LocateOptions, Placement, Replacement, chosen_failure
from .common import common_ends as _common_ends

_WHAT = "old_string"  # how failures name the old text (every tool's word for it is close)


def locate_str_replace(block: Block, fm: FileMatcher, options: LocateOptions) -> Placement:
    tool = block.tool
    if tool is None:  # a block made by another module (the generic undone copy): not ours
        raise BlockFailure("str-replace block without its tool call", 0)
    if tool.insert_line is not None:
        return _insert(block, tool.insert_line, fm)
    text = _file_text(fm.lines)
    found = _occurrences(text, tool.old_text, _wanted(tool, text))
    if found:
        return _replace_found(block, tool, fm, text, found, options)
    if options.tolerant:
        tolerant = _tolerant(block, tool, fm, options)
        if tolerant is not None:
            return tolerant
    done = _already_applied(tool, text)
    if done is not None:
        return done
    needle = text_to_lines(tool.old_text)

    def explain() -> Diagnosis:
        tolerant_start = None
        if not options.tolerant:
            places = fm.find_all(needle, "whitespace", limit=2)
            tolerant_start = places[0] if len(places) == 1 else None
        return diagnose(fm, needle, f"{_WHAT} not found in the file",
                        tolerant_start=tolerant_start, allow_closest=False)

    raise BlockFailure(f"{_WHAT} not found in the file", explain=explain)


def _wanted(tool: ToolEdit, text: str) -> int:
    """How many occurrences to look for: all of them for ``replace_all``, one more than
    an expected count, else two (a second one makes it ambiguous)."""
    if tool.replace_all:
        return len(text) + 1
    return tool.expected + 1 if tool.expected else 2


def _file_text(lines: list[str]) -> str:
    return "".join([line + "\n" for line in lines])


def _occurrences(text: str, old: str, limit: int) -> list[int]:
    """Offsets of up to ``limit`` occurrences of ``old``, left to right, not overlapping."""
    found: list[int] = []
    if not old:
        return found
    pos = text.find(old)
    while pos >= 0 and len(found) < limit:
        found.append(pos)
        pos = text.find(old, pos + len(old))
    return found


class _Lines:
    """0-based line of offsets of a text, counted forward from the last one asked."""

    def __init__(self, text: str) -> None:
        self.text, self.offset, self.line = text, 0, 0

    def of(self, offset: int) -> int:
        if offset < self.offset:
            self.offset, self.line = 0, 0
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def _replace_found(block: Block, tool: ToolEdit, fm: FileMatcher, text: str,
                   found: list[int], options: LocateOptions) -> Placement:
    """Replace the occurrences the call asks for, or fail as ambiguous / wrong count."""
    if tool.expected is not None and len(found) != tool.expected:
        lines = _Lines(text)
        starts = [lines.of(p) for p in found[:10]]
        raise BlockFailure(
            f"expected {tool.expected} occurrences of {_WHAT}, found {len(found)} (at "
            f"{candidate_words(starts, len(found))})", starts[0])
    if len(found) > 1 and not (tool.replace_all or tool.expected):
        found = [_chosen_or_ambiguous(block, tool, fm, text, options)]
    return Placement(_replacements(fm.lines, text, found, tool.old_text, tool.new_text),
                     _Lines(text).of(found[0]), "exact")


def _chosen_or_ambiguous(block: Block, tool: ToolEdit, fm: FileMatcher, text: str,
                         options: LocateOptions) -> int:
    """The occurrence the ``at`` fix chose, while it is still that one; else the failure
    naming every place."""
    every = _occurrences(text, tool.old_text, MAX_COUNTED + 1)
    lines = _Lines(text)
    places = [lines.of(p) for p in every]
    needle = text_to_lines(tool.old_text)
    chosen = options.chosen_place(block)
    if chosen is not None:
        if chosen.nth < len(places) and places[chosen.nth] == chosen:
            return every[chosen.nth]
        raise chosen_failure(fm, block, None, chosen, needle, places)

    def reason_at(words: str) -> str:
        return (f"{_WHAT} occurs {len(every)} times ({words}): it must occur once; add "
                "surrounding lines that occur only once, or replace every one (replace_all)")

    raise BlockFailure(
        reason_at(candidate_words(places[:10], len(places))), places[0], ambiguous=True,
        explain=lambda: places_diagnosis(fm, places, len(needle), reason_at))


def _replacements(lines: list[str], text: str, found: list[int], old: str,
                  new: str) -> list[Replacement]:
    """Whole-line replacements writing ``new`` over each occurrence of ``old`` at ``found``
    (offsets in ``text``, the file's lines each ending in a newline); occurrences sharing a
    line are one replacement."""
    counter = _Lines(text)
    out: list[Replacement] = []
    i = 0
    while i < len(found):
        start = text.rfind("\n", 0, found[i]) + 1
        pieces: list[str] = []
        at = start
        end = _line_end(text, found[i] + len(old))
        while i < len(found) and found[i] < end:  # occurrences inside this region
            pieces += [text[at:found[i]], new]
            at = found[i] + len(old)
            end = max(end, _line_end(text, at))
            i += 1
        written = "".join(pieces) + text[at:end]
        if not written.endswith("\n") and end < len(text):
            # The new text ends where a line break was: the next line joins it.
            following = _line_end(text, end + 1)
            written, end = written + text[end:following], following
        first, last = counter.of(start), counter.of(end)
        out.append((first, last, _items(first, lines[first:last], written)))
    return out


def _line_end(text: str, offset: int) -> int:
    """The offset just after the line break ending the line that holds ``offset - 1``
    (``offset`` itself when the text before it ends a line)."""
    if offset > 0 and text[offset - 1] == "\n":
        return offset
    end = text.find("\n", offset)
    return len(text) if end < 0 else end + 1


def _items(first: int, old_lines: list[str], written: str) -> list[Item]:
    """The lines ``written`` as items over file lines from ``first``: lines equal at either
    end stay the file's, the rest is new text."""
    new_lines = text_to_lines(written)
    p, s = _common_ends(old_lines, new_lines)
    items: list[Item] = list(range(first, first + p))
    items += new_lines[p : len(new_lines) - s]
    items += range(first + len(old_lines) - s, first + len(old_lines))
    return items


def _tolerant(block: Block, tool: ToolEdit, fm: FileMatcher,
              options: LocateOptions) -> Placement | None:
    """The old string's lines matched ignoring surrounding whitespace, as whole lines, once
    (or every place, for ``replace_all``); the new lines take the file's indentation."""
    needle = text_to_lines(tool.old_text)
    if not _any_text(needle):
        return None
    limit = MAX_COUNTED + 1 if tool.replace_all else 2
    starts = _not_overlapping(fm.find_all(needle, "whitespace", limit=limit), len(needle))
    if not starts:
        return None
    if len(starts) > 1 and not tool.replace_all:
        starts = [_one_tolerant_place(block, fm, options, needle, starts)]
    new = text_to_lines(tool.new_text)
    p, s = _common_ends(needle, new)
    reps: list[Replacement] = []
    for start in starts:
        offset = reindent_offset(needle, fm.lines[start : start + len(needle)])
        items: list[Item] = list(range(start, start + p))
        items += [apply_reindent(t, offset) for t in new[p : len(new) - s]]
        items += range(start + len(needle) - s, start + len(needle))
        reps.append((start, start + len(needle), items))
    return Placement(reps, starts[0], "whitespace")


def _one_tolerant_place(block: Block, fm: FileMatcher, options: LocateOptions,
                        needle: list[str], starts: list[int]) -> int:
    """Of several tolerant places, the one the ``at`` fix chose while it still is; else the
    failure naming them."""
    chosen = options.chosen_place(block)
    if chosen is not None:
        if chosen.nth >= len(starts) or starts[chosen.nth] != chosen:
            raise chosen_failure(fm, block, None, chosen, needle, starts)
        return chosen

    def reason_at(words: str) -> str:
        return (f"{_WHAT} matches ignoring whitespace at {len(starts)} places ({words}): "
                "it must match once")

    raise BlockFailure(reason_at(candidate_words(starts[:10], len(starts))), starts[0],
                       ambiguous=True,
                       explain=lambda: places_diagnosis(fm, starts, len(needle), reason_at))


def _not_overlapping(starts: list[int], length: int) -> list[int]:
    kept: list[int] = []
    for start in starts:
        if not kept or start >= kept[-1] + length:
            kept.append(start)
    return kept


def _any_text(lines: list[str]) -> bool:
    return any(line.strip() for line in lines)


def _already_applied(tool: ToolEdit, text: str) -> AlreadyApplied | None:
    """The new string occurs once, pinned there by lines it keeps from the old string that
    occur once in the file (see the module docstring)."""
    if not tool.new_text or len(_occurrences(text, tool.new_text, 2)) != 1:
        return None
    if not any(len(_occurrences(text, piece, 2)) == 1 for piece in _kept_texts(tool)):
        return None
    at = text.find(tool.new_text)
    return AlreadyApplied([], text.count("\n", 0, at), "exact")


def _kept_texts(tool: ToolEdit) -> list[str]:
    """The new string's first and last lines that equal the old string's (as text, with
    their line breaks), those that are not blank."""
    old_lines, new_lines = text_to_lines(tool.old_text), text_to_lines(tool.new_text)
    p, s = _common_ends(old_lines, new_lines)
    head, tail = new_lines[:p], new_lines[len(new_lines) - s:]
    kept = []
    if _any_text(head):
        kept.append("".join(line + "\n" for line in head))
    if _any_text(tail):
        kept.append("\n".join(tail) + ("\n" if tool.new_text.endswith("\n") else ""))
    return kept


def _insert(block: Block, after: int, fm: FileMatcher) -> Placement:
    """The text editor's insert: the new lines after 1-based line ``after`` (0: the top)."""
    count = len(fm.lines)
    if after > count:
        raise BlockFailure(f"insert_line {after} is past the end of the file ({count} lines)",
                           max(count - 1, 0))
    new = list(block.new)
    if _any_text(new) and fm.lines[after : after + len(new)] == new:
        return AlreadyApplied([], after, "exact")
    items: list[Item] = list(new)
    return Placement([(after, after, items)], after, "exact")
