"""locate.hunk_search: the same answers as FileMatcher.locate, without a scan per hunk."""

from __future__ import annotations

import random

from lsp_server.locate import LocateOptions, locate_apply_patch, locate_hunk_patch
from lsp_server.locate.hunk_search import MAX_INDEXED_CANDIDATES, SCANS_BEFORE_INDEX, HunkSearch
from lsp_server.matching import CODEX_LADDER, EXACT_ONLY, WHITESPACE_LADDER, FileMatcher
from lsp_server.model import Block, Hunk


class _CountingMatcher(FileMatcher):
    """A FileMatcher counting the lines its exact searches may scan (to the file's end)."""

    scanned = 0

    def find_all(self, needle: list[str], level: str = "exact", start: int = 0,
                 end: int | None = None, limit: int = 2) -> list[int]:
        if level == "exact":
            self.scanned += (len(self.lines) if end is None else end) - start
        return super().find_all(needle, level, start, end, limit)


def _hunk(*old: str) -> Hunk:
    return Hunk(header="", lines=[(" ", line) for line in old] + [("+", "new")])


def test_every_answer_is_the_matchers_before_and_after_the_index() -> None:
    rng = random.Random(5)
    words = ["a", "b", "  a", "a  ", "", "common", "x\u2013y", "x-y"]
    lines = [rng.choice(words) if rng.random() < 0.7 else f"line {i}" for i in range(600)]
    lines += ["common"] * (MAX_INDEXED_CANDIDATES + 5)  # a rarest line too common to index
    needles = [[rng.choice([*words, f"line {rng.randrange(700)}"])
                for _ in range(rng.randint(1, 3))] for _ in range(300)]
    needles += [["common"], ["common", "common"], ["not in the file"], ["a\nb"]]
    fm = FileMatcher(lines)
    search = HunkSearch(fm, [_hunk(*needle) for needle in needles])
    for levels in (EXACT_ONLY, WHITESPACE_LADDER, CODEX_LADDER):
        for needle in needles:
            start = rng.randrange(len(lines))
            assert search.locate(needle, levels, start) == fm.locate(needle, levels, start), (
                needle, levels, start)
    assert search._positions is not None  # the later answers came from the index


def test_a_block_of_many_bare_hunks_scans_the_file_a_bounded_number_of_times() -> None:
    # 300 hunks, each unique in what is left of the file: before, each one's search for a
    # second match ran to the end of the file (about 150 scans of it in all).
    n = 6_000
    lines = [f"line {i}" for i in range(n)]
    changed = range(10, n, 20)
    hunks = [Hunk(header="", lines=[(" ", lines[i]), ("-", lines[i + 1]), ("+", "changed")])
             for i in changed]
    for fmt, policy in (("apply-patch", locate_apply_patch), ("hunk-patch", locate_hunk_patch)):
        fm = _CountingMatcher(lines)
        placement = policy(Block(format=fmt, file="f", hunks=hunks), fm, LocateOptions())
        assert [r[0] for r in placement.replacements] == list(changed)
        assert fm.scanned <= (SCANS_BEFORE_INDEX + 1) * n, (fmt, fm.scanned / n)


def test_an_ambiguous_hunk_is_still_found_ambiguous_through_the_index() -> None:
    n = 3_000
    lines = [f"line {i}" for i in range(n)] + ["twice", "x", "twice"]
    hunks = [Hunk(header="", lines=[("-", lines[i]), ("+", "changed")]) for i in range(0, n, 10)]
    hunks.append(Hunk(header="", lines=[("-", "twice"), ("+", "once")]))
    fm = FileMatcher(lines)
    search = HunkSearch(fm, hunks)
    for i in range(0, n, 10):
        assert search.locate([lines[i]], CODEX_LADDER, i).starts == [i]
    assert search._positions is not None
    assert search.locate(["twice"], CODEX_LADDER, n).starts == [n, n + 2]
    assert search.locate(["twice"], CODEX_LADDER, n + 1).starts == [n + 2]
