"""Text documents as editors see them: lines, line endings, BOM and final newline.

Editors (VS Code, Neovim, LSP) count ``\\r\\n``, ``\\n`` and a lone ``\\r`` as line breaks, so
the engine does too: a block's line numbers then agree with the editor's. A leading U+FEFF
(BOM) is not part of the text (line 0 starts after it, no edit covers it).

A document's ``lines`` carry no terminators and a final line break does not add an empty
last line: ``"a\\nb\\n"`` → ``["a", "b"]`` with ``final_newline=True``; ``"a\\nb"`` →
``["a", "b"]`` with ``final_newline=False``; ``""`` → ``[]``.

Edits leave everything outside them alone: :meth:`LineOrigins.segments` turns the final
line list of a file plus its :class:`LineOrigins` (which original line each current line
still is) into the changed runs, and :func:`segment_edit` each run into a minimal whole-line
:class:`TextEdit` against the original text, written with the file's own line ending and
keeping its final-newline state.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate
from operator import itemgetter

from .matching import LineIndex
from .model import TextEdit, text_to_lines

BOM = "\ufeff"
_BREAK_RE = re.compile(r"\r\n|\r|\n")


@dataclass
class TextDoc:
    """One file's text, split the way editors split it."""

    text: str  # BOM-less text, original line endings
    lines: list[str]  # without terminators; no empty element for a final line break
    eol: str  # dominant line ending (see dominant_eol; "\n" when none)
    final_newline: bool
    has_bom: bool = False
    uniform_eol: bool = True  # every line break is ``eol`` (fast rendering path)
    # Each line's own break, made when a mixed-EOL text is edited (see line_endings).
    _endings: list[str] | None = field(default=None, repr=False, compare=False)

    def line_endings(self) -> list[str]:
        """The line break ending each line, in order (one fewer than the lines when the
        text has no final newline)."""
        if self._endings is None:
            self._endings = _BREAK_RE.findall(self.text)
        return self._endings


def detect_eol(text: str) -> str:
    """The style of the first line break in ``text`` ("\\n" if it has none)."""
    m = _BREAK_RE.search(text)
    return m.group(0) if m else "\n"


def dominant_eol(text: str) -> str:
    """The most frequent line break style of ``text``; on a tie, the first line break's
    ("\n" if it has none)."""
    first = detect_eol(text)
    crlf = text.count("\r\n")
    counts = {"\r\n": crlf, "\n": text.count("\n") - crlf, "\r": text.count("\r") - crlf}
    most = max(counts.values())
    return first if counts[first] == most else max(counts, key=counts.__getitem__)


def _is_uniform(text: str, eol: str) -> bool:
    if eol == "\n":
        return "\r" not in text
    if eol == "\r":
        return "\n" not in text
    crlf = text.count("\r\n")
    return crlf == text.count("\n") == text.count("\r")


def parse_text(raw: str) -> TextDoc:
    """Build a :class:`TextDoc` from a snapshot's text (which may start with a BOM)."""
    has_bom = raw.startswith(BOM)
    text = raw[1:] if has_bom else raw
    eol = detect_eol(text)
    uniform = _is_uniform(text, eol)
    return TextDoc(
        text=text,
        lines=text_to_lines(text),
        eol=eol if uniform else dominant_eol(text),
        final_newline=text.endswith(("\n", "\r")),
        has_bom=has_bom,
        uniform_eol=uniform,
    )


def exact_index(doc: TextDoc) -> LineIndex:
    """The exact :class:`LineIndex` of ``doc.lines``. When every line of the text ends in
    ``"\n"`` (no CR, final newline), the text itself is searched: no joined copy."""
    return LineIndex(doc.lines, text=doc.text if is_lf_text(doc) else None)


