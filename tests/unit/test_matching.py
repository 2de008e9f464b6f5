"""matching: whole-line search, the tolerance ladder, unique-or-nothing."""

from __future__ import annotations

import random

import pytest

from lsp_server.matching import (
    CODEX_LADDER,
    EXACT_ONLY,
    LEVELS,
    WHITESPACE_LADDER,
    FileMatcher,
    LineIndex,
    normalize_lines,
    strip_ws,
)
from lsp_server.reindent import leading_ws

FILE = [
    "import os",
    "",
    "def add(a, b):",
    "    return a + b",
    "",
    "def add2(a, b):",
    "    return a + b",
    "x = 'done'",
]


def test_lines_not_substrings() -> None:
    fm = FileMatcher(["ab = 1", "b = 1x", " b = 1"])
    assert fm.find_all(["b = 1"]) == []
    assert fm.find_all(["b = 1"], "whitespace") == [2]


def test_find_reports_every_start_up_to_the_limit() -> None:
    fm = FileMatcher(FILE)
    assert fm.find_all(["    return a + b"], limit=5) == [3, 6]
    assert fm.find_all(["    return a + b"], limit=1) == [3]
    assert fm.find_all(["", "def add2(a, b):"]) == [4]
    assert fm.find_all(["nothing"]) == []
    assert fm.find_all([]) == []


def test_overlapping_matches_are_found() -> None:
    fm = FileMatcher(["a", "a", "a"])
    assert fm.find_all(["a", "a"], limit=5) == [0, 1]


def test_find_within_a_range() -> None:
    fm = FileMatcher(FILE)
    assert fm.find_all(["    return a + b"], start=4, limit=5) == [6]
    assert fm.find_all(["    return a + b"], start=0, end=6, limit=5) == [3]
    # a match must lie entirely inside [start, end)
    assert fm.find_all(["def add2(a, b):", "    return a + b"], end=6) == []


def test_empty_file_and_blank_needles() -> None:
    assert FileMatcher([]).find_all([""]) == []
    assert FileMatcher([""]).find_all([""]) == [0]
    assert FileMatcher(["x", "", ""]).find_all(["", ""], limit=3) == [1]


def test_locate_exact_unique_wins_over_tolerant_ambiguity() -> None:
    fm = FileMatcher(["def add(a, b):", "class C:", "    def add(a, b):"])
    loc = fm.locate(["def add(a, b):"], WHITESPACE_LADDER)
    assert loc.starts == [0] and loc.level == "exact" and loc.unique


def test_locate_tolerant_when_exact_misses() -> None:
    fm = FileMatcher(["def f():", "\treturn 1  "])
    loc = fm.locate(["def f():", "    return 1"], WHITESPACE_LADDER)
    assert loc.starts == [0] and loc.level == "whitespace"
    assert fm.locate(["def f():", "    return 1"], EXACT_ONLY).starts == []


def test_locate_ambiguous_reports_two_starts() -> None:
    loc = FileMatcher(FILE).locate(["    return a + b"])
    assert loc.starts == [3, 6] and not loc.unique


def test_seek_is_first_match_from_start_level_by_level() -> None:
    fm = FileMatcher(["x  ", "y", "x", "y"])
    # exact scans the whole rest of the file before trailing-whitespace is tried
    assert fm.seek(["x", "y"], 0, CODEX_LADDER) == (2, "exact")
    assert fm.seek(["x", "y"], 3, CODEX_LADDER) is None
    fm2 = FileMatcher(["x  ", "y"])
    assert fm2.seek(["x", "y"], 0, CODEX_LADDER) == (0, "trailing-whitespace")
    fm3 = FileMatcher(["  x", "y"])
    assert fm3.seek(["x", "y"], 0, CODEX_LADDER) == (0, "whitespace")
    fm4 = FileMatcher(["s = \u201chi\u201d \u2014 ok\u00a0"])
    assert fm4.seek(['s = "hi" - ok'], 0, CODEX_LADDER) == (0, "unicode")
    assert fm4.seek(['s = "hi" - ok'], 0, EXACT_ONLY) is None


def test_seek_end_of_file_preference() -> None:
    fm = FileMatcher(["a", "b", "a", "b"])
    assert fm.seek(["a", "b"], 0, CODEX_LADDER, eof=True) == (2, "exact")
    assert fm.seek(["a", "b"], 0, CODEX_LADDER, eof=False) == (0, "exact")
    # not at the end: falls back to the normal search
    assert fm.seek(["a"], 0, CODEX_LADDER, eof=True) == (0, "exact")
    assert fm.seek([], 2) == (2, "exact")


def test_at_end_is_a_match_ending_at_the_last_line() -> None:
    fm = FileMatcher(["a", "b  ", "a", "b  "])
    assert fm.at_end(["a", "b"], 0) == (2, "trailing-whitespace")
    assert fm.at_end(["a", "b"], 3) is None  # it would start before `start`
    assert fm.at_end(["b"], 0, EXACT_ONLY) is None


