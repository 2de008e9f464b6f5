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

Speed: a :class:`FileMatcher` wraps one version of a file's lines. Per level it lazily
builds one joined string ``"\\n" + "\\n".join(normalised lines) + "\\n"``; a line sequence
is then found with ``str.find`` for ``"\\n" + "\\n".join(needle) + "\\n"`` (C speed, and the
surrounding newlines make it a whole-line match: ``b = 1`` never matches ``ab = 1``). Line
numbers come from counting newlines between hits. The planner keeps one matcher per file
while the file does not change, so 1,000 blocks over 200 buffers cost one join per touched
file version instead of one per block and line.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import accumulate, count
from operator import add

LEVELS: tuple[str, ...] = ("exact", "trailing-whitespace", "whitespace", "unicode")
# Codex's fuzz ladder (apply-patch): every level, strict first.
CODEX_LADDER: tuple[str, ...] = LEVELS
# The opt-in tolerance of FORMATS.md "Tolerance is opt-in and visible".
WHITESPACE_LADDER: tuple[str, ...] = ("exact", "whitespace")
EXACT_ONLY: tuple[str, ...] = ("exact",)
# Levels whose matches can be found from a substring of the exact text (see
# FileMatcher._find_by_candidates); how many candidate lines to verify before building the
# level's own index instead.
_SUBSTRING_LEVELS = frozenset({"exact", "trailing-whitespace", "whitespace"})
_MAX_SUBSTRING_CANDIDATES = 256

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


def normalize_line(line: str, level: str) -> str:
    """One line as compared at ``level``."""
    if level == "exact":
        return line
    if level == "trailing-whitespace":
        return line.rstrip()
    if level == "whitespace":
        return line.strip()
    if level == "unicode":
        return line.strip().translate(_UNICODE_FOLD)
    raise ValueError(f"unknown matching level {level!r}")


def normalize_lines(lines: Iterable[str], level: str) -> list[str]:
    if level == "exact":
        return list(lines)
    if level == "trailing-whitespace":
        return [line.rstrip() for line in lines]
    if level == "whitespace":
        return [line.strip() for line in lines]
    return [line.strip().translate(_UNICODE_FOLD) for line in lines]


