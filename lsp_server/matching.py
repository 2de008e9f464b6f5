"""The one place that decides whether a block's lines are in a file, and where.

Everything is whole-line matching. A sequence of lines matches at ``i`` when each of its
lines equals the file line at the same offset, after both are normalised for the tolerance
level in use. The levels, from strict to lenient (apply-patch walks all four, as Codex's
``seek_sequence`` does; other formats use ``exact`` and, when asked, ``whitespace``):

1. ``exact``               lines equal (CRLF already normalised away by splitting)
2. ``trailing-whitespace`` trailing whitespace ignored
3. ``whitespace``          leading and trailing whitespace ignored
4. ``unicode``             as 3, with typographic punctuation folded to ASCII
                           (dashes, curly quotes, non-breaking and other odd spaces)

Speed: a :class:`FileMatcher` wraps one version of a file's lines. A line sequence is found
with ``str.find`` for ``"\\n" + "\\n".join(needle) + "\\n"`` in ``"\\n" + "\\n".join(lines) +
"\\n"`` (C speed, and the surrounding newlines make it a whole-line match: ``b = 1`` never
matches ``ab = 1``); for an LF text that string is the file's own text, searched in place
(see :class:`LineIndex`). Line numbers come from counting newlines from a known point. The
planner keeps the index of each file's original text for the whole plan and searches changed
versions through it (see :class:`FileMatcher`), so 1,000 blocks over 200 buffers cost about
one scan of the file per block, with no copy of it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from operator import itemgetter

# Whitespace as Unicode defines it (and Rust's ``trim``, which Codex uses): what the levels
# strip. Python's ``str.strip()`` would also strip the information separators U+001C-U+001F
# (``str.isspace()`` counts them), so a line ending in one would match a line without it.
WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)

# Codex apply-patch ``normalise``: typographic punctuation → ASCII.
_UNICODE_FOLD = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys(
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000",
            " ",
        ),
    }
)


def _rstripped(lines: Iterable[str]) -> list[str]:
    return [line.rstrip(WHITESPACE) for line in lines]


def _stripped(lines: Iterable[str]) -> list[str]:
    return [line.strip(WHITESPACE) for line in lines]


def _folded(lines: Iterable[str]) -> list[str]:
    return [line.strip(WHITESPACE).translate(_UNICODE_FOLD) for line in lines]


@dataclass(frozen=True, slots=True)
class Level:
    """One tolerance level: how lines compare at it and how a match at it is reported."""

    name: str  # the ``match`` field of a block matched at it
    normalize: Callable[[Iterable[str]], list[str]]  # lines as compared at this level
    # Its matches can be found from a substring of the exact text (see
    # FileMatcher._find_by_candidates), else only through the level's own index.
    substring: bool
    tolerates: str  # what a match at it tolerated, for the user ("" for exact)


# The tolerance levels, strict to lenient: the one table every level is read from.
LEVEL_TABLE: tuple[Level, ...] = (
    Level("exact", list, True, ""),
    Level("trailing-whitespace", _rstripped, True, "trailing whitespace"),
    Level("whitespace", _stripped, True, "leading/trailing whitespace"),
    Level("unicode", _folded, False, "whitespace and Unicode punctuation differences"),
)
LEVELS: tuple[str, ...] = tuple(level.name for level in LEVEL_TABLE)
_BY_NAME: dict[str, Level] = {level.name: level for level in LEVEL_TABLE}
# Match kinds that found the text only by tolerating differences.
TOLERANT_LEVELS: frozenset[str] = frozenset(LEVELS[1:])
_SUBSTRING_LEVELS = frozenset(level.name for level in LEVEL_TABLE if level.substring)
# How many candidate lines to verify before building a level's own index instead.
_MAX_SUBSTRING_CANDIDATES = 256

# Codex's fuzz ladder (apply-patch): every level, strict first.
CODEX_LADDER: tuple[str, ...] = LEVELS
# The opt-in tolerance of docs/formats.md "Tolerance is opt-in and visible".
WHITESPACE_LADDER: tuple[str, ...] = ("exact", "whitespace")
EXACT_ONLY: tuple[str, ...] = ("exact",)
# The values of the ``matching`` option (server, CLI, agents): each names its ladder.
MATCHING_OPTIONS: dict[str, tuple[str, ...]] = {"exact": EXACT_ONLY,
                                                 "whitespace": WHITESPACE_LADDER}


def level_named(name: str) -> Level:
    """The tolerance level ``name``; ``ValueError`` for a name the table does not have
    (never the most lenient level)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown tolerance level {name!r}; levels: "
                         f"{', '.join(LEVELS)}") from None