def test_find_last_is_the_last_whole_line_match_in_range() -> None:
    for text in (None, "x\n\nx\ny\n\nx\n"):  # a joined copy, and the caller's text in place
        idx = LineIndex(["x", "", "x", "y", "", "x"], text=text)
        assert idx.find_last(["x"]) == 5
        assert idx.find_last(["x"], 0, 5) == 2
        assert idx.find_last(["x"], 0, 1) == 0
        assert idx.find_last([""], 2) == 4
        assert idx.find_last(["x", "y"], 0, 3) is None  # would end past the range
        assert idx.find_last(["z"]) is None


def test_normalize_levels() -> None:
    line = ["  a b \t"]
    assert normalize_lines(line, "exact") == ["  a b \t"]
    assert normalize_lines(line, "trailing-whitespace") == ["  a b"]
    assert normalize_lines(line, "whitespace") == ["a b"]
    assert normalize_lines(["\u2018x\u2019\u2013\u201cy\u201d"], "unicode") == ["'x'-\"y\""]


def test_levels_strip_whitespace_only_not_information_separators() -> None:
    # str.strip() also strips U+001C-U+001F (str.isspace() says yes; Unicode and Codex no).
    for sep in "\x1c\x1d\x1e\x1f":
        line = f"{sep}x = 1{sep}"
        for level in ("trailing-whitespace", "whitespace", "unicode"):
            assert normalize_lines([line], level) == [line]
        assert strip_ws(f" {sep} ") == sep and leading_ws(f"{sep} x") == ""
        fm = FileMatcher([f"x = 1{sep}", "y"])
        assert fm.locate(["x = 1"], CODEX_LADDER).starts == []
        assert fm.find_all(["x = 1"], "whitespace") == []  # the candidates' search agrees
    wide = "\u3000\u2028\xa0\x85\u205f"
    assert normalize_lines([f"{wide}x{wide}"], "whitespace") == ["x"]
    assert normalize_lines([f"x{wide}\t"], "trailing-whitespace") == ["x"]


def test_index_agrees_with_a_naive_search() -> None:
    rng = random.Random(7)
    for _ in range(300):
        lines = [rng.choice(["a", "b", "", " a", "c"]) for _ in range(rng.randint(0, 12))]
        needle = [rng.choice(["a", "b", "", " a"]) for _ in range(rng.randint(1, 3))]
        start = rng.randint(0, 5)
        naive = [
            i
            for i in range(start, len(lines) - len(needle) + 1)
            if lines[i : i + len(needle)] == needle
        ]
        assert LineIndex(lines).find(needle, start=start, limit=100) == naive, (lines, needle)


def test_tolerant_search_by_candidates_agrees_with_the_full_index() -> None:
    rng = random.Random(11)
    pool = ["a", " a", "a ", "\ta", "b a", "", " ", "ab", "b"]
    for _ in range(500):
        lines = [rng.choice(pool) for _ in range(rng.randint(0, 14))]
        needle = [rng.choice(pool) for _ in range(rng.randint(1, 3))]
        start, end = rng.randint(0, 4), rng.choice([None, rng.randint(0, 14)])
        for level in ("trailing-whitespace", "whitespace"):
            want = LineIndex(lines, level).find(
                normalize_lines(needle, level), start, end, limit=50)
            got = FileMatcher(lines).find_all(needle, level, start, end, limit=50)
            assert got == want, (lines, needle, level, start, end)


def test_tolerant_search_on_a_common_line_falls_back_to_the_index() -> None:
    lines = ["  x = 1"] * 600 + ["y"]
    fm = FileMatcher(lines)
    assert fm.find_all(["x = 1", "y"], "whitespace") == [599]


def test_searching_a_changed_file_through_the_original_index_agrees_with_naive() -> None:
    """FileMatcher(lines, base, pieces): candidates come from the original text for unchanged
    runs and from the written lines directly; results must equal a plain search."""
    from lsp_server.file_text import LineOrigins

    rng = random.Random(23)
    pool = ["a", "b", " a", "ab", "", "a ", "c"]
    for _ in range(400):
        original = [rng.choice(pool) for _ in range(rng.randint(0, 12))]
        base = LineIndex(original)
        lines = list(original)
        origins = LineOrigins(len(lines))
        for _ in range(rng.randint(0, 4)):
            s = rng.randint(0, len(lines))
            e = min(len(lines), s + rng.randint(0, 3))
            kept = [i for i in range(s, e) if rng.random() < 0.5]
            items: list[int | str] = []
            for i in kept:  # kept lines stay in order, new lines go anywhere between them
                items += [rng.choice(pool) for _ in range(rng.randint(0, 1))] + [i]
            items += [rng.choice(pool) for _ in range(rng.randint(0, 2))]
            new = [lines[i] if isinstance(i, int) else i for i in items]
            origins.replace(s, e, items)
            lines[s:e] = new
        fm = FileMatcher(lines, base, origins.pieces)
        plain = FileMatcher(lines)
        key = rng.choice(["a", "b", "c"])
        start = rng.randint(0, 5)
        assert list(fm.lines_containing(key, start)) == [
            j for j in range(start, len(lines)) if key in lines[j]
        ], (original, lines, origins.pieces, key)
        needle = [rng.choice(pool) for _ in range(rng.randint(1, 3))]
        for level in ("exact", "trailing-whitespace", "whitespace"):
            assert fm.find_all(needle, level, start, None, 50) == plain.index(level).find(
                normalize_lines(needle, level), start, None, 50
            ), (lines, needle, level)


