"""diagnosis: estimated line, actionable reasons, hints, quick-fix data, context."""

from __future__ import annotations

import json
import random
import subprocess
import sys

from lsp_server.diagnosis import (
    diagnose,
    elision_lines,
    line_block_reason,
    whitespace_difference,
)
from lsp_server.matching import WHITESPACE_LADDER, FileMatcher, LineIndex


def _estimated_line(fm: FileMatcher, needle: list[str], hint_line: int | None = None) -> int:
    """docs/formats.md's estimated line: where the diagnosis of a needle not found puts it."""
    return diagnose(fm, needle, "No match found", hint_line=hint_line).line


APP = [
    "import os",
    "",
    "",
    "def greet(name):",
    '    """Say hello."""',
    '    return "Hello, " + name',
    "",
    "",
    "def add(a, b):",
    "    return a + b",
    "",
    "",
    "def main():",
    '    print(greet("world"))',
    "    print(add(1, 2))",
]


def test_which_part_failed() -> None:
    fm = FileMatcher(APP)
    assert line_block_reason(fm, ["def nope():"], [], []) == "Leading anchor not found in file"
    assert line_block_reason(fm, ["def add(a, b):"], ["    return 0"], []) == (
        "Old lines don't match content after anchor")
    assert line_block_reason(fm, ["def add(a, b):"], ["    return a + b"], ["x"]) == (
        "Trailing anchor not found after old lines")
    assert line_block_reason(fm, [], ["nope"], []) == "Old lines not found in file"
    assert line_block_reason(fm, [], [], ["nope"]) == "Trailing anchor not found in file"
    # tolerance applies to the parts too
    assert line_block_reason(fm, ["  def add(a, b):"], ["nope"], [], WHITESPACE_LADDER) == (
        "Old lines don't match content after anchor")


def test_estimated_line_is_the_best_window_start() -> None:
    fm = FileMatcher(APP)
    # one stale line among matching ones: the window still lines up
    assert _estimated_line(fm, ["def add(a, b):", "    return a - b", ""]) == 8
    # the first needle line is missing from the file: the window starts before line 13
    assert _estimated_line(fm, ["def mian():", '    print(greet("world"))']) == 12


def test_estimated_line_for_an_edited_line_uses_similarity() -> None:
    lines = ["# -*- coding: utf-8 -*-", "import click", "import pytest", ""] + [
        f"x{i} = {i}" for i in range(50)
    ]
    fm = FileMatcher(lines)
    assert _estimated_line(fm, ["# -*- Xoding: utf-8 -*-"]) == 0
    assert _estimated_line(fm, ["x31 = 3l"]) == 35


def test_common_lines_do_not_drown_the_edited_one() -> None:
    # "}" is everywhere; the edited "Xeturn" line must still find its place
    lines = []
    for i in range(60):
        lines += [f"func f{i}() error {{", f"\treturn call{i}(x)", "}", ""]
    fm = FileMatcher(lines)
    target = lines.index("\treturn call47(x)")
    assert _estimated_line(fm, ["\tXeturn call47(x)", "}", ""]) == target


def test_hint_line_breaks_ties() -> None:
    fm = FileMatcher(["a", "b", "x", "a", "b", "y"])
    assert _estimated_line(fm, ["a", "b", "z"], hint_line=3) == 3
    assert _estimated_line(fm, ["a", "b", "z"]) == 0


def test_whitespace_diagnosis_names_the_line_and_offers_the_fix() -> None:
    fm = FileMatcher(["def f():", "\treturn 1"])
    d = diagnose(fm, ["def f():", "    return 1"], "Old lines not found in file",
                 tolerant_start=0)
    assert d.line == 0 and d.fixes == {"matching": "whitespace"}
    assert "line 2" in d.reason and "1 tab" in d.reason and "4 spaces" in d.reason
    assert d.reason.startswith("Old lines not found in file")


def test_whitespace_difference_descriptions() -> None:
    assert "trailing" in whitespace_difference("x", "x  ")
    assert "block line has trailing" in whitespace_difference("x \t", "x")
    assert "indentation is 2 spaces in the file but no indentation" in whitespace_difference(
        "x", "  x")


def test_elision_placeholders_are_named() -> None:
    fm = FileMatcher(APP)
    needle = ["def main():", "    ...", "    print(add(1, 2))"]
    d = diagnose(fm, needle, "Leading anchor not found in file")
    assert d.line == 12
    assert "elision placeholder" in d.reason and "'...'" in d.reason
    assert "closestLine" not in d.fixes  # forcing would clobber the elided lines
    for text in ("// rest of code", "# ... existing code ...", "/* ... */", "…",
                 "<!-- unchanged -->", "// ... rest of the function"):
        assert elision_lines([text]) == [0], text
    assert elision_lines(["x = ...", "# real comment", "print('...')"]) == []