class PreparedText:
    """One snapshot text's parse and exact line index, built lazily and reusable by every
    plan that reads this very text (the server keeps one per open buffer version, so a
    preview over 200 unchanged buffers does not re-split and re-join them each time).

    Read-only once built: the planner copies ``doc.lines`` before changing anything and
    only searches ``base``. It describes exactly the string object it was made from:
    :meth:`for_text` hands it out only for that object (the planner checks identity, and
    the object keeps the string alive, so a newer buffer text can never match a stale
    parse). Lazy fields may be built by two threads at once; both build the same value.
    """

    __slots__ = ("_base", "_doc", "raw")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self._doc: TextDoc | None = None
        self._base: LineIndex | None = None

    def for_text(self, raw: str) -> PreparedText | None:
        """Itself when it was made from ``raw`` (the same object), else None."""
        return self if raw is self.raw else None

    @property
    def doc(self) -> TextDoc:
        doc = self._doc
        if doc is None:
            doc = self._doc = parse_text(self.raw)
        return doc

    @property
    def base(self) -> LineIndex:
        """The exact :class:`LineIndex` of ``doc.lines``."""
        base = self._base
        if base is None:
            base = self._base = exact_index(self.doc)
        return base


# ------------------------------------------------------------------ edits from provenance


def _append_piece(pieces: list[tuple[int | None, int]], orig: int | None, length: int) -> None:
    """Append a piece, merged into the last one when it continues it (written lines after
    written lines, or the next original lines)."""
    if pieces:
        last_o, last_len = pieces[-1]
        if (orig is None and last_o is None) or (
            orig is not None and last_o is not None and last_o + last_len == orig
        ):
            pieces[-1] = (last_o, last_len + length)
            return
    pieces.append((orig, length))


