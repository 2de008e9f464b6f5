"""Re-parsing a response that grows (a response document being streamed into).

``IncrementalParse.update(text)`` always returns what ``parse_response(text, ...)`` returns,
but re-reads only the response's tail: from the start of the last block whose parse the new
text cannot change (the *cut*), with what lies before it carried over.

The cut rule. A re-parse may start at line P when
- P is the first line of a kept block whose file comes from its own lines (a path line, a
  ``--- ``/``## File``/``edit {`` line...; not a block taking the previous block's path, and
  not a fence line, which a path lookup below would skip), and P lies before the first line
  that changed (``changed_from``): nothing below P then looks above it;
- every span any parser read above P (kept, dropped, or re-read after a spill), every fence
  the parsers pair from the start (json fences, whole-file fences, shell fences) ends by P,
  and is *settled*: its extent and content are decided by unchanged lines (``settled_by``:
  a closing marker line; for a unified diff, the line that ends the hunk look-ahead; for a
  semantic-diff section, a heading after it or the next ``## File`` line; for a patch
  without End Patch, the next Begin Patch line...). A block still open (a pending warning),
  a fence not closed, a spill, a tool call whose JSON failed before any later call: not
  settled, so the cut stays above them;
- what crosses P is carried: the blocks, span warnings and shell commands above it, the
  semantic-diff batch counts, the lines holding U+FFFD.
The tail is parsed as a text whose lines above P are empty, so line numbers (and messages
naming them) need no shifting. Anything else (an edit above the cut, a parser's internal
error, a block right after the cut needing the path of one above it) parses the whole text.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from ..limits import DEFAULT_MAX_BLOCK_LINES
from ..model import Block, ParseResult, ParseWarning
from . import (
    CODE_BLOCK,
    WHOLE_FILE,
    SpanParse,
    no_block_hints,
    normalize_response,
    parse_response,
    parse_spans,
    parser_names,
    parsers_named,
    replacement_lines,
    replacement_warnings,
    semantic_diff,
    take_span_blocks,
)
from .marker_scan import MarkerLines
from .parsed_span import ParsedSpan
from .paths import is_fence_opener
from .response_text import LineCounter
from .settling import OPEN, SWALLOWER, Record, span_records
from .shell import shell_commands

__all__ = ["IncrementalParse", "first_difference"]

_SEMANTIC_DIFF = "semantic-diff"
_MOST_COUNTED = 10  # the largest semantic-diff batch limit
_TERMINATOR = re.compile(r"\r\n?|\n")



@dataclass(slots=True)
class _Entry:
    """One kept span of the current text, in response order."""

    start: int
    end: int
    blocks_from: int  # index of its first block in the result
    warnings_from: int  # index of its first warning in the span warnings
    cut: bool  # a re-parse may start at its first line


@dataclass(slots=True)
class _State:
    """The current text's parse and what a re-parse of its tail carries over."""

    raw: str
    cut: int  # the line the last parse started from, and its offset in ``raw``
    cut_raw: int
    evidence: int  # the lines above this one decide every record above ``cut``
    result: ParseResult
    entries: list[_Entry] = field(default_factory=list)
    span_warnings: list[ParseWarning] = field(default_factory=list)
    sorted_warnings: list[ParseWarning] = field(default_factory=list)  # by line, stable
    records: list[Record] = field(default_factory=list)
    shell: list[tuple[int, str]] = field(default_factory=list)  # (line, command)
    replacement: list[int] = field(default_factory=list)
    sections: list[tuple[int, str, str]] = field(default_factory=list)  # batch count log
    counted: dict[str, set[str]] = field(default_factory=dict)  # batch counts above ``cut``


class _Fallback(Exception):
    """The tail cannot be parsed alone: parse the whole text."""


class _CountedSections:
    """The semantic-diff parser counting its batch limits on from the counts above the cut;
    the first run's log of sections counted is kept (re-reads after a spill come later)."""

    def __init__(self, counted: dict[str, set[str]]) -> None:
        self.counted = counted
        self.log: list[tuple[int, str, str]] | None = None

    def __call__(self, text: str, lines: list[str], markers: MarkerLines) -> list[ParsedSpan]:
        limits = semantic_diff.BatchLimits(self.counted)
        spans = semantic_diff.find_blocks(text, lines, markers, limits)
        if self.log is None:
            self.log = limits.log
        return spans


