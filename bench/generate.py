"""Deterministic workspaces and LLM responses for the benchmarks.

A workspace is a set of Python-like source files made of small functions (7 lines each). The
lines repeat the way real code does (blank lines, ``return result``, similar ``if`` lines), so a
single line is rarely unique but a few consecutive lines are. A response edits distinct
functions, one block per function, in any of the seven formats, with prose between blocks, so
every block validates against the workspace (unless it is made stale on purpose).

Everything is driven by a seeded ``random.Random``: the same arguments give the same text.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

ALL_FORMATS: tuple[str, ...] = (
    "edit-v3",
    "edit-v2",
    "search-replace",
    "hunk-patch",
    "semantic-diff",
    "apply-patch",
    "unified-diff",
)
FUNCTION_LINES = 7  # def, docstring, assignment, if, body, return, blank

_WORDS: list[str] = (  # noqa: SIM905 - a sentence reads better than a word list
    "the parser keeps each block whole and reports the line where it failed so the editor can "
    "show a diagnostic next to the code this change moves the scaling into one helper because "
    "three callers computed it differently we also rename a variable for clarity and keep the "
    "public interface unchanged tests cover the edge cases around empty input and large values "
    "note that the cache must be cleared after the configuration changes otherwise stale entries "
    "survive a reload here is the updated version of the function with the fix applied"
).split()
_NOUNS = ("total", "ratio", "offset", "weight", "count", "score", "limit", "budget", "margin")
_ADJECTIVES = ("adjusted", "scaled", "clamped", "rounded", "cached", "normalised", "expected")


@dataclass
class Workspace:
    """Relative path → file lines (no terminators); every file has ``n_functions`` functions."""

    files: dict[str, list[str]] = field(default_factory=dict)
    n_functions: int = 0

    def text(self, path: str) -> str:
        return "\n".join(self.files[path]) + "\n"

    def total_bytes(self) -> int:
        return sum(len(self.text(p).encode()) for p in self.files)


def function_lines(module: int, k: int, rng: random.Random) -> list[str]:
    """The 7 lines of function ``k`` of file ``module``; numbers drawn from ``rng``."""
    noun = _NOUNS[rng.randrange(len(_NOUNS))]
    adjective = _ADJECTIVES[rng.randrange(len(_ADJECTIVES))]
    return [
        f"def {noun}_{module}_{k}(value, scale={rng.randrange(1, 10)}):",
        f'    """Return the {adjective} {noun} for entry {k}."""',
        f"    result = value * {rng.randrange(2, 50)} + scale",
        f"    if result > {rng.randrange(100, 400)}:",
        f"        result -= {rng.randrange(1, 20)}",
        "    return result",
        "",
    ]


def make_workspace(
    n_files: int, lines_per_file: int, seed: int = 1, prefix: str = "src/pkg"
) -> Workspace:
    """``n_files`` files of ``lines_per_file`` lines (rounded down to whole functions)."""
    rng = random.Random(seed)
    n_functions = max(1, lines_per_file // FUNCTION_LINES)
    ws = Workspace(n_functions=n_functions)
    for module in range(n_files):
        lines: list[str] = []
        for k in range(n_functions):
            lines.extend(function_lines(module, k, rng))
        ws.files[f"{prefix}{module // 50}/mod_{module}.py"] = lines
    return ws


def make_big_file(n_lines: int, seed: int = 7) -> list[str]:
    """One file of ``n_lines`` lines in the workspace style (for the diagnosis benchmark)."""
    rng = random.Random(seed)
    lines: list[str] = []
    k = 0
    while len(lines) < n_lines:
        lines.extend(function_lines(0, k, rng))
        k += 1
    return lines[:n_lines]


def prose(rng: random.Random) -> str:
    """One to three short paragraphs of explanation, as models write between blocks."""
    paragraphs = []
    for _ in range(rng.randrange(1, 4)):
        words = [_WORDS[rng.randrange(len(_WORDS))] for _ in range(rng.randrange(12, 60))]
        sentence = " ".join(words)
        paragraphs.append(sentence[0].upper() + sentence[1:] + ".")
    if rng.random() < 0.3:
        paragraphs.append("\n".join(f"- {_WORDS[rng.randrange(len(_WORDS))]} step {i + 1}"
                                    for i in range(rng.randrange(2, 5))))
    return "\n\n".join(paragraphs)


@dataclass
class Edit:
    """One planned change: replace function line ``start + 2`` (the assignment) of ``path``."""

    path: str
    start: int  # 0-based first line of the function
    lines: list[str]  # the function's 6 non-blank lines as they are in the file
    changed: str  # the new assignment line
    stale: bool = False  # one anchor line no longer matches the file


def _edit_for(path: str, start: int, file_lines: list[str], rng: random.Random,
              stale: bool) -> Edit:
    lines = list(file_lines[start:start + FUNCTION_LINES - 1])
    if stale:
        # the docstring (an anchor/context line in every format) was reworded since
        lines[1] = lines[1].replace("Return the", "Compute the")
    changed = f"    result = value * {rng.randrange(50, 99)} + scale  # tuned"
    return Edit(path, start, lines, changed, stale)


def render(fmt: str, e: Edit, rng: random.Random) -> str:
    """One block of format ``fmt`` making edit ``e`` (templates per docs/formats.md)."""
    d, doc, assign, cond, body, _ret = e.lines
    if fmt == "edit-v3":
        core = "\n".join([e.path, "««« EDIT", d, doc, assign, cond, "═══════ REPL",
                          d, doc, e.changed, cond, "»»» EDIT END"])
        return _maybe_fence(core, e.path, rng)
    if fmt == "edit-v2":
        core = "\n".join([e.path, "««« EDIT", d, doc, "───────", assign, "═══════", e.changed,
                          "───────", cond, body, "»»»"])
        return _maybe_fence(core, e.path, rng)
    if fmt == "search-replace":
        return "\n".join([e.path, "```python", "<<<<<<< SEARCH", doc, assign, cond, "=======",
                          doc, e.changed, cond, ">>>>>>> REPLACE", "```"])
    if fmt == "hunk-patch":
        diff = f"@@ {d}\n {doc}\n-{assign}\n+{e.changed}\n {cond}\n"
        call = json.dumps({"path": e.path, "op": "update", "diff": diff}, ensure_ascii=False)
        return f"edit {call}"
    if fmt == "semantic-diff":
        return "\n".join([f"## File `{e.path}` modified:", "", "### Hunk 1:",
                          "#### Lines to remove:", "```python", doc, assign, cond, "```", "",
                          "#### Lines to add:", "```python", doc, e.changed, cond, "```"])
    if fmt == "apply-patch":
        return "\n".join(["*** Begin Patch", f"*** Update File: {e.path}", f"@@ {d}",
                          f" {doc}", f"-{assign}", f"+{e.changed}", f" {cond}",
                          "*** End Patch"])
    if fmt == "unified-diff":
        first = e.start + 1  # 1-based line of the def
        return "\n".join(["```diff", f"--- a/{e.path}", f"+++ b/{e.path}",
                          f"@@ -{first},5 +{first},5 @@", f" {d}", f" {doc}", f"-{assign}",
                          f"+{e.changed}", f" {cond}", f" {body}", "```"])
    raise ValueError(f"unknown format {fmt!r}")


def _maybe_fence(core: str, path: str, rng: random.Random) -> str:
    """Half the line-format blocks sit in a code fence below their path line, as models do."""
    if rng.random() < 0.5:
        return core
    head, _, rest = core.partition("\n")
    return f"{head}\n```\n{rest}\n```"


@dataclass
class Response:
    text: str
    blocks: int
    per_format: dict[str, int]
    edits: list[Edit]
    segments: list[tuple[str | None, str]]  # (format or None for prose, text), in order

    def only(self, fmt: str) -> str:
        """The response restricted to one format's blocks, each with the prose before it."""
        parts: list[str] = []
        pending_prose = ""
        for kind, chunk in self.segments:
            if kind is None:
                pending_prose = chunk
            elif kind == fmt:
                parts.extend([pending_prose, chunk])
        return "\n\n".join(parts) + "\n"


