"""Merge by content (docs/formats.md, `code-block`): a snippet with no grammar, or the lines
of a snippet that are no definition, placed by what they say.

Each run of shown lines between elisions replaces the file's lines from where its head is to
where its tail is:
- the head is the run's shortest prefix found exactly once in the file (after the previous
  run), as old text is located (exact, and whitespace-blind when asked);
- the tail is an occurrence of the run's last line after the head; when there are several, the
  one whose span is closest to the run (fewest lines removed plus added, compared ignoring
  surrounding whitespace) wins, and a tie is ambiguous;
- a run whose span would lose more than half of its non-blank lines is refused (the snippet
  never deletes lines it does not show).
The lines an elision stands for, and every line outside the spans, stay the file's.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..matching import EXACT_ONLY, WHITESPACE_LADDER, FileMatcher, strip_ws
from ..reindent import apply_reindent, reindent_offset
from ..removed_lines import non_blank, removes_most_of
from .elisions import split_runs
from .results import fail

# How far past the head a run's tail is looked for: a span this much longer than its run
# loses more than half of its lines, which the guard refuses anyway.
_SPAN_SLACK = 2
_MAX_TAIL_CANDIDATES = 64
_MAX_CANDIDATES = 50  # places listed for an ambiguous run (the `at` fix offers each)
# A prefix this long still found at several places is ambiguous: each longer one is another
# search of the file (a run of repeated lines would cost one per line).
_MAX_PREFIX = 64


@dataclass(frozen=True)
class Span:
    """File lines ``[start, end)`` that a run of shown lines replaces, and its new lines."""

    start: int
    end: int
    new: list[str]
    level: str


def levels_for(whitespace: bool) -> tuple[str, ...]:
    return WHITESPACE_LADDER if whitespace else EXACT_ONLY


def content_spans(fm: FileMatcher, code_lines: list[str], elided: list[int],
                  whitespace: bool, start: int = 0, end: int | None = None,
                  at_line: int | None = None) -> list[Span]:
    """Where each run of ``code_lines`` between the ``elided`` lines goes in the file's lines
    ``[start, end)``, in order; raises a merge failure when one cannot be placed. A run found
    at several places takes the one starting at ``at_line`` (the `at` fix) when it is one."""
    levels = levels_for(whitespace)
    spans: list[Span] = []
    pos = start
    for lo, hi in split_runs(code_lines, elided):
        run = code_lines[lo:hi]
        if _shown_unchanged_at_several_places(fm, run, pos, end):
            continue  # a no-op wherever it is (a lone `}` after an elision)
        span = locate_run(fm, run, pos, end, levels, at_line)
        spans.append(span)
        pos = span.end
    return spans


def _shown_unchanged_at_several_places(fm: FileMatcher, run: list[str], pos: int,
                                       end: int | None) -> bool:
    """Whether ``run`` is in the file exactly as shown at two places or more: replacing it
    changes nothing wherever it is, so it places nothing and is no ambiguity."""
    return len(fm.find_all(run, "exact", pos, end, limit=2)) > 1


def locate_run(fm: FileMatcher, run: list[str], pos: int, end: int | None,
               levels: tuple[str, ...], at_line: int | None = None) -> Span:
    """The span of the file that ``run`` (non-blank at both ends) replaces."""
    head, head_len, level = _unique_prefix(fm, run, pos, end, levels, at_line)
    new = _reindented(run, head_len, fm.lines[head:head + head_len], level)
    if head_len == len(run) or fm.matches_at(run, head, level):
        return Span(head, head + len(run), new, level)
    tail = _closest_tail(fm, run, head, head + head_len, end)
    _refuse_losing_most(fm.lines[head:tail], run, head)
    return Span(head, tail, new, level)


def _unique_prefix(fm: FileMatcher, run: list[str], pos: int, end: int | None,
                   levels: tuple[str, ...], at_line: int | None) -> tuple[int, int, str]:
    """``(start, length, level)`` of the shortest prefix of ``run`` found once (or at
    ``at_line`` among several)."""
    previous = 0  # the length of the last prefix found at several places
    for k in range(1, min(len(run), _MAX_PREFIX) + 1):
        found = fm.locate(run[:k], levels, pos, end, limit=2)
        if found.unique and found.level is not None:
            return found.starts[0], k, found.level
        if not found.starts:
            break
        previous = k
    if previous:
        every = fm.locate(run[:previous], levels, pos, end, limit=_MAX_CANDIDATES)
        if at_line in every.starts and every.level is not None:
            return at_line, previous, every.level
        raise fail("ambiguous", f"The lines starting with {_quote(run[0])} are at several "
                   "places in the file; show more of the lines around the change",
                   every.starts[0], candidates=tuple(every.starts))
    raise fail("not-found", f"The code block's line {_quote(run[0])} is not in the file",
               None, unplaced=tuple(run))


def _closest_tail(fm: FileMatcher, run: list[str], head: int, lo: int,
                  end: int | None) -> int:
    """The end (exclusive) of the span from ``head`` whose last line is the run's last line,
    closest to the run."""
    last = strip_ws(run[-1])
    stop = min(len(fm.lines) if end is None else end, head + _SPAN_SLACK * len(run) + 8)
    ends = [i + 1 for i in range(lo, stop) if strip_ws(fm.lines[i]) == last]
    ends = ends[:_MAX_TAIL_CANDIDATES]
    if not ends:
        raise fail("not-found", f"The code block's last line {_quote(run[-1])} is not in the "
                   f"file after line {head + 1}; show the file's lines up to the end of the "
                   "change", head, unplaced=tuple(run))
    scored = sorted((_distance(fm.lines[head:e], run), e) for e in ends)
    if len(scored) > 1 and scored[0][0] == scored[1][0]:
        tied = tuple(e - 1 for d, e in scored if d == scored[0][0])
        raise fail("ambiguous", f"The code block's last line {_quote(run[-1])} ends it at "
                   "several places; show more of the lines around the change", head,
                   candidates=tied)
    return scored[0][1]


def _distance(span: list[str], run: list[str]) -> int:
    """Lines removed plus lines added from ``span`` to ``run`` (as multisets)."""
    old, new = Counter(non_blank(span)), Counter(non_blank(run))
    return sum((old - new).values()) + sum((new - old).values())


def _refuse_losing_most(span_lines: list[str], run: list[str], head: int) -> None:
    too_many = removes_most_of(span_lines, run)
    if too_many is not None:
        removed, total = too_many
        raise fail("not-found", f"The code block would replace lines {head + 1}-"
                   f"{head + len(span_lines)} and remove {removed} of their {total} non-blank "
                   "lines; show the lines it keeps, or mark left-out lines with an elision "
                   "comment", head, unplaced=tuple(run))


def _reindented(run: list[str], head_len: int, file_head: list[str], level: str) -> list[str]:
    """``run`` re-indented by the consistent offset between its head and the file lines the
    head matched (nothing changes for an exact match or an inconsistent offset)."""
    if level == "exact":
        return run
    offset = reindent_offset(run[:head_len], file_head)
    return run if offset is None else [apply_reindent(line, offset) for line in run]


def apply_spans(file_lines: list[str], spans: list[Span]) -> list[str]:
    """``file_lines`` with each span replaced by its new lines (spans in order, disjoint)."""
    out: list[str] = []
    pos = 0
    for span in spans:
        out.extend(file_lines[pos:span.start])
        out.extend(span.new)
        pos = span.end
    out.extend(file_lines[pos:])
    return out


def _quote(line: str) -> str:
    text = strip_ws(line)
    return f"`{text[:60]}…`" if len(text) > 60 else f"`{text}`"