def _naive_newline_offsets(lines: list[str]) -> list[int]:
    """Offset in ``"\\n" + "\\n".join(lines) + "\\n"`` of the newline before each line."""
    offsets, pos = [], 0
    for line in [*lines, None]:
        offsets.append(pos)
        if line is not None:
            pos += len(line) + 1
    return offsets


def test_index_over_the_callers_text_agrees_with_the_joined_copy() -> None:
    """LineIndex(lines, text=...) searches the snapshot's own text (no joined copy) and turns
    offsets into lines by counting from known points; every answer must equal the plain
    index's and a naive computation, in any order of questions (the known points grow)."""
    rng = random.Random(31)
    pool = ["a", "b", "", " a", "ab", "c a"]
    for _ in range(400):
        lines = [rng.choice(pool) for _ in range(rng.randint(1, 14))]
        text = "\n".join(lines) + "\n"
        in_place = LineIndex(lines, text=text)
        plain = LineIndex(lines)
        offsets = _naive_newline_offsets(lines)
        for _ in range(6):
            question = rng.randrange(4)
            start, end = rng.randint(0, len(lines)), rng.choice([None, rng.randint(0, 14)])
            if question == 0:
                needle = [rng.choice(pool) for _ in range(rng.randint(1, 3))]
                naive = [i for i in range(start, (len(lines) if end is None else min(end, len(
                    lines))) - len(needle) + 1) if lines[i : i + len(needle)] == needle]
                assert in_place.find(needle, start, end, 100) == naive, (lines, needle)
                assert plain.find(needle, start, end, 100) == naive
            elif question == 1:
                key = rng.choice(["a", "b", "c", " "])
                hi = len(lines) if end is None else end
                naive = [j for j in range(start, min(hi, len(lines))) if key in lines[j]]
                assert list(in_place.iter_containing(key, start, hi)) == naive, (lines, key)
                assert list(plain.iter_containing(key, start, hi)) == naive
            elif question == 2:
                assert in_place.newline_before(start) == offsets[start]
                assert plain.newline_before(start) == offsets[start]
            else:
                offset = rng.randrange(len(text) + 1)
                want = max(k for k, o in enumerate(offsets) if o <= offset)
                want = min(want, len(lines) - 1) if offset < offsets[-1] else len(lines)
                assert in_place.line_at(offset) == plain.line_at(offset) == want, (
                    lines, offset)


def test_index_over_text_without_final_newline_uses_a_copy() -> None:
    lines = ["a", "b"]
    index = LineIndex(lines, text="a\nb")  # not "\n".join(lines) + "\n": not usable in place
    assert index.find(["b"]) == [1] and index.find(["a", "b"]) == [0]


class _SliceCountingLines(list):
    """A file's lines that count how many lines their slices hold (the lengths summed)."""

    sliced = 0

    def __getitem__(self, key):
        got = super().__getitem__(key)
        if isinstance(key, slice):
            type(self).sliced += len(got)
        return got


def test_offsets_of_far_lines_sum_a_bounded_number_of_line_lengths() -> None:
    # 1,500 conversions spread over a 200,000-line file, past what the known points keep:
    # each sums at most CHECKPOINT_LINES lengths plus its share of the checkpoints (built
    # once), not the distance from a far known point (up to 100,000 lines each, before).
    n = 200_000
    plain = [f"line {i}" for i in range(n)]
    lines = _SliceCountingLines(plain)
    index = LineIndex(lines)
    wanted = list(range(67, n, 133))[:1_500]
    offsets = [index.newline_before(line) for line in wanted]
    assert _SliceCountingLines.sliced <= n + len(wanted) * LineIndex.CHECKPOINT_LINES
    assert [index.line_at(offset + 1) for offset in offsets] == wanted
    joined = "\n" + "\n".join(plain) + "\n"
    assert all(joined[offset] == "\n" and joined.startswith(f"\nline {line}\n", offset)
               for line, offset in zip(wanted, offsets, strict=True))


def test_the_levels_come_from_one_table_and_an_unknown_level_is_an_error() -> None:
    from lsp_server.matching import TOLERANT_LEVELS, level_named

    assert LEVELS == ("exact", "trailing-whitespace", "whitespace", "unicode")  # strict first
    assert "exact" not in TOLERANT_LEVELS and len(TOLERANT_LEVELS) == len(LEVELS) - 1
    assert level_named("whitespace").tolerates == "leading/trailing whitespace"
    assert normalize_lines(["  a\u2019 "], "unicode") == ["a'"]
    with pytest.raises(ValueError, match="unknown tolerance level 'blank-lines'"):
        normalize_lines(["a"], "blank-lines")  # never read as the most lenient level
    with pytest.raises(ValueError, match="unknown tolerance level"):
        level_named("")
