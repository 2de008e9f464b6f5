"""What decides a span while a response grows, per format: the rules
:mod:`.incremental` (where a re-parse may start) and :mod:`.completion` (which blocks are
complete) read through each span's *settling line*.

A span is settled once the line before which unchanged text decides its extent and content
is complete. By default that is the span's own last line (a closing marker); a format whose
spans are decided later names its rule in its registry entry (``Format.settling``, a key of
:data:`SETTLING_RULES`), and a format whose parser pairs fences from the start of the text
names them (``Format.fences``, a key of :data:`FENCE_RULES`). A name the registry uses and
this module lacks is an error when it is imported.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass

from ..formats import FORMAT_NAMES, FORMATS
from . import SpanParse, apply_patch, hunk_patch, semantic_diff, unified_diff, whole_file
from .parsed_span import ParsedSpan
from .response_text import LineCounter

__all__ = ["FENCE_RULES", "OPEN", "SETTLING_RULES", "SWALLOWER", "Record", "span_records"]

OPEN = 1 << 62  # the end of a fence not closed: past any line
# The settling line of a kept span another one spilled out of: never settled for a cut (the
# spill is read again with it masked, in the tail), though its own record may be.
SWALLOWER = OPEN

# A span or fence read: (first line, line after it, the line before which unchanged text
# decides it, or None when the text so far does not).
Record = tuple[int, int, "int | None"]


def span_records(text: str, parsed: SpanParse, names: frozenset[str] | set[str],
             internal_errors: bool) -> list[Record]:
    """Every span and paired fence read in the tail, with the line deciding it."""
    tail = _Tail.of(parsed)
    out: list[Record] = []
    for span in parsed.spans:
        by = None if internal_errors else _settled_by(tail, span)
        # A span's warnings may stand below it (a patch ended before a stray line): it reaches
        # past them, so a cut never leaves one of them above it.
        reach = max([span.end, span.start + 1, *(w.response_line + 1 for w in span.warnings)])
        out.append((span.start, reach, by))
    out += [(span.start, span.end, SWALLOWER) for span in parsed.swallowers]
    return out + _fence_records(text, parsed, names)


@dataclass(frozen=True, slots=True)
class _Tail:
    """What the settling rules read of the tail: its lines and marker lines."""

    lines: list[str]
    edit_calls: list[int]  # hunk-patch's ``edit {`` lines
    sections: list[int]  # semantic-diff's ``## File`` lines
    begins: list[int]  # apply-patch's ``*** Begin Patch`` lines

    @classmethod
    def of(cls, parsed: SpanParse) -> _Tail:
        lines, starts = parsed.lines, parsed.markers.starts
        return cls(lines, [line for line, _ in starts.get("edit_calls", ())],
                   [line for line, _ in starts.get("file_sections", ())],
                   [line for line, _ in starts.get("patch_markers", ())
                    if lines[line].rstrip() == apply_patch.BEGIN])


def _closed(span: ParsedSpan) -> int:
    """A span decided by its own last line (a closing marker)."""
    return max(span.end, span.start + 1)


def _next_edit_call(tail: _Tail, span: ParsedSpan) -> int | None:
    """A hunk-patch ``edit {...}`` call that failed was decoded up to the next call's line
    (or the text's end)."""
    if span.blocks or not tail.lines[span.start].startswith("edit"):
        return _closed(span)
    following = bisect_left(tail.edit_calls, span.start + 1)
    if following == len(tail.edit_calls) or tail.edit_calls[following] >= len(tail.lines) - 1:
        return None
    return tail.edit_calls[following] + 1


# How a span is settled, by rule name: the line before which unchanged text decides it.
SETTLING_RULES: dict[str, Callable[[_Tail, ParsedSpan], int | None]] = {
    # a unified diff: the line that ends the hunk look-ahead
    "hunk-look-ahead": lambda tail, span: unified_diff.settled_by(tail.lines, span.end),
    # a semantic-diff section: a heading after it or the next ``## File`` line
    "next-file-section": lambda tail, span: semantic_diff.settled_by(
        tail.lines, span.start, span.end, tail.sections),
    # a patch without ``*** End Patch``: the next ``*** Begin Patch`` line
    "next-begin-patch": lambda tail, span: apply_patch.settled_by(
        tail.lines, span.start, span.end, tail.begins),
    "next-edit-call": _next_edit_call,
}


def _json_fences(text: str, parsed: SpanParse) -> list[Record]:
    """hunk-patch's json fences, closed or not."""
    counter = LineCounter(text)
    out: list[Record] = []
    for line, end in hunk_patch.json_fence_ends(text, parsed.markers.starts["json_fences"]):
        close = counter.line_of(end) + 1 if end >= 0 else None
        out.append((line, OPEN if close is None else close, close))
    return out


def _code_fences(text: str, parsed: SpanParse) -> list[Record]:
    """The fences whole-file and code-block pair, closed or not."""
    return [(line, OPEN, None) if end < 0 else (line, end, by)
            for line, end, by in whole_file.fence_records(text)]


# The fences a format's parser pairs from the start of the text, by rule name.
FENCE_RULES: dict[str, Callable[[str, SpanParse], list[Record]]] = {
    "json": _json_fences,
    "code": _code_fences,
}
# By format name (a KeyError here: the registry names a rule this module lacks).
_SETTLING = {f.name: SETTLING_RULES[f.settling] for f in FORMATS if f.settling is not None}
_FENCES = {f.name: FENCE_RULES[f.fences] for f in FORMATS if f.fences is not None}


def _fence_records(text: str, parsed: SpanParse,
                   names: frozenset[str] | set[str]) -> list[Record]:
    """The fences the parsers of ``names`` pair from the start of the text (each rule
    once: whole-file and code-block pair the same fences)."""
    rules = dict.fromkeys(_FENCES[name] for name in FORMAT_NAMES
                          if name in names and name in _FENCES)
    return [record for rule in rules for record in rule(text, parsed)]


def _settled_by(tail: _Tail, span: ParsedSpan) -> int | None:
    """The line before which unchanged text decides ``span`` (None: not yet decided)."""
    if any(warning.pending for warning in span.warnings):
        return None
    rule = _SETTLING.get(span.format) if span.format is not None else None
    return _closed(span) if rule is None else rule(tail, span)