def normalize_lines(lines: Iterable[str], level: str) -> list[str]:
    """Lines as compared at ``level`` (see :data:`LEVEL_TABLE`)."""
    return level_named(level).normalize(lines)


def strip_ws(line: str) -> str:
    """``line`` without leading and trailing :data:`WHITESPACE` (the whitespace level)."""
    return line.strip(WHITESPACE)


class LineIndex:
    """A file's lines at one level, searchable as whole-line sequences.

    Searches run over ``joined`` = ``"\\n" + "\\n".join(lines) + "\\n"`` in which every line
    is framed by newlines, so ``str.find`` of a framed needle is a whole-line match. When
    the caller already holds that text without the leading newline (``text``: a snapshot
    whose lines all end in ``"\\n"``), it is searched in place and no joined copy is made
    (offsets below stay in joined coordinates: text offset + 1, with a virtual newline at 0).

    Offsets and line numbers convert by counting newlines (``str.count``, C speed) from the
    nearest point already known, instead of an array of every line's offset: building that
    array cost more than the searches (about 0.5 µs a line, rebuilt for every new file
    text). Known points are ``(line, offset of the newline before it)`` pairs learnt from
    earlier conversions; the list is replaced, never changed in place, so a
    :class:`LineIndex` shared between threads (``PreparedText``) stays consistent.
    """

    __slots__ = ("_checkpoints", "_hay", "_known", "_shift", "level", "lines")

    _MAX_KNOWN = 512  # known points kept (each later conversion starts from the nearest)
    # Past this many lines from every known point, a line's offset is summed from the
    # checkpoint every CHECKPOINT_LINES lines below it (extended as far as asked, once): a
    # conversion sums at most this many line lengths. Summing from a far known point cost
    # 2 ms a hunk on a 10 MB file once the known points were full.
    CHECKPOINT_LINES = 1024

    def __init__(self, lines: list[str], level: str = "exact", text: str | None = None) -> None:
        self.level = level
        self.lines = normalize_lines(lines, level) if level != "exact" else lines
        if text is not None and level == "exact" and lines and text.endswith("\n"):
            self._hay: str | None = text  # "\n".join(lines) + "\n", the caller's string
            self._shift = 1
        else:
            self._hay = None  # the joined copy, made on first use
            self._shift = 0
        self._known: list[tuple[int, int]] | None = None
        self._checkpoints: list[int] = [0]  # offset of the newline before line j * CHECKPOINT

    def _haystack(self) -> str:
        if self._hay is None:
            # One join (no concatenation: copying big strings is what costs here).
            self._hay = "\n".join(["", *self.lines, ""]) if self.lines else "\n"
        return self._hay

    # Primitive operations in joined coordinates (hay offset + shift).

    def _find(self, pattern: str, lo: int, hi: int) -> int:
        """First offset in [lo, hi) where ``pattern`` (starting with a newline, or holding
        none) lies entirely in [lo, hi); -1 if none."""
        hay = self._haystack()
        if not self._shift:
            return hay.find(pattern, lo, hi)
        if lo == 0 and pattern[0] == "\n" and hay.startswith(pattern[1:], 0, max(hi - 1, 0)):
            return 0  # the virtual newline at offset 0 starts it
        p = hay.find(pattern, max(lo - 1, 0), max(hi - 1, 0))
        return p + 1 if p >= 0 else -1

    def _rfind(self, pattern: str, lo: int, hi: int) -> int:
        """Last offset in [lo, hi) where ``pattern`` lies entirely in [lo, hi) (as ``_find``)."""
        hay = self._haystack()
        if not self._shift:
            return hay.rfind(pattern, lo, hi)
        p = hay.rfind(pattern, max(lo - 1, 0), max(hi - 1, 0))
        if p >= 0:
            return p + 1
        if lo == 0 and pattern[0] == "\n" and hay.startswith(pattern[1:], 0, max(hi - 1, 0)):
            return 0
        return -1

    def _count_newlines(self, lo: int, hi: int) -> int:
        """Newlines at offsets [lo, hi)."""
        hay = self._haystack()
        if not self._shift:
            return hay.count("\n", lo, hi)
        virtual = 1 if lo == 0 < hi else 0
        return virtual + hay.count("\n", max(lo - 1, 0), max(hi - 1, 0))

    def _newline_at_or_before(self, offset: int) -> int:
        hay = self._haystack()
        if not self._shift:
            return hay.rfind("\n", 0, offset + 1)
        return hay.rfind("\n", 0, offset) + 1  # -1 + 1: the virtual newline at 0

    def _newline_at_or_after(self, offset: int) -> int:
        hay = self._haystack()
        if not self._shift:
            return hay.find("\n", offset)
        return 0 if offset == 0 else hay.find("\n", offset - 1) + 1

    def _known_points(self) -> list[tuple[int, int]]:
        known = self._known
        if known is None:
            n = len(self.lines)
            end = len(self._haystack()) + self._shift - 1  # the newline ending the last line
            known = self._known = [(0, 0), (n, end)] if n else [(0, 0)]
        return known

    def _learn(self, known: list[tuple[int, int]], at: int, point: tuple[int, int]) -> None:
        if at < len(known) and known[at][0] == point[0]:
            return  # known already
        if len(known) < self._MAX_KNOWN:
            self._known = [*known[:at], point, *known[at:]]  # a new list: see the docstring

    def newline_before(self, line: int) -> int:
        """Offset in the joined text of the newline just before ``line`` (0 ≤ line ≤ len)."""
        line = max(0, min(line, len(self.lines)))
        known = self._known_points()
        at = bisect_right(known, (line, -1))  # first known point at or after ``line``
        if at < len(known) and known[at][0] == line:
            return known[at][1]
        below_line, below = known[at - 1]
        if at < len(known) and known[at][0] - line < line - below_line:
            above_line, above = known[at]
            if above_line - line <= self.CHECKPOINT_LINES:
                offset = above - sum(map(len, self.lines[line:above_line])) - (above_line - line)
                self._learn(known, at, (line, offset))
                return offset
        elif line - below_line <= self.CHECKPOINT_LINES:
            offset = below + sum(map(len, self.lines[below_line:line])) + (line - below_line)
            self._learn(known, at, (line, offset))
            return offset
        return self._from_checkpoint(line)

    def _from_checkpoint(self, line: int) -> int:
        step = self.CHECKPOINT_LINES
        j = line // step
        checkpoints = self._checkpoints
        if j >= len(checkpoints):
            checkpoints = list(checkpoints)  # a new list: see the class docstring
            lines = self.lines
            while len(checkpoints) <= j:
                first = (len(checkpoints) - 1) * step
                checkpoints.append(checkpoints[-1] + sum(map(len, lines[first:first + step]))
                                   + step)
            self._checkpoints = checkpoints
        first = j * step
        return checkpoints[j] + sum(map(len, self.lines[first:line])) + (line - first)

    def line_at(self, offset: int) -> int:
        """The line holding ``offset`` of the joined text (the newline before a line counts
        as that line's)."""
        known = self._known_points()
        at = bisect_right(known, offset, key=itemgetter(1))  # first known newline after it
        below_line, below = known[at - 1]
        checkpoints = self._checkpoints
        j = bisect_right(checkpoints, offset) - 1  # the checkpoint at or before it
        if checkpoints[j] > below:
            below_line, below = j * self.CHECKPOINT_LINES, checkpoints[j]
        if at < len(known) and known[at][1] - offset < offset - below:
            above_line, above = known[at]
            line = above_line - self._count_newlines(offset + 1, above + 1)
        else:
            line = below_line + self._count_newlines(below + 1, offset + 1)
        newline = offset if line == below_line and offset == below else (
            self._newline_at_or_before(offset))
        self._learn(known, bisect_right(known, (line, -1)), (line, newline))
        return line

    def find(
        self, needle: list[str], start: int = 0, end: int | None = None, limit: int = 2
    ) -> list[int]:
        """Start lines of up to ``limit`` matches of ``needle`` (already normalised) lying
        entirely within lines [start, end), in file order. Overlapping matches count."""
        if not needle or limit <= 0:
            return []
        n = len(self.lines)
        start = max(0, start)
        end = n if end is None else min(end, n)
        if end - start < len(needle):
            return []
        pattern = "\n" + "\n".join(needle) + "\n"
        # The end of the text needs no conversion (the newline ending the last line).
        stop = self.newline_before(end) + 1 if end < n else len(self._haystack()) + self._shift
        search_from = self.newline_before(start) if start else 0
        found: list[int] = []
        while len(found) < limit:
            p = self._find(pattern, search_from, stop)
            if p < 0:
                break
            found.append(self.line_at(p))
            search_from = p + 1
        return found

    def find_last(self, needle: list[str], start: int = 0, end: int | None = None) -> int | None:
        """Start line of the last match of ``needle`` (already normalised) lying entirely
        within lines [start, end), or None: one reverse search, whatever the matches before."""
        n = len(self.lines)
        start = max(0, start)
        end = n if end is None else min(end, n)
        if not needle or end - start < len(needle):
            return None
        pattern = "\n" + "\n".join(needle) + "\n"
        stop = self.newline_before(end) + 1 if end < n else len(self._haystack()) + self._shift
        p = self._rfind(pattern, self.newline_before(start) if start else 0, stop)
        return self.line_at(p) if p >= 0 else None

    def matches_at(self, needle: list[str], pos: int) -> bool:
        return pos >= 0 and pos + len(needle) <= len(self.lines) and (
            self.lines[pos : pos + len(needle)] == needle
        )

    def iter_containing(self, key: str, lo: int, hi: int) -> Iterator[int]:
        """Lines in [lo, hi) whose text contains ``key`` (non-empty, no newline), in order,
        each once."""
        hi = min(hi, len(self.lines))
        if lo >= hi or not key:
            return
        search_from = self.newline_before(lo)
        stop = self.newline_before(hi)  # the newline ending line hi - 1
        while True:
            q = self._find(key, search_from, stop)
            if q < 0:
                return
            # From the nearest known point (often an earlier hit in this text, when the
            # index outlives a plan: PreparedText), not from ``lo``.
            yield self.line_at(q)
            search_from = self._newline_at_or_after(q)  # the one ending that line