class IncrementalParse:
    """The parse of one response across its versions (see the module docstring)."""

    def __init__(self, formats: set[str] | None = None, *,
                 max_block_lines: int | None = DEFAULT_MAX_BLOCK_LINES) -> None:
        self._formats = None if formats is None else set(formats)
        self._names = parser_names(self._formats)
        self._max_block_lines = max_block_lines
        self._state: _State | None = None
        self._result = ParseResult()
        self.last_reparse_from = 0  # the response line the last update parsed from

    @property
    def result(self) -> ParseResult:
        """The last update's result."""
        return self._result

    def update(self, text: str, changed_from: int | None = None) -> ParseResult:
        """The parse of ``text``; ``changed_from``: the lowest character offset that may
        differ from the previous text (None: found by comparing)."""
        state = self._state
        if not isinstance(text, str) or not text:
            self._state = None
            self._result = parse_response(text, self._formats,
                                          max_block_lines=self._max_block_lines)
            self.last_reparse_from = 0
            return self._result
        if state is not None and changed_from is None and text == state.raw:
            return self._result
        cut = self._cut(state, text, changed_from) if state is not None else None
        if cut is not None:
            try:
                self._state = self._parse_from(text, state, *cut)
            except _Fallback:
                cut = None
        if cut is None:
            self._state = self._parse_from(text, None, 0, 0, 0)
        self._result = self._state.result
        self.last_reparse_from = self._state.cut
        return self._result

    # -- what appended text cannot change (used by parsing.completion) ----------------------

    def unsettled_from(self) -> int | None:
        """The first line of a span or paired fence read in the current text that text
        appended to it could still change: one the complete lines do not decide (the last
        line, maybe partial, decides nothing). None: there is none."""
        state = self._state
        if state is None:
            return None
        last = self.last_line
        records = state.records
        # Those above the cut were settled when it was chosen: only the tail's are looked at.
        for r in range(bisect_left(records, (state.cut,)), len(records)):
            start, _, by = records[r]
            # A swallower's own blocks are decided by its own record; what spilled out of
            # it has records of its own, starting inside it.
            if by is None or (by > last and by != SWALLOWER):
                return start
        return None

    @property
    def last_line(self) -> int:
        """The index of the current text's last line (maybe partial)."""
        state = self._state
        if state is None:
            return 0
        return state.cut + _terminators(state.raw, state.cut_raw, len(state.raw))

    def line_offset(self, line: int) -> int:
        """Where line ``line`` of the current text starts (a character offset; lines below
        the last cut cost only the lines from there)."""
        state = self._state
        if state is None or line <= 0:
            return 0
        offset, wanted = (state.cut_raw, line - state.cut) if line >= state.cut else (0, line)
        if wanted:
            for count, m in enumerate(_TERMINATOR.finditer(state.raw, offset), start=1):
                if count == wanted:
                    return m.end()
            return len(state.raw)
        return offset

    def blocks_before(self, line: int) -> int:
        """How many blocks of the result stand in spans starting before ``line``."""
        state = self._state
        if state is None:
            return len(self._result.blocks)
        entries = state.entries
        k = bisect_left(entries, line, key=_entry_start)
        return entries[k].blocks_from if k < len(entries) else len(state.result.blocks)

    # -- where to cut ----------------------------------------------------------------------

    def _cut(self, state: _State, text: str, changed_from: int | None) -> tuple[
            int, int, int] | None:
        """``(line, raw offset, evidence)`` of the latest cut valid for ``text``; None: none
        (parse the whole text)."""
        old = state.raw
        if changed_from is None:
            changed_from = first_difference(old, text)
        changed_from = max(0, min(changed_from, len(old), len(text)))
        if changed_from < state.cut_raw:
            return None
        # The first line that may differ: the lines above it are whole and unchanged.
        changed = state.cut + _terminators(old, state.cut_raw, changed_from)
        if state.cut and (state.evidence > changed or state.cut >= changed):
            return None
        best, evidence = state.cut, state.evidence
        records, entries = state.records, state.entries
        r = bisect_left(records, (state.cut,))
        reach = state.cut  # the furthest line a record above the candidate reaches
        reached = evidence
        for entry in entries[bisect_right(entries, state.cut, key=_entry_start):]:
            if entry.start >= changed:
                break
            while r < len(records) and records[r][0] < entry.start:
                _, end, by = records[r]
                if by is None or by > changed:
                    return self._cut_at(state, best, evidence)
                reach, reached = max(reach, end), max(reached, by)
                r += 1
            if entry.cut and reach <= entry.start:
                best, evidence = entry.start, reached
        return self._cut_at(state, best, evidence)

    @staticmethod
    def _cut_at(state: _State, line: int, evidence: int) -> tuple[int, int, int]:
        """The cut at ``line`` with its offset in the current raw text."""
        offset = state.cut_raw
        wanted = line - state.cut
        if wanted:
            for count, m in enumerate(_TERMINATOR.finditer(state.raw, offset), start=1):
                if count == wanted:
                    offset = m.end()
                    break
        return line, offset, evidence

    # -- parsing the tail -------------------------------------------------------------------

    def _parse_from(self, text: str, state: _State | None, cut: int, cut_raw: int,
                    evidence: int) -> _State:
        """Parse ``text`` from line ``cut`` (raw offset ``cut_raw``), carrying over what
        ``state`` (the previous text's) holds above it."""
        tail = normalize_response("\n" * cut + text[cut_raw:] if cut else text)
        prefix = _Prefix(state, cut) if state is not None and cut else _Prefix(None, 0)
        counter = _CountedSections(prefix.counted)
        parsers = [(name, counter if name == _SEMANTIC_DIFF else find)
                   for name, find in parsers_named(self._names)]
        result = ParseResult()
        parsed = parse_spans(tail, parsers, self._max_block_lines, result, cut)
        internal_errors = bool(result.warnings)
        if internal_errors and cut:
            raise _Fallback
        new = _State(text, cut, cut_raw, evidence, result, entries=prefix.entries,
                     span_warnings=prefix.span_warnings, records=prefix.records,
                     counted=prefix.counted)
        result.blocks = prefix.blocks
        carried = len(prefix.span_warnings)
        _take(parsed, new, cut)
        new.sorted_warnings = prefix.sorted_warnings + self._tail_warnings(
            tail, parsed, new.span_warnings[carried:], result, cut)
        records = span_records(tail, parsed, self._names, internal_errors)
        new.shell = prefix.shell + _shell(tail, records)
        records.sort(key=_record_start)
        new.records += records
        new.sections = prefix.sections + (counter.log or [])
        new.replacement = (prefix.replacement + replacement_lines(tail)
                           if not tail.isascii() and "\ufffd" in tail else prefix.replacement)
        result.warnings = _with_replacements(new.sorted_warnings, new.replacement)
        result.shell_suggestions = list(dict.fromkeys(c.strip() for _, c in new.shell))
        return new


    def _tail_warnings(self, tail: str, parsed: SpanParse, span_warnings: list[ParseWarning],
                       result: ParseResult, cut: int) -> list[ParseWarning]:
        """The tail's warnings, in the order parse_response sorts them (a stable sort by
        line); those above the cut are all the prefix's (records reach past warnings)."""
        warnings = result.warnings + span_warnings
        if not result.blocks and (CODE_BLOCK in self._names or WHOLE_FILE not in self._names):
            if cut:
                raise _Fallback  # the hints of a response with no block: a whole parse's
            warnings += no_block_hints(tail, parsed.lines, parsed.markers, result, self._names,
                                       warned=warnings)
        warnings.sort(key=_line_of)
        return warnings