class LineIndex:
    """A file's lines at one level, searchable as whole-line sequences.

    ``joined`` is ``"\n" + "\n".join(lines) + "\n"``; ``_newlines[k]`` is the offset in it
    of the newline just before line ``k`` (the running sum of line lengths plus ``k``), so
    offsets and line numbers convert both ways without scanning (a plain bisect). Both are
    built lazily, once. The offsets are a compact ``array('q')`` (8 bytes a line instead of
    a list of Python ints: 36), which matters when 200 files of 5,000 lines are indexed.
    """

    __slots__ = ("_joined", "_newlines", "level", "lines")

    def __init__(self, lines: list[str], level: str = "exact") -> None:
        self.level = level
        self.lines = normalize_lines(lines, level) if level != "exact" else lines
        self._joined: str | None = None
        self._newlines: array | None = None

    @property
    def joined(self) -> str:
        if self._joined is None:
            # One join (no concatenation: copying big strings is what costs here).
            self._joined = "\n".join(["", *self.lines, ""]) if self.lines else "\n"
        return self._joined

    def _offsets(self) -> array:
        if self._newlines is None:
            # Line k's newline sits after k earlier newlines and lines: len(line) + 1 each.
            self._newlines = array(
                "q", map(add, accumulate(map(len, self.lines), initial=0), count()))
        return self._newlines

    def newline_before(self, line: int) -> int:
        """Offset in :attr:`joined` of the newline just before ``line`` (0 ≤ line ≤ len)."""
        line = max(0, min(line, len(self.lines)))
        return self._offsets()[line]

    def line_at(self, offset: int) -> int:
        """The line holding ``offset`` of :attr:`joined` (the newline before a line counts
        as that line's)."""
        return bisect_right(self._offsets(), offset) - 1

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
        joined = self.joined
        pattern = "\n" + "\n".join(needle) + "\n"
        stop = len(joined) if end == n else self.newline_before(end) + 1
        search_from = self.newline_before(start) if start else 0
        found: list[int] = []
        while len(found) < limit:
            p = joined.find(pattern, search_from, stop)
            if p < 0:
                break
            found.append(self.line_at(p))
            search_from = p + 1
        return found

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
        joined = self.joined
        search_from = self.newline_before(lo)
        stop = self.newline_before(hi)  # the newline ending line hi - 1
        while True:
            q = joined.find(key, search_from, stop)
            if q < 0:
                return
            line = self.line_at(q)
            yield line
            search_from = self.newline_before(line + 1)  # go on from the next line


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
    onto them (``textdoc.LineOrigins.pieces``). With both, a search on a changed file does
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
        base_hits: Iterator[int] | None = None  # one scan of the original text, in order
        pending: int | None = None  # a base hit not consumed yet
        cur = 0
        for orig, length in self._pieces:
            seg_end = cur + length
            if seg_end > start:
                lo = max(start, cur)
                if orig is None:  # lines an edit wrote: look at them directly
                    for j in range(lo, seg_end):
                        if key in lines[j]:
                            yield j
                else:  # unchanged original lines [orig, orig + length)
                    first = orig + lo - cur
                    if base_hits is None:
                        base_hits = self._base.iter_containing(key, first, len(self._base.lines))
                    while True:
                        if pending is None:
                            pending = next(base_hits, None)
                            if pending is None:
                                break
                        if pending >= orig + length:
                            break  # belongs to a later piece
                        if pending >= first:
                            yield pending - orig + cur
                        pending = None
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
        ``needle[i].strip()``, so the lines containing the needle's longest such key are the
        only candidates; each window is verified. None when the key is blank or too common
        (the caller then builds the level's index)."""
        keys = [(len(line.strip()), i) for i, line in enumerate(needle)]
        length, i = max(keys, default=(0, 0))
        if not length or limit <= 0:
            return None
        key = needle[i] if level == "exact" else needle[i].strip()
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
        n = len(self.lines)
        if len(needle) > n:
            return None
        if eof:
            at_end = n - len(needle)
            if at_end >= start:
                for level in levels:
                    if self.matches_at(needle, at_end, level):
                        return at_end, level
        for level in levels:
            found = self.find_all(needle, level, start, None, 1)
            if found:
                return found[0], level
        return None

    def nearest(
        self,
        needle: list[str],
        hint: int | None,
        levels: tuple[str, ...] = EXACT_ONLY,
        start: int = 0,
        limit: int = 10_000,
    ) -> tuple[Located, bool]:
        """Unified-diff location: every match after ``start`` at the first level finding
        any; the one nearest ``hint`` wins. Returns ``(Located, tie)`` where ``Located``
        holds the winner first (then the runner-up) and ``tie`` is True when two matches
        are equally near (or there are several and no hint)."""
        for level in levels:
            starts = self.find_all(needle, level, start, None, limit)
            if not starts:
                continue
            if len(starts) == 1:
                return Located(starts, level), False
            if hint is None:
                return Located(starts[:2], level), True
            ranked = sorted(starts, key=lambda s: (abs(s - hint), s))
            tie = abs(ranked[0] - hint) == abs(ranked[1] - hint)
            if tie:
                ranked[:2] = sorted(ranked[:2])
            return Located(ranked[:2], level), tie
        return Located([], None), False


def leading_ws(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def reindent_offset(block_lines: list[str], file_lines: list[str]) -> tuple[str, str] | None:
    """The consistent indentation change between a block's lines and the file lines they
    matched (FORMATS.md re-indent rule), read from the non-blank pairs.

    Returns ``("add", s)`` when every file line's indentation is the block line's with
    ``s`` prepended, ``("remove", s)`` when it is the block line's with ``s`` removed, or
    None when the pairs disagree (or nothing differs: the empty offset)."""
    pairs = [
        (leading_ws(b), leading_ws(f))
        for b, f in zip(block_lines, file_lines, strict=False)
        if b.strip() and f.strip()
    ]
    if not pairs:
        return None
    for kind in ("add", "remove"):
        offset: str | None = None
        ok = True
        for bw, fw in pairs:
            longer, shorter = (fw, bw) if kind == "add" else (bw, fw)
            if not longer.endswith(shorter):
                ok = False
                break
            extra = longer[: len(longer) - len(shorter)]
            if offset is None:
                offset = extra
            elif extra != offset:
                ok = False
                break
        if ok and offset:
            return kind, offset
    return None


def apply_reindent(line: str, offset: tuple[str, str] | None) -> str:
    """Re-indent one inserted line; blank lines stay as written."""
    if offset is None or not line.strip():
        return line
    kind, ws = offset
    if kind == "add":
        return ws + line
    return line[len(ws) :] if line.startswith(ws) else line