def _pick_functions(ws: Workspace, rng: random.Random) -> Iterator[tuple[str, int]]:
    """Distinct (path, function start) pairs in random order, round-robin over files."""
    paths = sorted(ws.files)
    orders = {p: rng.sample(range(ws.n_functions), ws.n_functions) for p in paths}
    for round_ in range(ws.n_functions):
        for p in rng.sample(paths, len(paths)):
            yield p, orders[p][round_] * FUNCTION_LINES


def make_response(
    ws: Workspace,
    *,
    n_blocks: int | None = None,
    target_bytes: int | None = None,
    formats: Sequence[str] = ALL_FORMATS,
    seed: int = 2,
    stale_every: int = 0,
) -> Response:
    """A response of ``n_blocks`` blocks (or until ``target_bytes`` of UTF-8) over ``ws``.

    Formats rotate through ``formats`` in shuffled rounds; every ``stale_every``-th block (when
    > 0) has one anchor line that no longer matches, so it fails with a diagnosis.
    """
    if n_blocks is None and target_bytes is None:
        raise ValueError("give n_blocks or target_bytes")
    rng = random.Random(seed)
    segments: list[tuple[str | None, str]] = [(None, "Here are the changes you asked for.")]
    size = len(segments[0][1])
    per_format = {f: 0 for f in formats}
    edits: list[Edit] = []
    rotation: list[str] = []
    for path, start in _pick_functions(ws, rng):
        if n_blocks is not None and len(edits) >= n_blocks:
            break
        if target_bytes is not None and size >= target_bytes:
            break
        if not rotation:
            rotation = rng.sample(list(formats), len(formats))
        fmt = rotation.pop()
        stale = stale_every > 0 and (len(edits) + 1) % stale_every == 0
        edit = _edit_for(path, start, ws.files[path], rng, stale)
        block = render(fmt, edit, rng)
        text = prose(rng)
        segments.extend([(fmt, block), (None, text)])
        size += len(block.encode()) + len(text.encode()) + 4
        per_format[fmt] += 1
        edits.append(edit)
    text = "\n\n".join(chunk for _, chunk in segments) + "\n"
    return Response(text, len(edits), per_format, edits, segments)