class LineOrigins:
    """Which original line each current line of a file still is, as runs (a piece table).

    A piece ``(orig_start, length)`` is ``length`` current lines that are original lines
    ``orig_start …`` unchanged; ``(None, length)`` is lines some edit wrote. Edits replace
    ranges and never reorder kept lines, so original starts only increase along the pieces.
    Pieces stay few (a handful per block), which keeps composing and diffing cheap however
    long the file is.
    """

    __slots__ = ("_starts", "pieces")

    def __init__(self, count: int) -> None:
        self.pieces: list[tuple[int | None, int]] = [(0, count)] if count else []
        self._starts: list[int] | None = None

    def _piece_starts(self) -> list[int]:
        if self._starts is None:
            pieces = self.pieces
            self._starts = (list(accumulate(map(itemgetter(1), pieces[:-1]), initial=0))
                            if pieces else [])
        return self._starts

    def origin(self, line: int) -> int | None:
        """The original line current line ``line`` is, or None if an edit wrote it."""
        starts = self._piece_starts()
        k = bisect_right(starts, line) - 1
        orig, _ = self.pieces[k]
        return None if orig is None else orig + (line - starts[k])

    def replace(self, start: int, end: int, items: list[int | str]) -> None:
        """Current lines [start, end) become ``items``: an int keeps that current line
        (and its origin), a str is a new line."""
        new = self._items_pieces(items)
        starts = self._piece_starts()
        # The pieces before ``start`` and from ``end`` on, found by bisection and copied as
        # slices (a loop over every piece per block made many blocks on one file quadratic).
        pieces = self.pieces
        left: list[tuple[int | None, int]] = []
        right: list[tuple[int | None, int]] = []
        if pieces:
            i = bisect_left(starts, start)  # pieces [0, i) begin before ``start``
            if i:
                orig, length = pieces[i - 1]
                left = pieces[: i - 1]
                left.append((orig, min(length, start - starts[i - 1])))
            j = bisect_right(starts, end) - 1  # the piece holding line ``end`` (if any)
            orig, length = pieces[j]
            skip = end - starts[j]
            if skip < length:
                right.append((None if orig is None else orig + skip, length - skip))
            right += pieces[j + 1 :]
        self.pieces = left + new + right
        self._starts = None

    def _items_pieces(self, items: list[int | str]) -> list[tuple[int | None, int]]:
        """The pieces of ``items`` (see :meth:`replace`), merged. A run of consecutive kept
        lines within one piece becomes one piece at once: items are mostly such runs
        (anchors, context, unchanged lines), and a step per line cost more than the rest
        of a small block's planning."""
        new: list[tuple[int | None, int]] = []
        starts = self._piece_starts()
        pieces = self.pieces
        count = len(items)
        i = 0
        while i < count:
            item = items[i]
            if isinstance(item, int):
                k = bisect_right(starts, item) - 1
                orig = pieces[k][0]
                # Extend over the following items that are the next lines of this piece.
                run_end = min(count, i + starts[k] + pieces[k][1] - item)
                j = i + 1
                while j < run_end and items[j] == item + (j - i):
                    j += 1
                o = None if orig is None else orig + (item - starts[k])
                length = j - i
            else:
                j = i + 1
                while j < count and not isinstance(items[j], int):
                    j += 1
                o, length = None, j - i
            i = j
            _append_piece(new, o, length)
        return new

    def replace_many(self, replacements: list[tuple[int, int, list[int | str]]]) -> None:
        """Several :meth:`replace` at once. ``replacements`` are sorted by start and disjoint,
        in current-line numbers from before any of them (ints in ``items`` too). One pass
        over the pieces: a :meth:`replace` per hunk costs the whole piece list each time, so
        a block of many hunks was quadratic."""
        starts = self._piece_starts()
        pieces = self.pieces
        out: list[tuple[int | None, int]] = []

        def copy(first: int, stop: int) -> None:  # current lines [first, stop) unchanged
            k = bisect_right(starts, first) - 1
            while first < stop:
                orig, length = pieces[k]
                take = min(stop, starts[k] + length) - first
                _append_piece(out, None if orig is None else orig + (first - starts[k]), take)
                first += take
                k += 1

        pos = 0
        for start, end, items in replacements:
            copy(pos, start)
            for orig, length in self._items_pieces(items):
                _append_piece(out, orig, length)
            pos = end
        copy(pos, starts[-1] + pieces[-1][1] if pieces else 0)
        self.pieces = out
        self._starts = None

    def through(self, earlier: LineOrigins) -> LineOrigins:
        """These origins (current lines onto a snapshot) composed with ``earlier`` (that
        snapshot's lines onto the original): the current lines onto the original. One walk
        over both piece lists, as kept lines only increase along each."""
        out: list[tuple[int | None, int]] = []
        before = earlier.pieces
        starts = earlier._piece_starts()
        k = 0
        for orig, length in self.pieces:
            if orig is None:
                _append_piece(out, None, length)
                continue
            k = bisect_right(starts, orig, lo=k) - 1
            first, stop = orig, orig + length
            while first < stop:
                source, size = before[k]
                take = min(stop, starts[k] + size) - first
                _append_piece(out, None if source is None else source + (first - starts[k]),
                              take)
                first += take
                k += 1
            k -= 1  # the next kept run may continue in the last piece used
        composed = LineOrigins(0)
        composed.pieces = out
        return composed

    def segments(self, lines: list[str], original_count: int) -> list[tuple[int, int, list[str]]]:
        """Maximal changed regions as ``(orig_start, orig_end, new_lines)``; two regions are
        always separated by at least one kept original line."""
        segments: list[tuple[int, int, list[str]]] = []
        orig_pos = 0
        cur = 0
        pending: int | None = None  # original position where an unfinished region began
        inserted: list[str] = []
        for orig, length in self.pieces:
            if orig is None:
                inserted.extend(lines[cur : cur + length])
                if pending is None:
                    pending = orig_pos
            elif orig == orig_pos and pending is None:
                orig_pos += length
            else:
                segments.append((orig_pos if pending is None else pending, orig, inserted))
                inserted, pending = [], None
                orig_pos = orig + length
            cur += length
        if pending is not None or orig_pos < original_count:
            segments.append(
                (orig_pos if pending is None else pending, original_count, inserted)
            )
        return segments


