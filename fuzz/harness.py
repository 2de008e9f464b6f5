"""Hostile responses and the invariants every one of them must keep (engine level).

Used by ``tests/e2e/test_fuzz.py`` (a few hundred examples) and ``fuzz/run_fuzz.py`` (the long
run). A :class:`HostileWorkspace` is a temporary directory holding a workspace folder ``ws``
full of traps (symlinks out of it, a ``.git`` directory, binary, Latin-1 and UTF-16 files)
and a sibling ``outside`` folder that must never be touched. :func:`responses` generates
near-valid responses in all seven formats with their markers shuffled, truncated, nested,
duplicated, with huge lines, NUL bytes, lone surrogates, deep fences and enormous JSON.
:func:`check_response` parses and plans one response and returns every broken invariant
as a message (an empty list means the response was handled safely).
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from lsp_server.feedback import build_feedback
from lsp_server.lsp.file_reader import FileReader
from lsp_server.lsp.protocol.client_features import ClientFeatures
from lsp_server.lsp.protocol.diagnostics import plan_diagnostics
from lsp_server.lsp.protocol.workspace_edit import workspace_edit_json
from lsp_server.model import FileEdit, ParseResult, PlanResult, ResourceOp
from lsp_server.parsing import normalize_response, parse_response, semantic_diff
from lsp_server.parsing.marker_scan import scan_markers
from lsp_server.planning import plan_edits
from lsp_server.results import result_dict
from lsp_server.workspace import read_disk_file

# ------------------------------------------------------------------ the workspace

TEXT_FILES = {
    "a.txt": "alpha\nbeta\ngamma\ndelta\n",
    "src/b.py": "def f(x):\n    return x + 1\n\n\ndef g(y):\n    return y * 2\n",
    "src/dup.py": "x = 1\nx = 1\ny = 2\n",
    "crlf.txt": "one\r\ntwo\r\nthree\r\n",
    "nofinal.txt": "first\nlast",
    "bom.txt": "\ufeffheader\nbody\n",
    "empty.txt": "",
    "uni.txt": "caf\u00e9 \U0001f600\nna\u00efve\n",
    "mixed.txt": "one\r\ntwo\nthree\r\nfour\n",  # each replaced line keeps its own ending
}
BYTE_FILES = {
    "bin.dat": b"\x00\x01binary\nstuff\n",
    "latin1.txt": "caf\u00e9\nna\u00efve\n".encode("latin-1"),
    "utf16.txt": "\ufeffhello\nworld\n".encode("utf-16-le"),
}
OUTSIDE_FILES = {"secret.txt": "secret\n", "x.py": "x = 1\n"}
# name in ws → target (relative to ws)
SYMLINKS = {
    "link_out": "../outside",  # directory symlink leaving the workspace
    "link_out_file": "../outside/secret.txt",
    "link_git": ".git",
    "link_in": "a.txt",  # stays inside: allowed
    "dangling": "../outside/missing.txt",
    "link_src": "src",  # a second name for src/: one file, planned once
    "src/up.txt": "../a.txt",  # relative: moved to another depth it would point elsewhere
}
GIT_FILES = {".git/config": "[core]\n", ".git/hooks/pre-commit": "#!/bin/sh\n"}


@dataclass
class HostileWorkspace:
    base: Path

    @property
    def root(self) -> Path:
        return self.base / "ws"

    @property
    def outside(self) -> Path:
        return self.base / "outside"

    @classmethod
    def create(cls, base: Path) -> HostileWorkspace:
        ws = cls(Path(os.path.realpath(base)))
        for rel, text in {**TEXT_FILES, **GIT_FILES}.items():
            path = ws.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8"))
        for rel, data in BYTE_FILES.items():
            (ws.root / rel).write_bytes(data)
        ws.outside.mkdir(parents=True, exist_ok=True)
        for rel, text in OUTSIDE_FILES.items():
            (ws.outside / rel).write_text(text, encoding="utf-8")
        for name, target in SYMLINKS.items():
            os.symlink(target, ws.root / name)
        return ws

    def snapshot(self) -> dict[str, object]:
        """Every entry under the base directory: file bytes, link targets, directories."""
        out: dict[str, object] = {}
        for dirpath, dirnames, filenames in os.walk(self.base):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, self.base)
                if os.path.islink(path):
                    out[rel] = ("link", os.readlink(path))
                elif os.path.isdir(path):
                    out[rel] = ("dir",)
                else:
                    with open(path, "rb") as fh:
                        out[rel] = ("file", fh.read())
        return out

    def confined(self, path: Path) -> str | None:
        """Why ``path`` (a change's target) is not a safe place to write, or None."""
        root = str(self.root)
        lexical = os.path.normpath(str(path))
        if not (lexical + os.sep).startswith(root + os.sep) or lexical == root:
            return f"{path} is outside the workspace"
        real = os.path.realpath(lexical)
        if not (real + os.sep).startswith(root + os.sep):
            return f"{path} resolves to {real}, outside the workspace"
        for rel in (os.path.relpath(lexical, root), os.path.relpath(real, root)):
            if any(_names_git(part) for part in Path(rel).parts):
                return f"{path} is inside .git"
        return None


def _names_git(part: str) -> bool:
    """``.git`` as NTFS or HFS+ reads a name: code points HFS+ ignores left out, a stream
    (``:…``) and trailing dots and spaces dropped, any case, also the 8.3 name GIT~1."""
    kept = "".join(c for c in part if not ("\u200c" <= c <= "\u200f" or "\u202a" <= c <= "\u202e"
                                           or "\u206a" <= c <= "\u206f" or c == "\ufeff"))
    return kept.split(":")[0].rstrip(". ").lower() in (".git", "git~1")


# ------------------------------------------------------------------ paths

GOOD_PATHS = [
    "a.txt", "src/b.py", "src/dup.py", "crlf.txt", "nofinal.txt", "bom.txt", "empty.txt",
    "uni.txt", "new.txt", "src/new/deep.py", "link_in", "./a.txt", "src/../a.txt",
    "mixed.txt", "link_src/b.py", "link_src/new.py", "src/up.txt",
]
HOSTILE_PATHS = [
    "../outside/secret.txt", "../outside/new.txt", "src/../../outside/x.py", "..", ".",
    "~/x.txt", "~root/.bashrc", "C:/x.txt", "c:x.txt", "C:\\Windows\\x.txt", "src\\b.py",
    "%2e%2e/outside/secret.txt", "src%2fb.py", "%2E%2E%2Foutside", "file:///etc/passwd",
    "http://example.com/x", ".git/config", ".GIT/hooks/pre-commit", ".git", "src/.git/x",
    "link_git/config", "link_out/secret.txt", "link_out/new.py", "link_out", "link_out_file",
    "dangling", "dangling/x", "a\x00b.txt", " a.txt", "a.txt ", "bin.dat", "latin1.txt",
    "utf16.txt", "src", "x" * 300, "d/" * 200 + "x", "/etc/passwd", "//etc/passwd",
    "a.txt\x00../../outside/secret.txt", "evil\x1b[2J\x1b]0;title\x07.txt", "tab\there",
    # .git to Windows or macOS (git's is_ntfs_dotgit / is_hfs_dotgit)
    ".git./config", ".git /config", "GIT~1/config", "git~1. /hooks/pre-commit",
    ".git::$INDEX_ALLOCATION/config", ".git:x", ".g\u200cit/config", "\ufeff.git/config",
    # invisible characters (bidi overrides, zero-width, fillers), names too long
    "\u202etxt.exe", "a\u200bb.txt", "src/b\u2066.py", "\u3164.py", "a\u2028b.txt",
    "y" * 256 + ".py", "new/" + "z" * 300 + "/x.py", ("d" * 200 + "/") * 25 + "x",
]


def outside_paths(ws: HostileWorkspace) -> list[str]:
    """Absolute paths that need the temporary directory's name."""
    return [str(ws.outside / "secret.txt"), str(ws.outside / "new.txt"),
            str(ws.root / ".." / "outside" / "x.py"), str(ws.root / "a.txt"), str(ws.root)]


# ------------------------------------------------------------------ responses

FENCES = ["```", "```python", "~~~", "````", "```diff", "```json", "<source>", ""]
PROSE = ["Here is the change:", "", "Done.", "1. first", "> quote", "# heading", "   "]
MARKERS = [
    "««« EDIT", "═══════ REPL", "»»» EDIT END", "───────", "═══════", "»»»",
    "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "<<<<< SEARCH", ">>>>>>>>> REPLACE",
    "*** Begin Patch", "*** End Patch", "*** Update File: a.txt", "*** Add File: n.txt",
    "*** Delete File: a.txt", "*** Move to: b.txt", "*** End of File", "@@", "@@ -1,2 +1,2 @@",
    "--- a/a.txt", "+++ b/a.txt", "--- /dev/null", "+++ /dev/null", "diff --git a/a b/a",
    "## File `a.txt` modified:", "### Hunk 1:", "#### Lines to remove:", "#### Lines to add:",
    "## File `n.txt` created:", "## File `a.txt` deleted.", "## File `a.txt` moved to `b.txt`.",
    'edit {"path": "a.txt", "op": "update", "diff": "@@\\n-alpha\\n+ALPHA\\n"}',
    "```", "````", "~~~", "```json", "\\ No newline at end of file",
]
# Lines that start a block (in the canonical spelling this generator writes).
START_MARKER_RE = re.compile(
    r"^(?:««« EDIT[ \t]*|<{7} SEARCH[ \t]*|\*\*\* Begin Patch[ \t]*|edit \{.*"
    r"|## File `[^`\n]+` (?:modified:|created:|deleted\.|moved to `[^`\n]+`\.)[ \t]*)$"
)

_SAFE_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r")
content_line = st.one_of(
    st.sampled_from(["alpha", "beta", "gamma", "    return x + 1", "x = 1", "", "  ", "}"]),
    st.text(_SAFE_CHARS, max_size=20),
    st.sampled_from(MARKERS),
)


def file_slice(ws_files: dict[str, str]) -> st.SearchStrategy[tuple[str, list[str]]]:
    """A workspace path with some of its real consecutive lines (so blocks often match)."""
    split = {name: text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
             for name, text in ws_files.items()}

    @st.composite
    def build(draw) -> tuple[str, list[str]]:
        name = draw(st.sampled_from(sorted(split)))
        lines = split[name]
        start = draw(_ints(0, max(0, len(lines) - 1)))
        end = draw(_ints(start, len(lines)))
        return name, lines[start:end]

    return build()


@functools.lru_cache(maxsize=4096)
def _ints(low: int, high: int) -> st.SearchStrategy[int]:
    """Integer strategies are built once per range: building one costs more than a draw."""
    return st.integers(low, high)


_FILE_SLICE = file_slice(TEXT_FILES)
_CONTENT_LINES = st.lists(content_line, max_size=4)
_FENCE = st.sampled_from(FENCES)
_FORMAT = st.sampled_from(["edit-v3", "edit-v2", "search-replace", "hunk-patch",
                           "semantic-diff", "apply-patch", "unified-diff"])
_OP = st.sampled_from(["update", "update", "create", "delete", "rename"])
_TICK = st.sampled_from(["```", "````", "~~~"])
_MARKER = st.sampled_from(MARKERS)
_HUGE_CHAR = st.sampled_from("xa =»<`")
_POISON = st.sampled_from(["\x00", "\x00\x00x", "\x1b[31m", "\x7f", "\u2028", "\x0c"])
_SURROGATE = st.sampled_from(["\ud800", "\udcff", "\udfff"])
_PROSE_LINES = st.lists(st.sampled_from(PROSE), max_size=2)
_NEWLINE = st.sampled_from(["\n", "\r\n", "\n"])


def _hunk_body(old: list[str], new: list[str], context: list[str]) -> list[str]:
    return [" " + c for c in context] + ["-" + o for o in old] + ["+" + n for n in new]


def block_lines(draw: st.DrawFn, path_choices: st.SearchStrategy[str]) -> list[str]:
    """One block of a random format, valid before mutation (``draw`` from a composite)."""
    use_real = draw(st.booleans())
    if use_real:
        path, old = draw(_FILE_SLICE)
        if draw(_ints(0, 3)) == 0:
            path = draw(path_choices)
    else:
        path, old = draw(path_choices), draw(_CONTENT_LINES)
    new = draw(_CONTENT_LINES)
    target = draw(path_choices)
    fence = draw(_FENCE)
    close = "</source>" if fence == "<source>" else re.match(r"[`~]*", fence).group(0)
    fmt = draw(_FORMAT)
    op = draw(_OP)
    if fmt == "edit-v3":
        body = ["««« EDIT", *([] if op == "create" else old), "═══════ REPL", *new,
                "»»» EDIT END"]
        return [path, fence, *body, close]
    if fmt == "edit-v2":
        k = draw(_ints(0, len(old)))
        body = ["««« EDIT", *old[:k], "───────", *old[k:], "═══════", *new, "───────", "»»»"]
        return [path, *body]
    if fmt == "search-replace":
        return [path, fence, "<<<<<<< SEARCH", *([] if op == "create" else old), "=======",
                *new, ">>>>>>> REPLACE", close]
    if fmt == "hunk-patch":
        call: object = {"path": path, "op": op if op != "rename" else "update"}
        if op == "create":
            call["diff"] = "\n".join(new)  # type: ignore[index]
        elif op != "delete":
            call["diff"] = "\n".join(["@@", *_hunk_body(old, new, [])]) + "\n"  # type: ignore[index]
        if op == "rename":
            call["rename"] = target  # type: ignore[index]
        shape = draw(_ints(0, 5))
        if shape == 0:  # enormous JSON: very deep nesting
            depth = draw(_ints(100, 5000))
            return ["edit " + '{"path": ' * depth + "1" + "}" * depth]
        if shape == 1:  # deep arrays in a json fence
            depth = draw(_ints(100, 5000))
            return ["```json", "[" * depth + json.dumps(call) + "]" * depth, "```"]
        if shape == 2:  # many calls in one array
            return ["```json", json.dumps([call] * draw(_ints(2, 20))), "```"]
        if shape == 3:
            return ["```json", *json.dumps(call, indent=2).split("\n"), "```"]
        return ["edit " + json.dumps(call, ensure_ascii=draw(st.booleans()))]
    if fmt == "semantic-diff":
        tick = draw(_TICK)
        if op == "create":
            return [f"## File `{path}` created:", "#### Lines to add:", tick, *new, tick]
        if op == "delete":
            return [f"## File `{path}` deleted."]
        if op == "rename":
            return [f"## File `{path}` moved to `{target}`."]
        return [f"## File `{path}` modified:", "### Hunk 1:", "#### Lines to remove:", tick,
                *old, tick, "#### Lines to add:", tick, *new, tick]
    if fmt == "apply-patch":
        if op == "create":
            body = [f"*** Add File: {path}", *["+" + n for n in new]]
        elif op == "delete":
            body = [f"*** Delete File: {path}"]
        else:
            body = [f"*** Update File: {path}"]
            if op == "rename":
                body.append(f"*** Move to: {target}")
            body += ["@@", *_hunk_body(old, new, [])]
        return ["*** Begin Patch", *body, "*** End Patch"]
    # unified-diff
    if op == "create":
        return ["--- /dev/null", f"+++ b/{path}", f"@@ -0,0 +1,{len(new)} @@",
                *["+" + n for n in new]]
    if op == "delete":
        return [f"--- a/{path}", "+++ /dev/null", f"@@ -1,{len(old)} +0,0 @@",
                *["-" + o for o in old]]
    new_name = target if op == "rename" else path
    return ["```diff", f"--- a/{path}", f"+++ b/{new_name}",
            f"@@ -1,{len(old)} +1,{len(new)} @@", *_hunk_body(old, new, []), "```"]


def red_team_lines(draw: st.DrawFn, huge: int) -> list[str]:
    """One block of issue 13's red-team parser categories: a number of thousands of digits
    (a unified-diff header, a hunk-patch call), a lone surrogate escape in a hunk-patch path,
    a block of very many tiny hunks (apply-patch, hunk-patch), a failing line of long
    whitespace (the elision check backtracked on it), a ``git diff -U0`` of zero-context
    hunks, and very many blocks on one file."""
    kind = draw(_ints(0, 7))
    digits = "9" * draw(_ints(4300, 4300 + huge // 4))
    if kind == 0:
        return ["--- a/a.py", "+++ b/a.py", f"@@ -{digits},1 +1,1 @@", "-a", "+b"]
    if kind == 1:
        return [f'edit {{"path": "a.py", "op": "delete", "n": {digits}}}']
    if kind == 2:
        escape = draw(st.sampled_from(["\\ud800", "\\udfff", "\\udc80"]))
        field = draw(st.sampled_from(["path", "rename"]))
        call = {"path": "a.py", "op": "update", "diff": "@@\n-a\n+b\n", field: "x.py"}
        return ["edit " + json.dumps(call).replace('x.py"', f'x{escape}.py"', 1)]
    if kind == 5:
        spaces = " " * draw(_ints(1000, 1000 + huge // 4))
        return ["a.py", "```", "<<<<<<< SEARCH", f"#{spaces}x", "=======", "y",
                ">>>>>>> REPLACE", "```"]
    hunks = draw(_ints(100, huge))
    if kind == 6:  # one zero-context hunk per removed line, as `git diff -U0` writes
        return ["--- a/a.py", "+++ b/a.py",
                *[line for k in range(hunks // 10) for line in (f"@@ -{k + 1},1 +{k},0 @@", "-")]]
    if kind == 7:
        return [line for k in range(hunks // 20) for line in (
            "a.py", "```", "<<<<<<< SEARCH", f"line {k}", "=======", f"line {k}!",
            ">>>>>>> REPLACE", "```")]
    if kind == 3:
        return ["*** Begin Patch", "*** Update File: a.py", *["@@", "+x"] * hunks,
                "*** End Patch"]
    return ["edit " + json.dumps({"path": "a.py", "op": "update", "diff": "@@\n+x\n" * hunks})]


def mutated(draw: st.DrawFn, lines: list[str], huge: int) -> list[str]:
    """Shuffle, truncate, duplicate, nest, and poison the lines of a response."""
    lines = list(lines)
    for _ in range(draw(_ints(0, 4))):
        kind = draw(_ints(0, 11))
        n = len(lines)
        i = draw(_ints(0, n)) if n else 0
        if kind == 0 and n:  # truncate (a cut-off stream), possibly mid-line
            cut = lines[:i]
            if i < n and lines[i]:
                cut.append(lines[i][: draw(_ints(0, len(lines[i])))])
            lines = cut
        elif kind == 1 and n:  # duplicate a line
            lines.insert(i, lines[min(i, n - 1)])
        elif kind == 2 and n:  # drop a line
            del lines[min(i, n - 1)]
        elif kind == 3 and n >= 2:  # swap two lines
            j = draw(_ints(0, n - 1))
            k = min(i, n - 1)
            lines[j], lines[k] = lines[k], lines[j]
        elif kind == 4:  # a stray marker
            lines.insert(i, draw(_MARKER))
        elif kind == 5:  # a huge line
            lines.insert(i, draw(_HUGE_CHAR) * draw(_ints(1000, huge)))
        elif kind == 6 and n:  # NUL bytes / control characters inside a line
            k = min(i, n - 1)
            lines[k] = lines[k] + draw(_POISON)
        elif kind == 7 and n:  # a lone surrogate (invalid UTF-8 decoded with surrogateescape)
            k = min(i, n - 1)
            lines[k] = lines[k] + draw(_SURROGATE)
        elif kind == 8:  # deeply nested fences around part of the response
            depth = draw(_ints(1, 60))
            j = draw(_ints(i, n))
            opens = ["`" * (3 + d) + ("python" if d % 2 else "") for d in range(depth, 0, -1)]
            closes = ["`" * (3 + d) for d in range(1, depth + 1)]
            if draw(st.booleans()):
                closes = closes[: draw(_ints(0, depth))]  # some left open
            lines[i:j] = [*opens, *lines[i:j], *closes]
        elif kind == 11:  # issue 13's red-team categories, as a block of their own
            lines[i:i] = red_team_lines(draw, huge)
        elif kind == 9 and n:  # nest: copy a slice of the response into itself
            j = draw(_ints(0, n))
            k = draw(_ints(j, min(n, j + 12)))
            lines[i:i] = lines[j:k]
        else:  # CR / CRLF noise
            k = min(i, n - 1) if n else 0
            if n:
                lines[k] = lines[k] + "\r"
    return lines


def responses(ws: HostileWorkspace, huge: int = 20_000) -> st.SearchStrategy[str]:
    """A response of 0..6 blocks with prose between, then mutated."""
    path_choices = st.one_of(
        st.sampled_from(GOOD_PATHS), st.sampled_from(HOSTILE_PATHS),
        st.sampled_from(outside_paths(ws)),
    )

    @st.composite
    def build(draw: st.DrawFn) -> str:
        lines: list[str] = []
        for _ in range(draw(_ints(0, 6))):
            lines += draw(_PROSE_LINES)
            lines += block_lines(draw, path_choices)
        lines = mutated(draw, lines, huge)
        text = draw(_NEWLINE).join(lines)
        if draw(st.booleans()):
            text += "\n"
        if draw(_ints(0, 9)) == 0:
            text = "\ufeff" + text
        return text

    return build()


# ------------------------------------------------------------------ invariants


def _apply(original: str, edits) -> str:
    """Apply code-point TextEdits the way an editor would (independent of lsp_server.file_text)."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", original)]

    def offset(line: int, col: int) -> int:
        if line >= len(starts):
            return len(original)
        return starts[line] + col

    spans = sorted((offset(e.start_line, e.start_col), offset(e.end_line, e.end_col), e.new_text)
                   for e in edits)
    out = original
    for start, end, new in reversed(spans):
        out = out[:start] + new + out[end:]
    return out


def unaccounted_start_markers(text: str, parsed: ParseResult) -> list[int]:
    """Start-marker lines that led to neither a block nor a warning.

    A marker inside a block's span is that block's content. Otherwise something must be
    reported between the end of the last block before it and (just past) the next start
    marker: a block (apply-patch's starts at its first ``*** … File`` line, after the
    marker) or a warning (a malformed or unclosed block is reported once, where it starts,
    and may hold later markers).
    """
    normalized = normalize_response(text.removeprefix("\ufeff"))
    lines = normalized.split("\n")
    block_spans = sorted((b.response_line, max(b.end_line, b.response_line + 1))
                         for b in parsed.blocks)
    # Known gap, accepted here: a semantic-diff section reads any text between its heading
    # and hunks as prose, so another block placed there is part of the section (which
    # itself is reported). docs/safety.md "Not defended" says so.
    sections = semantic_diff.find_blocks(normalized, lines, scan_markers(normalized))
    spans = block_spans + [(f.start, f.end) for f in sections if f.blocks or f.warnings]
    reported = sorted([s for s, _ in spans] + [w.response_line for w in parsed.warnings])
    markers = [n for n, line in enumerate(lines) if START_MARKER_RE.match(line)]
    missing: list[int] = []
    for k, number in enumerate(markers):
        if any(s <= number < e for s, e in spans):
            continue
        # Only blocks the parse kept bound the window from below: a semantic-diff section
        # found on its own may sit inside a malformed block that was warned (and skipped)
        # as a whole, the warning at its start accounting for the markers it holds.
        floor = max((e for s, e in block_spans if e <= number), default=0)
        # A semantic-diff block starts at its "### Hunk" / "#### Lines" line, a few lines
        # under the "## File" heading, so the window reaches a little past the next marker.
        ceiling = markers[k + 1] + 3 if k + 1 < len(markers) else len(lines)
        if any(floor <= r <= ceiling for r in reported):
            continue
        missing.append(number)
    return missing


def check_plan(ws: HostileWorkspace, parsed: ParseResult, plan: PlanResult) -> list[str]:
    problems: list[str] = []
    if len(plan.blocks) != len(parsed.blocks):
        problems.append(f"{len(parsed.blocks)} blocks parsed, {len(plan.blocks)} results")
    for result in plan.blocks:
        if result.status not in ("applied", "validated", "failed", "skipped", "already-applied"):
            problems.append(f"block {result.index}: status {result.status!r}")
        if result.status in ("failed", "skipped") and not result.reason:
            problems.append(f"block {result.index}: {result.status} without a reason")
        if result.reason and "internal error" in result.reason:
            problems.append(f"planner crashed: {result.reason[:300]}")
        ok = result.status in ("applied", "validated", "already-applied")
        if ok and result.path is not None and (why := ws.confined(result.path)):
            problems.append(f"block {result.index} succeeded on a refused path: {why}")
    created: set[Path] = set()
    for change in plan.changes:
        if isinstance(change, ResourceOp) and change.kind == "create":
            created.add(change.path)
        targets = [change.path]
        if isinstance(change, ResourceOp) and change.new_path is not None:
            targets.append(change.new_path)
        for target in targets:
            why = ws.confined(target)
            if why:
                problems.append(f"change {type(change).__name__} escapes: {why}")
        if isinstance(change, FileEdit):
            if change.version is not None:
                problems.append(f"{change.path}: disk file edit carries version {change.version}")
            if _apply(change.original, change.edits) != change.new_text:
                problems.append(f"{change.path}: edits do not turn original into new_text")
            disk = read_disk_file(change.path)
            if change.path in created:
                continue  # a file this plan creates: its original is ""
            if disk.text is not None and disk.error is None and not disk.binary:
                shown = disk.text.removeprefix("\ufeff")
                if shown != change.original:
                    problems.append(f"{change.path}: edits computed against text not on disk")
            if disk.binary or disk.error:
                problems.append(f"{change.path}: edit of a file that cannot be edited "
                                f"({disk.error or 'binary'})")
        if isinstance(change, ResourceOp) and change.kind == "rename":
            problems += _moved_link_problems(change)
    return problems + _aliased_edits(plan)


def _aliased_edits(plan: PlanResult) -> list[str]:
    """Two edits of one file under two names (a symlink inside the workspace): each was
    computed against the same text, so one would be lost or they would overlap."""
    seen: dict[str, Path] = {}
    problems = []
    for change in plan.changes:
        if isinstance(change, FileEdit):
            real = os.path.realpath(change.path)
            if real in seen and seen[real] != change.path:
                problems.append(f"{seen[real]} and {change.path} are one file, edited twice")
            seen.setdefault(real, change.path)
    return problems


def _moved_link_problems(op: ResourceOp) -> list[str]:
    """A symlink moved where its relative target names another file."""
    try:
        link = os.readlink(op.path)
    except OSError:
        return []
    assert op.new_path is not None
    then = os.path.realpath(os.path.join(os.path.dirname(op.new_path), link))
    if os.path.isabs(link) or then == os.path.realpath(op.path):
        return []
    return [f"symlink {op.path} -> {link} moved to {op.new_path} would point at {then}"]


def check_response(ws: HostileWorkspace, text: str, *, matching: str = "exact",
                   atomic: bool = False, formats: set[str] | None = None,
                   before: dict[str, object] | None = None) -> list[str]:
    """Parse, plan and convert ``text`` as the server would; every broken invariant."""
    problems: list[str] = []
    parsed = parse_response(text, formats)
    for warning in parsed.warnings:
        if "internal error" in warning.message:
            problems.append(f"parser crashed: {warning.message[:300]}")
    if formats is None:
        missing = unaccounted_start_markers(text, parsed)
        if missing:
            problems.append(f"start markers without a block or warning at lines {missing[:5]}")
    reader = FileReader({})
    plan = plan_edits(parsed, reader, [ws.root], matching=matching, atomic=atomic,
                      dry_run=True)
    problems += check_plan(ws, parsed, plan)
    # What the server does next with a plan: must not raise either.
    features = ClientFeatures(document_changes=True,
                              resource_operations=frozenset({"create", "rename", "delete"}))
    edit, extra = workspace_edit_json(plan, features, reader.uri_for, set(), root=ws.root)
    diagnostics = plan_diagnostics(plan, "fuzz", features, reader.uri_for,
                                   reader.client_text, None, text)
    result = result_dict(plan, edit, reader.uri_for, run_id="fuzz",
                         extra_warnings=extra, files=None)
    json.dumps(result)
    for items in diagnostics.values():
        for diagnostic in items:
            if diagnostic.range.start.line < 0:
                problems.append(f"diagnostic at negative line: {diagnostic}")
    build_feedback(plan, reader.lines, index=None, atomic=atomic)
    if before is not None and ws.snapshot() != before:
        problems.append("the workspace or the outside folder changed on disk")
    return problems


# ------------------------------------------------------------------ command arguments

COMMANDS = ["llmEdits.parse", "llmEdits.preview", "llmEdits.apply", "llmEdits.applyFix",
            "llmEdits.feedback", "llmEdits.copyFeedback", "llmEdits.instructions",
            "llmEdits.clear"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                 max_size=4),
    max_leaves=10)
_ARGUMENT_KEYS = ["response", "responseUri", "options", "runId", "index", "fix", "format"]
_OPTION_KEYS = ["matching", "atomic", "formats", "includeText", "maxResponseBytes"]
_PLAUSIBLE = st.sampled_from([
    "a.txt\n<<<<<<< SEARCH\nalpha\n=======\nALPHA\n>>>>>>> REPLACE\n", "a.txt",
    "file:///etc/passwd", "file:///dev/zero", "untitled:1", "fix", "closest", "whitespace",
    "exact", ["edit-v3"], [], 0, -1, 2**64, True, "",
])


def command_arguments() -> st.SearchStrategy[object]:
    """Any JSON, or an object with the commands' keys holding random or plausible values."""
    options = st.dictionaries(st.sampled_from(_OPTION_KEYS), json_values | _PLAUSIBLE,
                              max_size=5)
    objects = st.fixed_dictionaries(
        {}, optional={key: (options if key == "options" else json_values | _PLAUSIBLE)
                      for key in _ARGUMENT_KEYS})
    return st.one_of(json_values, objects)