def typical_response(ws: Workspace, seed: int = 3) -> Response:
    """A typical model answer: 5 blocks over 3 files, mixed formats."""
    paths = sorted(ws.files)[:3]
    small = Workspace({p: ws.files[p] for p in paths}, ws.n_functions)
    return make_response(small, n_blocks=5, seed=seed,
                         formats=("edit-v3", "search-replace", "apply-patch", "unified-diff",
                                  "edit-v2"))


@dataclass
class StaleCase:
    response: str
    expected_line: int  # 0-based line where the block's matched text would start
    must_match: list[str]  # leading anchor + old + trailing anchor, as the block gives them


def stale_anchor_block(lines: list[str], at_line: int, path: str = "src/big.py") -> StaleCase:
    """An edit-v2 block for the function at or before ``at_line`` whose leading anchor's
    second line was reworded since (so it no longer matches the file)."""
    start = (at_line // FUNCTION_LINES) * FUNCTION_LINES
    d, doc, assign, cond, body, _ret = lines[start:start + FUNCTION_LINES - 1]
    stale_doc = doc.replace("Return the", "Compute the")
    response = "\n".join([
        "I fixed the scaling:", "", path, "««« EDIT", d, stale_doc, "───────", assign,
        "═══════", assign.replace("value *", "value * 2 *"), "───────", cond, body, "»»»", "",
    ])
    return StaleCase(response, start, [d, stale_doc, assign, cond, body])


@dataclass
class Patch:
    """One ``*** Begin Patch`` envelope and the files as they must be after applying it."""

    text: str
    hunks: int
    after: dict[str, str]  # relative path → expected text


def make_apply_patch(ws: Workspace, hunks_per_file: int, seed: int = 4,
                     near_end: bool = False) -> Patch:
    """One apply-patch envelope (Codex's format) updating every file of ``ws`` with
    ``hunks_per_file`` hunks, in file order, each changing one function's assignment line
    under an ``@@ def ...`` header (``near_end``: the last functions of each file)."""
    rng = random.Random(seed)
    lines = ["*** Begin Patch"]
    after: dict[str, str] = {}
    for path in sorted(ws.files):
        file_lines = list(ws.files[path])
        starts = range(ws.n_functions)
        chosen = (list(starts)[-hunks_per_file - 1:-1] if near_end
                  else sorted(rng.sample(starts, hunks_per_file)))
        lines.append(f"*** Update File: {path}")
        for k in chosen:
            start = k * FUNCTION_LINES
            d, doc, assign, cond = file_lines[start:start + 4]
            changed = f"    result = value * {rng.randrange(50, 99)} + scale  # tuned"
            lines += [f"@@ {d}", f" {doc}", f"-{assign}", f"+{changed}", f" {cond}"]
            file_lines[start + 2] = changed
        after[path] = "\n".join(file_lines) + "\n"
    lines.append("*** End Patch")
    return Patch("\n".join(lines) + "\n", hunks_per_file * len(ws.files), after)