def test_elision_check_is_linear_on_long_whitespace_runs() -> None:
    # The elision regex once backtracked cubically on a comment marker followed by a long
    # run of spaces: 1,500 spaces took 16 s, these 20,000 would take hours. Run in a child
    # process so a regression fails at the timeout instead of hanging the suite; the check
    # itself takes well under a millisecond, so the timeout says nothing about speed.
    hostile = [f"{marker}{' ' * 20_000}{tail}"
               for marker in ("#", "//", "/*", "<!--")
               for tail in ("x", "rest", "...x", "*/ x")]
    code = ("import sys, json; from lsp_server.diagnosis import elision_lines; "
            "print(elision_lines(json.loads(sys.stdin.read())))")
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(hostile),
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"
    spaced = ["#" + " " * 5_000 + "rest of it", "/*" + " " * 5_000 + "... */"]
    assert elision_lines(spaced) == [0, 1]


def test_a_real_ellipsis_in_the_file_is_not_an_elision() -> None:
    fm = FileMatcher(["class P(Protocol):", "    def f(self): ...", "    ..."])
    assert elision_lines(["    ..."], fm) == []


def test_did_you_mean_hint_context_and_closest_line_fix() -> None:
    fm = FileMatcher(APP)
    needle = ["def add(a, c):", "    return a + c"]
    d = diagnose(fm, needle, "Leading anchor not found in file")
    assert d.line == 8
    assert d.hint is not None and "line 9" in d.hint and "def add(a, b):" in d.hint
    assert d.fixes == {"closestLine": 8}
    assert d.context[0] == (5, APP[5]) and (8, "def add(a, b):") in d.context


def test_no_closest_line_for_a_poor_match() -> None:
    fm = FileMatcher(APP)
    d = diagnose(fm, ["completely different", "text here"], "Old lines not found in file")
    assert "closestLine" not in d.fixes


def test_ambiguous_diagnosis_reports_the_first_match() -> None:
    fm = FileMatcher([*APP, "def add2(a, b):", "    return a + b"])
    d = diagnose(fm, ["    return a + b"], "ambiguous", ambiguous_start=9)
    assert d.line == 9 and d.reason == "ambiguous" and d.fixes == {}


def test_empty_file_and_empty_needle() -> None:
    assert diagnose(FileMatcher([]), ["x"], "r").line == 0
    assert _estimated_line(FileMatcher(["a"]), []) == 0


def test_large_file() -> None:
    # 100,000 lines: the vote and fuzzy paths find the place (speed is measured by bench/).
    rng = random.Random(5)
    lines = [
        "".join(rng.choice("abcdefghij (){}=;") for _ in range(rng.randint(0, 60)))
        for _ in range(100_000)
    ]
    lines[70_000:70_003] = ["def target_function(alpha, beta):", "    value = alpha * beta",
                            "    return value"]
    fm = FileMatcher(lines)
    needle = ["def target_function(alpha, beta):", "    value = alpha + beta", "    return value"]
    d = diagnose(fm, needle, "Old lines don't match content after anchor")
    assert d.line == 70_000 and d.fixes == {"closestLine": 70_000}
    # an entirely edited needle takes the fuzzy path
    assert _estimated_line(fm, ["def target_functoin(alpha, beta):"]) == 70_000


def test_a_short_line_inside_many_longer_ones_still_votes() -> None:
    # "x" is part of 600 other lines (more than are checked one by one) but a whole line
    # only once: it must still place the block (the other needle line matches nothing).
    lines = [f"x{i} = {i}" for i in range(600)]
    lines[300:300] = ["    x", "tail()"]
    fm = FileMatcher(lines)
    assert _estimated_line(fm, ["x", "zzzz qqqq wwww"]) == 300
    # and a real "..." line among many lines merely containing "..." is not an elision
    stub = [f"print('...{i}')" for i in range(600)] + ["    ..."]
    assert elision_lines(["..."], FileMatcher(stub)) == []
    assert elision_lines(["..."], FileMatcher(stub[:-1])) == [0]


def test_diagnosis_on_a_file_changed_by_earlier_blocks() -> None:
    # As the planner searches a changed file: the original text's index plus the map of
    # current lines onto it (an edit replaced line 0 and inserted two lines after line 8).
    current = ["import sys", *APP[1:9], "    # added", "    # also added", *APP[9:]]
    pieces = [(None, 1), (1, 8), (None, 2), (9, len(APP) - 9)]
    fm = FileMatcher(current, LineIndex(APP), pieces)
    d = diagnose(fm, ["def main():", '    print(greet("wrold"))'], "Old lines not found")
    assert d.line == current.index("def main():")
    assert d.hint is not None and 'greet("world")' in d.hint
    # lines written by the earlier edit vote too
    assert _estimated_line(fm, ["    # also added", "    retrun a + b"]) == 10
    assert _estimated_line(fm, ["    # added", "nope nope nope"]) == 9
