"""What an elision inside a shown definition stands for (docs/formats.md, `code-block`):
the file's lines between the shown lines around it, located within the file's definition
(ignoring surrounding whitespace) and unique there, or the block fails."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz.fuzz import ratio

from ..matching import strip_ws
from .results import MergeError, fail
from .whole import is_closer

# A new line this close to a line an elision keeps (rapidfuzz ratio, 0-100) may be that line
# changed: adding it beside the old one would keep both.
_CHANGED_LINE_RATIO = 80
# Farther from where it goes, only a line this close counts as changed (`let n = 1` for
# `let n = 0`), not one of a list's items (`- name: Lint` beside `- name: Test`).
_FAR_CHANGED_LINE_RATIO = 85
_SAME_JUMP_RATIO = 50  # for a line next to it that is the same jump (see _changes)
_JUMPS = frozenset({"return", "raise", "throw", "yield", "break", "continue", "exit"})
_FIRST_WORD = re.compile(r"[\w$@.]+")


@dataclass(frozen=True)
class ElisionPlaces:
    """The file's lines and the snippet's, with the snippet's elision lines."""

    file_lines: list[str]
    code_lines: list[str]
    elided: frozenset[int]

    def span(self, code_body: tuple[int, int], file_body: tuple[int, int], e: int,
             file_pos: int) -> tuple[int, int]:
        """The file lines ``[lo, hi)`` that the elision line ``e`` of the snippet's lines
        ``code_body`` stands for, in the file's lines ``file_body`` from ``file_pos`` on."""
        code_lo, code_hi = code_body
        prev = next((j for j in range(e - 1, code_lo - 1, -1)
                     if j not in self.elided and self.code_lines[j].strip()), None)
        nxt = next((j for j in range(e + 1, code_hi)
                    if j not in self.elided and self.code_lines[j].strip()), None)
        if prev is None:
            lo = file_pos
        else:
            try:
                lo = self.line_in(file_body, prev, file_pos, first=prev == code_lo) + 1
            except MergeError as not_there:
                if not_there.failure.kind != "not-found":
                    raise
                lo = self._after_new_lines(code_body, file_body, prev, file_pos, not_there)
        if nxt is None:
            return lo, file_body[1]
        try:
            hi = self.line_in(file_body, nxt, lo, last=self._closes(nxt, code_hi))
        except MergeError as not_there:
            if not_there.failure.kind != "not-found":
                raise
            hi = self._before_new_lines(code_body, file_body, nxt, lo, not_there)
        return lo, max(hi, lo)

    def _after_new_lines(self, code_body: tuple[int, int], file_body: tuple[int, int],
                         prev: int, file_pos: int, not_there: MergeError) -> int:
        """Where an elision starts when the shown lines before it are new: after the file
        line of the nearest shown line before them that the file has (the definition's first
        line at the latest), with no other elision between; and after the file line that
        follows it when a new line resembles that one (the line changed, not an addition)."""
        code_lo = code_body[0]
        for j in range(prev - 1, code_lo - 1, -1):
            if j in self.elided:
                break
            if not self.code_lines[j].strip():
                continue
            try:
                lo = self.line_in(file_body, j, file_pos, first=j == code_lo) + 1
            except MergeError:
                continue
            new = self.code_lines[j + 1:prev + 1]
            if lo < file_body[1] and any(_changes(line, self.file_lines[lo]) for line in new):
                lo += 1
            return lo
        raise not_there

    def _before_new_lines(self, code_body: tuple[int, int], file_body: tuple[int, int],
                          nxt: int, lo: int, not_there: MergeError) -> int:
        """Where an elision ends when the shown lines after it are new: at the file line of
        the first shown line after them that the file has (or the body's last line), with no
        other elision between; before the file line above it when a new line resembles that
        one (the line changed, not an addition). A new line resembling another line the
        elision keeps may be that line changed too: the block fails rather than keep both."""
        code_hi = code_body[1]
        for j in range(nxt + 1, code_hi + 1):
            if j < code_hi and (j in self.elided or not self.code_lines[j].strip()):
                if j in self.elided:
                    break
                continue
            if j == code_hi:  # new lines up to the end: the elision keeps the rest
                hi = file_body[1]
            else:
                try:
                    hi = self.line_in(file_body, j, lo, last=self._closes(j, code_hi))
                except MergeError:
                    continue
            new = [line for line in self.code_lines[nxt:j] if line.strip()]
            # At the end, one line can be the last line changed; several are an addition.
            if hi > lo and (j < code_hi or len(new) == 1) and any(
                    _changes(line, self.file_lines[hi - 1]) for line in new):
                hi -= 1
            if any(_resembles(line, self.file_lines[lo:hi]) for line in new):
                break
            return hi
        raise not_there

    def _closes(self, index: int, code_hi: int) -> bool:
        """Whether the snippet's line ``index`` is the body's last and only closes it
        (``}``, ``end``): then the file's last line stands for it."""
        return index == code_hi - 1 and is_closer(strip_ws(self.code_lines[index]))

    def line_in(self, file_body: tuple[int, int], code_index: int, start: int,
                 first: bool = False, last: bool = False) -> int:
        """The one file line of ``file_body`` (from ``start``) equal to the snippet's line
        ``code_index`` ignoring surrounding whitespace; the body's own first or last line
        stands for the snippet's when they differ."""
        wanted = strip_ws(self.code_lines[code_index])
        lo, hi = max(start, file_body[0]), file_body[1]
        found = [i for i in range(lo, hi) if strip_ws(self.file_lines[i]) == wanted]
        if len(found) == 1:
            return found[0]
        if first:
            return file_body[0]
        if last:
            return hi - 1
        if found:
            raise fail("ambiguous", f"The line `{wanted}` next to an elision is at several "
                       f"places in the file (lines {found[0] + 1} and {found[1] + 1}); show "
                       "one more line around the elision", found[0], candidates=tuple(found))
        raise fail("not-found", f"The line `{wanted}` next to an elision is not in the file's "
                   f"lines {lo + 1}-{hi}", lo, unplaced=(self.code_lines[code_index],))


def _changes(line: str, old: str) -> bool:
    """Whether ``line``, shown next to where the file has ``old``, is ``old`` changed: they
    resemble each other, or both are the same jump (``return``, ``raise``) and half alike:
    two returns do not follow each other (``return f(x)`` -> ``return f(x, strict=True)``),
    while two ``print(...)`` calls may."""
    text, before = strip_ws(line), strip_ws(old)
    score = ratio(text, before)
    if score >= _CHANGED_LINE_RATIO:
        return True
    word, old_word = _FIRST_WORD.match(text), _FIRST_WORD.match(before)
    return bool(word and old_word and word.group() == old_word.group()
                and word.group() in _JUMPS and score >= _SAME_JUMP_RATIO)


def _resembles(line: str, lines: list[str]) -> bool:
    """Whether ``line`` is close to one of ``lines`` (a changed line rather than a new
    one), ignoring surrounding whitespace."""
    text = strip_ws(line)
    return any(ratio(text, strip_ws(other)) >= _FAR_CHANGED_LINE_RATIO for other in lines)
