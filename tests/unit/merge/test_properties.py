"""Properties over real code (this package's own modules): a definition taken whole from a
file, one line changed, merges to exactly that change; verbatim it changes nothing; the merge
never raises on cut or shuffled excerpts."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from lsp_server.merge import Merged, MergeRequest, merge_code_block

PACKAGE = Path(__file__).resolve().parents[3] / "lsp_server"
_STARTS = ("def ", "class ", "@", "async def ")


def _modules() -> list[tuple[str, list[str]]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    return [(str(p.relative_to(PACKAGE.parent)), p.read_text(encoding="utf-8").split("\n"))
            for p in paths]


def _definitions(lines: list[str], indent: str) -> list[tuple[int, int]]:
    """Spans of the definitions starting at ``indent`` whose last line is indented deeper
    (a definition ends before the next line at its indentation or less)."""
    starts = [i for i, line in enumerate(lines)
              if line.startswith(indent) and line[len(indent):].startswith(_STARTS)
              and not (i and lines[i - 1].startswith(indent + "@"))]
    spans = []
    for s in starts:
        e = s + 1
        while e < len(lines) and (not lines[e].strip() or lines[e].startswith(indent + " ")
                                  or lines[e].startswith(indent + ")")):
            e += 1
        while e > s and not lines[e - 1].strip():
            e -= 1
        if e - s >= 2 and lines[e - 1].startswith(indent + " "):
            spans.append((s, e))
    return spans


def _cases(seed: int, count: int) -> list[tuple[str, list[str], list[str], list[str]]]:
    """(path, file lines, snippet, expected lines)."""
    rng = random.Random(seed)
    modules = _modules()
    cases = []
    while len(cases) < count:
        path, lines = rng.choice(modules)
        indent = rng.choice(["", "    "])
        spans = _definitions(lines, indent)
        if not spans:
            continue
        s, e = rng.choice(spans)
        snippet = lines[s:e]
        expected = list(lines)
        changeable = [i for i in range(1, len(snippet)) if snippet[i].strip()
                      and not snippet[i].rstrip().endswith(("\\", '"""', "'''", ","))
                      and "#" not in snippet[i]]
        if changeable and rng.random() < 0.7:
            i = rng.choice(changeable)
            snippet[i] += "  # changed"
            expected[s + i] = snippet[i]
        mode = rng.random()
        if indent and mode < 0.35:  # a method pasted at column 0
            snippet = [line[4:] if line.startswith("    ") else line for line in snippet]
        elif indent and mode < 0.7:  # inside its class, the other members elided
            top = next((k for k in range(s, -1, -1) if lines[k][:1] not in ("", " ", ")")),
                       None)  # the top-level line the definition is under
            if top is None or not lines[top].startswith("class "):
                continue  # a function nested in a function, not a method
            snippet = [lines[top], "    # ... existing code ...", "", *snippet]
        cases.append((path, lines, snippet, expected))
    return cases


def test_a_whole_definition_merges_to_exactly_its_change() -> None:
    merged = 0
    cases = _cases(seed=24, count=150)
    for path, lines, snippet, expected in cases:
        result = merge_code_block(MergeRequest(lines, snippet, path))
        if isinstance(result, Merged):
            assert result.lines == expected, (path, snippet[0])
            merged += 1
        else:  # only two definitions of one name may stop it
            assert result.kind == "ambiguous", (path, snippet[0], result.reason)
    assert merged >= len(cases) * 0.8


@pytest.mark.parametrize("seed", [1, 2])
def test_the_merge_never_raises_on_cut_excerpts(seed: int) -> None:
    rng = random.Random(seed)
    modules = _modules()
    for _ in range(120):
        path, lines = rng.choice(modules)
        a = rng.randrange(len(lines))
        snippet = lines[a:a + rng.randrange(1, 30)]
        if snippet and rng.random() < 0.5:
            snippet.insert(rng.randrange(len(snippet)), "    # ... existing code ...")
        if rng.random() < 0.3:
            rng.shuffle(snippet)
        result = merge_code_block(MergeRequest(lines, snippet, path,
                                               whitespace=rng.random() < 0.5))
        assert result.kind in ("whole", "snippet", "ambiguous", "not-found", "looks-partial",
                               "syntax-error")


_LINE_PARTS = ["def f(x):", "class A:", "    return x", "}", "{", "function g() {", "# ...",
               "// ... existing code ...", "...", "", "  ", "\t", "import os", "x = 1",
               "## Title", "key: value", "[table]", '"a": 1,', "end", "é…\u200b", "<?php",
               "impl A {", "fn f() {}", "@dec", "    # comment", "*/", "/*", "`"]


@pytest.mark.parametrize("path", ["a.py", "a.ts", "a.go", "a.rs", "a.java", "a.c", "a.cpp",
                                  "a.cs", "a.rb", "a.php", "a.json", "a.yaml", "a.toml",
                                  "a.md", "a.kt"])
def test_random_lines_never_raise(path: str) -> None:
    rng = random.Random(path)
    for _ in range(60):
        file = [rng.choice(_LINE_PARTS) for _ in range(rng.randrange(0, 25))]
        code = [rng.choice(_LINE_PARTS) for _ in range(rng.randrange(0, 12))]
        result = merge_code_block(MergeRequest(file or None, code, path,
                                               whitespace=rng.random() < 0.5,
                                               at_line=rng.choice([None, 0, 3])))
        if isinstance(result, Merged):
            assert all(isinstance(line, str) and "\n" not in line for line in result.lines)