def _record_start(record: Record) -> int:
    return record[0]


def _with_replacements(warnings: list[ParseWarning], lines: list[int]) -> list[ParseWarning]:
    """``warnings`` (sorted by line) with the U+FFFD warnings of ``lines``, each after the
    warnings of its line (parse_response adds them last, then sorts stably)."""
    out = list(warnings)
    for warning in replacement_warnings(lines):
        out.insert(bisect_right(out, warning.response_line, key=_line_of), warning)
    return out


def _line_of(warning: ParseWarning) -> int:
    return warning.response_line


def _entry_start(entry: _Entry) -> int:
    return entry.start


class _Prefix:
    """What the previous text's parse holds above line ``cut`` (nothing for 0)."""

    def __init__(self, state: _State | None, cut: int) -> None:
        if state is None:
            self.entries: list[_Entry] = []
            self.blocks: list[Block] = []
            self.span_warnings: list[ParseWarning] = []
            self.sorted_warnings: list[ParseWarning] = []
            self.records: list[Record] = []
            self.shell: list[tuple[int, str]] = []
            self.replacement: list[int] = []
            self.sections: list[tuple[int, str, str]] = []
            self.counted: dict[str, set[str]] = {}
            return
        k = bisect_left(state.entries, cut, key=_entry_start)
        self.entries = state.entries[:k]
        blocks_from, warnings_from = ((state.entries[k].blocks_from,
                                       state.entries[k].warnings_from)
                                      if k < len(state.entries)
                                      else (len(state.result.blocks), len(state.span_warnings)))
        self.blocks = state.result.blocks[:blocks_from]
        self.span_warnings = state.span_warnings[:warnings_from]
        self.sorted_warnings = state.sorted_warnings[
            :bisect_left(state.sorted_warnings, cut, key=_line_of)]
        self.records = state.records[:bisect_left(state.records, (cut,))]
        self.shell = state.shell[:bisect_left(state.shell, (cut,))]
        self.replacement = [line for line in state.replacement if line < cut]
        s = bisect_left(state.sections, (cut,))
        self.sections = state.sections[:s]
        counted = {kind: set(files) for kind, files in state.counted.items()}
        for _, kind, path in state.sections[bisect_left(state.sections, (state.cut,)):s]:
            files = counted.setdefault(kind, set())
            if len(files) <= _MOST_COUNTED:  # past every limit a count says nothing more
                files.add(path)
        self.counted = counted