def segment_edit(doc: TextDoc, start: int, end: int, new: list[str]) -> TextEdit:
    """The text edit replacing original lines [start, end) by ``new`` (whole lines).

    Each new line ends as the line it replaces, one for one (a mixed-EOL file keeps its
    endings where lines are changed in place); lines beyond those replaced take the file's
    dominant ending. At the end of a file without a final newline the edit neither invents
    nor drops the missing newline.
    """
    eol = doc.eol
    lines = doc.lines
    n = len(lines)
    if n == 0:
        return TextEdit(0, 0, 0, 0, "".join(line + eol for line in new))
    ends = None if doc.uniform_eol else _replaced_endings(doc, start, end, len(new))
    if end < n or doc.final_newline:
        return TextEdit(start, 0, end, 0, _terminated(new, ends, eol))
    last_len = len(lines[n - 1])
    if new:
        if start < n:  # the last new line ends the file, without a break as the old one
            return TextEdit(start, 0, n - 1, last_len, _terminated(new[:-1], ends, eol) + new[-1])
        return TextEdit(n - 1, last_len, n - 1, last_len, eol + eol.join(new))
    if start > 0:  # the line before becomes the last one: drop its line break too
        return TextEdit(start - 1, len(lines[start - 1]), n - 1, last_len, "")
    return TextEdit(0, 0, n - 1, last_len, "")


def _terminated(lines: list[str], ends: list[str] | None, eol: str) -> str:
    """``lines`` each followed by its ending (``ends``, at least as many), or all by ``eol``."""
    if ends is None:
        return "".join(line + eol for line in lines)
    return "".join(map(str.__add__, lines, ends))


def _replaced_endings(doc: TextDoc, start: int, end: int, count: int) -> list[str]:
    """The endings of ``count`` new lines replacing original lines [start, end): the
    replaced lines' own, then the dominant one (also for the last line of a file without a
    final newline, which has none to give)."""
    own = doc.line_endings()[start : min(end, start + count)]
    return own + [doc.eol] * (count - len(own))


def render_lines(doc: TextDoc, lines: list[str], edits: list[TextEdit]) -> str:
    """The BOM-less text of ``doc`` after ``edits`` (``lines`` is the resulting line list)."""
    if not edits:
        return doc.text
    if doc.uniform_eol:
        if not lines:
            return ""
        final = doc.final_newline if doc.lines else True
        return doc.eol.join([*lines, ""] if final else lines)
    return apply_text_edits(doc.text, edits)


def is_lf_text(doc: TextDoc) -> bool:
    """Every line of ``doc.text`` ends in ``"\n"``: the text is ``"\n".join(lines) + "\n"``."""
    return bool(doc.lines) and doc.eol == "\n" and doc.uniform_eol and doc.final_newline


def render_segments(doc: TextDoc, segments: list[tuple[int, int, list[str]]],
                    line_start: Callable[[int], int]) -> str | None:
    """The text of ``doc`` with original lines [a, b) replaced by ``new`` for each segment
    (:meth:`LineOrigins.segments`), made of slices of the original text: the unchanged runs
    are copied as whole slices instead of joining every line again. ``line_start(k)`` is
    the offset in ``doc.text`` where original line ``k`` starts (0 ≤ k ≤ len(lines)).
    None when the text is not LF with a final newline (use :func:`render_lines`)."""
    if not is_lf_text(doc):
        return None
    text = doc.text
    parts: list[str] = []
    pos = 0
    for start, end, new in segments:
        parts.append(text[pos : line_start(start)])
        if new:
            parts.append("\n".join(new))
            parts.append("\n")
        pos = line_start(end)
    parts.append(text[pos:])
    return "".join(parts)


def line_starts(text: str) -> list[int]:
    """Offsets where each editor line of ``text`` starts (one more than breaks)."""
    return [0, *(m.end() for m in _BREAK_RE.finditer(text))]


def apply_text_edits(text: str, edits: list[TextEdit]) -> str:
    """Apply non-overlapping code-point :class:`TextEdit` ranges to ``text``."""
    starts = line_starts(text)

    def offset(line: int, col: int) -> int:
        if line >= len(starts):
            return len(text)
        return min(starts[line] + col, len(text))

    spans = sorted(
        (offset(e.start_line, e.start_col), offset(e.end_line, e.end_col), e.new_text)
        for e in edits
    )
    out: list[str] = []
    pos = 0
    for a, b, new in spans:
        if a < pos:
            raise ValueError("overlapping text edits")
        out.append(text[pos:a])
        out.append(new)
        pos = b
    out.append(text[pos:])
    return "".join(out)

