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

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate

LEVELS: tuple[str, ...] = ("exact", "trailing-whitespace", "whitespace", "unicode")
# Codex's fuzz ladder (apply-patch): every level, strict first.
CODEX_LADDER: tuple[str, ...] = LEVELS
# The opt-in tolerance of FORMATS.md "Tolerance is opt-in and visible".
WHITESPACE_LADDER: tuple[str, ...] = ("exact", "whitespace")
EXACT_ONLY: tuple[str, ...] = ("exact",)

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
    """A file's lines at one level, searchable as whole-line sequences."""

    __slots__ = ("_joined", "_prefix", "level", "lines")

    def __init__(self, lines: list[str], level: str = "exact") -> None:
        self.level = level
        self.lines = normalize_lines(lines, level) if level != "exact" else lines
        self._joined: str | None = None
        self._prefix: list[int] | None = None

    @property
    def joined(self) -> str:
        if self._joined is None:
            # One join (no concatenation: copying big strings is what costs here).
            self._joined = "\n".join(["", *self.lines, ""]) if self.lines else "\n"
        return self._joined

    def newline_before(self, line: int) -> int:
        """Offset in :attr:`joined` of the newline just before ``line`` (0 ≤ line ≤ len)."""
        if line <= 0:
            return 0
        if self._prefix is None:
            self._prefix = list(accumulate(map(len, self.lines), initial=0))
        line = min(line, len(self.lines))
        return self._prefix[line] + line

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
        count_from = self.newline_before(start)
        search_from = count_from
        line = start
        found: list[int] = []
        while len(found) < limit:
            p = joined.find(pattern, search_from, stop)
            if p < 0:
                break
            line += joined.count("\n", count_from, p)
            found.append(line)
            count_from = p
            search_from = p + 1
        return found

    def matches_at(self, needle: list[str], pos: int) -> bool:
        return pos >= 0 and pos + len(needle) <= len(self.lines) and (
            self.lines[pos : pos + len(needle)] == needle
        )


@dataclass
class Located:
    """Where a needle matched: all starts found (capped) at the first level that found any."""

    starts: list[int]
    level: str | None  # None: not found at any level tried

    @property
    def unique(self) -> bool:
        return len(self.starts) == 1


class FileMatcher:
    """Matching over one version of a file's lines; indexes are built lazily per level."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self._indexes: dict[str, LineIndex] = {}
        self._positions: dict[str, list[int]] | None = None

    def index(self, level: str) -> LineIndex:
        idx = self._indexes.get(level)
        if idx is None:
            idx = self._indexes[level] = LineIndex(self.lines, level)
        return idx

    def stripped_positions(self) -> dict[str, list[int]]:
        """Stripped line text → the lines holding it (for diagnosis votes)."""
        if self._positions is None:
            positions: dict[str, list[int]] = {}
            for i, line in enumerate(self.index("whitespace").lines):
                positions.setdefault(line, []).append(i)
            self._positions = positions
        return self._positions

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
        return self.index(level).find(normalize_lines(needle, level), start, end, limit)

    def matches_at(self, needle: list[str], pos: int, level: str = "exact") -> bool:
        return self.index(level).matches_at(normalize_lines(needle, level), pos)

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