def _take(parsed: SpanParse, state: _State, cut: int) -> None:
    """The kept spans' blocks and warnings into ``state`` (as ``parsing._take_blocks``
    does), each span an entry; a block below the cut needing the path of a block above it
    cannot be read from the tail."""
    result, lines = state.result, parsed.lines
    previous: Block | None = None
    for span in parsed.kept:
        own_files = bool(span.blocks) and all(block.file for block in span.blocks)
        state.entries.append(_Entry(span.start, span.end, len(result.blocks),
                                    len(state.span_warnings),
                                    own_files and _may_cut_at(lines, span)))
        state.span_warnings.extend(span.warnings)
        if cut and previous is None and span.blocks and not span.blocks[0].file:
            raise _Fallback  # its path would come from a block above the cut
        previous = take_span_blocks(span, previous, lines, result.blocks, state.span_warnings)


def _may_cut_at(lines: list[str], span: ParsedSpan) -> bool:
    """Whether a re-parse may start at ``span``'s first line: a line no path lookup from
    below looks past (not blank, not a fence opener), not a SEARCH line whose block takes
    the path of the block above."""
    first = lines[span.start]
    return bool(first.strip()) and not is_fence_opener(first) and not first.startswith("<<<<<")


def _shell(text: str, records: list[Record]) -> list[tuple[int, str]]:
    """The tail's shell commands by line; its shell fences go to ``records``."""
    fences: list[tuple[int, int]] = []
    found = shell_commands(text, fences)
    counter = LineCounter(text)
    commands = [(counter.line_of(offset), command) for offset, command in found]
    for start, end in fences:
        opener = counter.line_of(start)
        close = counter.line_of(end) + 1 if end >= 0 else None
        records.append((opener, OPEN if close is None else close, close))
    return commands


def _terminators(text: str, start: int, end: int) -> int:
    """The line breaks in ``text[start:end]`` (``\\r\\n`` is one)."""
    if end <= start:
        return 0
    return (text.count("\n", start, end) + text.count("\r", start, end)
            - text.count("\r\n", start, end))


def first_difference(old: str, new: str) -> int:
    """The lowest offset where ``old`` and ``new`` differ (the shorter length when one
    starts with the other)."""
    n = min(len(old), len(new))
    if new.startswith(old if len(old) == n else old[:n]):
        return n
    low, high = 0, n  # old[:low] == new[:low]; they differ before high
    while high - low > 1:
        middle = (low + high) // 2
        if new.startswith(old[low:middle], low):
            low = middle
        else:
            high = middle
    return low