@dataclass
class Located:
    """Where a needle matched: all starts found (capped) at the first level that found any."""

    starts: list[int]
    level: str | None  # None: not found at any level tried

    @property
    def unique(self) -> bool:
        return len(self.starts) == 1


class FileMatcher:
    """Matching over one version of a file's lines.

    ``base`` (optional) is the exact :class:`LineIndex` of the file's *original* lines, kept
    by the caller for the whole plan, and ``pieces`` the run-length map of the current lines
    onto them (``file_text.LineOrigins.pieces``). With both, a search on a changed file does
    not re-join it: candidate lines come from the original text for runs that are unchanged
    and from a direct scan of the few lines edits wrote, and each candidate window is
    verified on the current lines. Per-level joined indexes of the current lines are built
    lazily only when that is not enough (a needle made of very common or blank lines,
    Unicode folding, diagnosis).
    """

    def __init__(
        self,
        lines: list[str],
        base: LineIndex | None = None,
        pieces: list[tuple[int | None, int]] | None = None,
    ) -> None:
        self.lines = lines
        self._indexes: dict[str, LineIndex] = {}
        if base is None or pieces is None:
            base, pieces = None, None
        elif pieces == [(0, len(base.lines))] or (not pieces and not base.lines):
            self._indexes["exact"] = base  # unchanged: the original index is this version's
            base, pieces = None, None
        self._base = base
        self._pieces = pieces

    def index(self, level: str) -> LineIndex:
        idx = self._indexes.get(level)
        if idx is None:
            idx = self._indexes[level] = LineIndex(self.lines, level)
        return idx

    def lines_containing(self, key: str, start: int = 0) -> Iterator[int]:
        """Current lines from ``start`` on whose text contains ``key``, in order."""
        if self._base is None or self._pieces is None:
            yield from self.index("exact").iter_containing(key, start, len(self.lines))
            return
        lines = self.lines
        base_hits = _OrderedHits(self._base, key)  # one scan of the original text, in order
        cur = 0
        for orig, length in self._pieces:
            seg_end = cur + length
            if seg_end > start:
                lo = max(start, cur)
                if orig is None:  # lines an edit wrote: look at them directly
                    # One C search over the run first (the key, which holds no newline, is
                    # usually not there), then the lines one by one.
                    if key in "\n".join(lines[lo:seg_end]):
                        yield from [j for j in range(lo, seg_end) if key in lines[j]]
                else:  # unchanged original lines [orig, orig + length)
                    shift = cur - orig
                    first, end = lo - shift, orig + length
                    hit = base_hits.next_within(first, end)
                    while hit is not None:
                        yield hit + shift
                        hit = base_hits.next_within(first, end)
            cur = seg_end

    # -------------------------------------------------------------- primitive searches

    def find_all(
        self,
        needle: list[str],
        level: str = "exact",
        start: int = 0,
        end: int | None = None,
        limit: int = 2,
    ) -> list[int]:
        """Up to ``limit`` match starts of ``needle`` at ``level`` within [start, end)."""
        if level in _SUBSTRING_LEVELS and level not in self._indexes and (
            level != "exact" or self._base is not None
        ):
            found = self._find_by_candidates(needle, level, start, end, limit)
            if found is not None:
                return found
        return self.index(level).find(normalize_lines(needle, level), start, end, limit)

    def _find_by_candidates(
        self, needle: list[str], level: str, start: int, end: int | None, limit: int
    ) -> list[int] | None:
        """Search without (re)building a joined text of the current lines: a file line equal
        to needle line ``i`` (exactly, or ignoring surrounding whitespace) contains
        ``strip_ws(needle[i])``, so the lines containing the needle's longest such key are the
        only candidates; each window is verified. None when the key is blank or too common
        (the caller then builds the level's index)."""
        # The longest line is picked by str.strip() (C's fast whitespace test; stripping a
        # separator too only changes which line is picked), its key by the level's rule.
        keys = [(len(line.strip()), i) for i, line in enumerate(needle)]
        length, i = max(keys, default=(0, 0))
        if not length or limit <= 0:
            return None
        key = needle[i] if level == "exact" else needle[i].strip(WHITESPACE)
        k = len(needle)
        n = len(self.lines)
        end = n if end is None else min(end, n)
        start = max(0, start)
        if end - start < k:
            return []
        target = normalize_lines(needle, level)
        lines = self.lines
        last_line = end - k + i
        found: list[int] = []
        for tried, line in enumerate(self.lines_containing(key, start + i)):
            if line > last_line:
                break
            if tried >= _MAX_SUBSTRING_CANDIDATES:
                return None
            s = line - i
            window = lines[s : s + k]
            if (window if level == "exact" else normalize_lines(window, level)) == target:
                found.append(s)
                if len(found) >= limit:
                    break
        return found

    def matches_at(self, needle: list[str], pos: int, level: str = "exact") -> bool:
        k = len(needle)
        if pos < 0 or pos + k > len(self.lines):
            return False
        return normalize_lines(self.lines[pos : pos + k], level) == normalize_lines(needle, level)

    # ------------------------------------------------------------ policies on top of them

    def locate(
        self,
        needle: list[str],
        levels: tuple[str, ...] = EXACT_ONLY,
        start: int = 0,
        end: int | None = None,
        limit: int = 2,
    ) -> Located:
        """Unique-or-nothing search: the first level (in order) that finds ``needle`` at
        all decides. One start → unique; two or more → ambiguous (both reported); none at
        any level → ``Located([], None)``. An exact unique match therefore wins even when a
        whitespace-blind comparison would find several places."""
        for level in levels:
            starts = self.find_all(needle, level, start, end, limit)
            if starts:
                return Located(starts, level)
        return Located([], None)

    def seek(
        self,
        needle: list[str],
        start: int = 0,
        levels: tuple[str, ...] = CODEX_LADDER,
        eof: bool = False,
    ) -> tuple[int, str] | None:
        """First-match search from ``start`` (Codex ``seek_sequence``): each level scans
        the whole remaining file before the next, more lenient one is tried. ``eof``
        prefers a match ending at the last line (``*** End of File``) before searching
        from ``start``. An empty needle matches at ``start`` exactly."""
        if not needle:
            return start, "exact"
        if len(needle) > len(self.lines):
            return None
        if eof:
            found = self.at_end(needle, start, levels)
            if found is not None:
                return found
        for level in levels:
            found = self.find_all(needle, level, start, None, 1)
            if found:
                return found[0], level
        return None

    def at_end(self, needle: list[str], start: int = 0,
               levels: tuple[str, ...] = CODEX_LADDER) -> tuple[int, str] | None:
        """Where ``needle`` ends at the file's last line (at or after ``start``), at the
        first level it matches there (``*** End of File``)."""
        at = len(self.lines) - len(needle)
        if at < start:
            return None
        for level in levels:
            if self.matches_at(needle, at, level):
                return at, level
        return None


class _OrderedHits:
    """One in-order scan of an original text's lines containing a key, consumed piece by
    piece (a hit past the current piece waits for the piece holding it)."""

    __slots__ = ("_base", "_hits", "_key", "_pending")

    def __init__(self, base: LineIndex, key: str) -> None:
        self._base = base
        self._key = key
        self._hits: Iterator[int] | None = None
        self._pending: int | None = None

    def next_within(self, first: int, end: int) -> int | None:
        """The next hit in original lines [first, end), or None (a hit from ``end`` on waits
        for a later piece). The scan starts at the first call's ``first``."""
        if self._hits is None:
            self._hits = self._base.iter_containing(self._key, first, len(self._base.lines))
        while True:
            pending = self._pending
            if pending is None:
                pending = self._pending = next(self._hits, None)
                if pending is None:
                    return None
            if pending >= end:
                return None  # belongs to a later piece
            self._pending = None
            if pending >= first:
                return pending
