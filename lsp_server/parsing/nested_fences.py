"""How fences nest, for every format that reads fences (docs/formats.md: "Nested fences inside
it are counted as everywhere"), and where a semantic-diff section's fence ends when it holds
fences of its own (seed 004: nested fences are handled "contextually").

**Counting** (:func:`closing_fence_index`, used by whole-file, code-block and semantic-diff).
Inside a fence opened by a run of ``n`` backticks or tildes, only lines of the same character
and at least ``n`` long count:

- one with an info string (```` ```bash ````) opens a nested fence;
- a bare one closes the innermost nested fence, or else the fence itself, unless it
  *reopens*: in a fence whose content may be Markdown (no info string, or ``markdown``,
  ``md``, ``text``, ``rst``...), a bare line whose next line is not blank, followed later by
  another bare line of the run, with no line naming a file (a path-like token: a ``.`` or
  ``/``, no space) directly above that next line, opens a bare nested pair (a README's
  ```` ``` ```` / ``make install`` / ```` ``` ````). Reading it as the close would end the
  file early and take the pair's content line for the path of a block that does not exist;
  so no path is ever taken from a line after a false close.

A bare line followed by a blank line, by nothing, by an opener with an info string, or by a
path line and a fence (the next block) closes. Limit: a close followed directly (no blank
line) by prose and then a bare fence pair reads that pair as the file's own; a pair of the
file's own whose one content line names a file reads as a close and the next block.

**semantic-diff sections.** A Markdown file's own ```` ``` ```` fences inside a ```` ``` ````
section end it early by CommonMark's rule (the first bare ```` ``` ```` closes). Before a
``### Hunk`` or ``#### Lines to …`` heading the section ends at the last bare closing fence
before it; before a ``## File`` line or the end of the response, where any text may follow
(prose, other blocks, the closing fence of a wrapper round the whole patch), where the
counting above closes it.

Fence-like lines of a semantic-diff section are ``(start, end, run)``: the offsets of the
line's first character and of the newline ending it, and its run of backticks or tildes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple, cast

from .paths import find_path_line
from .response_text import LineCounter, line_start

# A Hunk or Lines heading, matched from the newline before it (found by str.find first).
_PART_HEADING_RE = re.compile(r"\n#{3,6}[ \t]+(?i:hunk\b|lines[ \t]+to\b)")
_FENCE_LIKE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)$", re.MULTILINE)

FenceLine = tuple[int, int, str]

# Every line that can open or close a fence: indentation, run, the rest of the line.
FENCE_LINE_RE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$", re.MULTILINE)


class Fence(NamedTuple):
    """A fence-like line of a response."""

    line: int  # 0-based response line
    indent: int  # spaces before the run
    char: str  # "`" or "~"
    length: int  # of the run
    info: str  # the rest of the line, stripped

    def can_open(self) -> bool:
        """CommonMark: a backtick fence's info string holds no backtick."""
        return self.char == "~" or "`" not in self.info

    def counts_in(self, opener: Fence) -> bool:
        """The line can open or close a fence inside ``opener``'s (same character, at least
        as long; a line that cannot open is content)."""
        return self.char == opener.char and self.length >= opener.length and self.can_open()


class LinesOf(Sequence[str]):
    """The lines of a text, split only if a line is asked for: most fences close without a
    look at the lines around them (only a bare line in a fence that may hold Markdown needs
    them), and a response still arriving is paired again on every change."""

    __slots__ = ("_lines", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._lines: list[str] | None = None

    def _split(self) -> list[str]:
        if self._lines is None:
            self._lines = self._text.split("\n")
        return self._lines

    def __len__(self) -> int:
        return len(self._split())

    def __getitem__(self, index: int) -> str:  # type: ignore[override]  # (ints only here)
        return self._split()[index]


def fence_lines(text: str) -> list[Fence]:
    """Every fence-like line of ``text``, in order."""
    counter = LineCounter(text)
    return [Fence(counter.line_of(m.start()), len(m[1]), m[2][0], len(m[2]), m[3].strip())
            for m in FENCE_LINE_RE.finditer(text)]


def fences_at(lines: list[str], starts: list[tuple[int, int]]) -> list[Fence]:
    """The fence-like lines at ``starts`` (``(line, offset where it starts)``, as the marker
    scan finds them), in order: :func:`fence_lines` without a pass of its own. A response
    repeats a few fence lines (```` ``` ````, ```` ```python ````): each is read once."""
    new = tuple.__new__  # a NamedTuple's own __new__ is Python code, a call per fence
    read: dict[str, tuple | None] = {}  # line text -> (indent, char, length, info)
    out = []
    for line, _ in starts:
        text = lines[line]
        fields = read.get(text, read)
        if fields is read:
            m = FENCE_LINE_RE.match(text)
            fields = read[text] = None if m is None else (
                len(m[1]), m[2][0], len(m[2]), m[3].strip())
        if fields is not None:
            out.append(new(Fence, (line, *fields)))
    return out


class FenceStream(list[Fence]):
    """Fence-like lines read from a regex scan only as far as the counting asks (a fence that
    closes soon reads the lines up to its close, not the rest of the response)."""

    def __init__(self, first: Fence, text: str, start: int, end: int) -> None:
        super().__init__([first])
        self._matches = FENCE_LINE_RE.finditer(text, start, end)
        self._counter = LineCounter(text)
        self._counter.seek(start, 0)

    def reach(self, index: int) -> bool:
        """Whether line ``index`` exists, reading on to it."""
        while len(self) <= index:
            m = next(self._matches, None)
            if m is None:
                return False
            line = self._counter.line_of(m.start())
            self.append(Fence(line, len(m[1]), m[2][0], len(m[2]), m[3].strip()))
        return True


def _reach(fences: Sequence[Fence], index: int) -> bool:
    return fences.reach(index) if isinstance(fences, FenceStream) else index < len(fences)


def closing_fence_index(fences: Sequence[Fence], opener_at: int,
                        lines: Sequence[str]) -> int | None:
    """Index in ``fences`` of the line closing ``fences[opener_at]``, counted as the module
    docstring says (None: not closed); ``lines`` are the response's lines."""
    return fence_close(fences, opener_at, lines)[0]


def fence_close(fences: Sequence[Fence], opener_at: int,
                lines: Sequence[str]) -> tuple[int | None, int | None]:
    """``(closing index, settling line)``: :func:`closing_fence_index`, and the line before
    which the text decides it (a response still arriving: the line after the close, or the
    next fence line it looked at, must be complete); None while text to come may change it."""
    opener = fences[opener_at]
    depth = 0
    j = opener_at
    while _reach(fences, j + 1):
        j += 1
        fence = fences[j]
        if not fence.counts_in(opener):
            continue
        if fence.info:
            depth += 1
        elif depth:
            depth -= 1
        elif not holds_markup(opener):
            return j, fence.line + 1
        else:
            reopens, settled_by = _reopens(fences, j, opener, lines)
            if not reopens:
                return j, settled_by
            depth += 1
    return None, None


# Info strings of fences whose content may be Markdown (a README written whole): only their
# bare lines can open a pair of the file's own. Elsewhere (```python, ```diff) a bare line
# closes at once, and a response still arriving needs no look-ahead past it.
_MARKUP_INFO = frozenset({"", "markdown", "md", "mdx", "gfm", "rst", "text", "txt", "plain",
                          "plaintext", "asciidoc", "adoc", "org"})


def holds_markup(opener: Fence) -> bool:
    """Whether the fence's content may hold bare fence pairs of its own (no info string, or
    a markup language's)."""
    return opener.info.split(maxsplit=1)[0].lower() in _MARKUP_INFO if opener.info else True


def _reopens(fences: Sequence[Fence], at: int, opener: Fence,
             lines: Sequence[str]) -> tuple[bool, int | None]:
    """Whether the bare line ``fences[at]`` opens a bare nested pair rather than closing,
    and the line before which the text decides it (None: not decided yet)."""
    line = fences[at].line
    if line + 1 >= len(lines) or not lines[line + 1].strip():
        return False, line + 2  # the next line is blank once it is complete
    following = None
    k = at + 1
    while following is None and _reach(fences, k):
        following = fences[k] if fences[k].counts_in(opener) else None
        k += 1
    if following is None:
        return False, None  # a fence line to come may still reopen it
    if following.info:
        return False, following.line + 1
    above = find_path_line(cast(list[str], lines), following.line, line + 1)  # (it indexes)
    return above is None or not names_file(above[1]), following.line + 1


def names_file(path: str) -> bool:
    """A path-like token (docs/formats.md): a ``.`` or a ``/`` and no whitespace."""
    return ("." in path or "/" in path) and not any(c.isspace() for c in path)


def _next_part_heading(text: str, pos: int, limit: int) -> int:
    """Offset of the newline before the first Hunk or Lines heading after ``pos`` and before
    ``limit`` (-1: none); str.find skips the text between in C."""
    found = text.find("\n###", pos, limit)
    while found >= 0 and not _PART_HEADING_RE.match(text, found):
        found = text.find("\n###", found + 1, limit)
    return found


def nested_close(text: str, opener_end: int, run: str, close: FenceLine,
                 limit: int) -> FenceLine:
    """The closing line of the fence opened by ``run`` (its opener's line ends at
    ``opener_end``) that CommonMark closes at ``close``, read as the module docstring says;
    ``limit`` is where the next ``## File`` line starts (or the end of the response)."""
    if _heading_or_end_next(text, close[1]):
        return close  # the usual case: the next part (or nothing) follows the fence
    heading = _next_part_heading(text, close[1], limit)
    bound = limit if heading < 0 else heading
    if text.find(run, close[1], bound) < 0:
        return close  # no fence-like line before the next part
    if heading >= 0:
        last = close
        for m in _FENCE_LIKE_RE.finditer(text, close[1] + 1, bound):
            if _same_run(m, run) and not m.group(2).strip():
                last = (m.start(), m.end(), m.group(1))
        return last
    return _counted_close(text, opener_end, run, close, bound)


def _heading_or_end_next(text: str, pos: int) -> bool:
    """Whether only blank lines stand between the newline at ``pos`` and a heading line or
    the end of the response (checked on the next non-blank line only: no regex pass)."""
    rest = text[pos:pos + 200].lstrip()
    return not rest or rest[0] == "#"


def _same_run(m: re.Match[str], run: str) -> bool:
    return m.group(1)[0] == run[0] and len(m.group(1)) >= len(run)


def _counted_close(text: str, opener_end: int, run: str, close: FenceLine,
                   bound: int) -> FenceLine:
    """Where the counting (:func:`fence_close`) closes the fence opened by ``run`` (its line
    ends at ``opener_end``; CommonMark closes it at ``close``), looking no further than
    ``bound``; CommonMark's close when the counting finds none."""
    opener_line = text[line_start(text, opener_end) : opener_end].strip()
    opener = Fence(-1, 0, run[0], len(run), opener_line[len(run):].strip())
    if not holds_markup(opener) and text.find(run, opener_end, close[0]) < 0:
        return close  # nothing opened inside, and no bare line can reopen: CommonMark's
    body_start = opener_end + 1
    lines = LinesOf(text[body_start:bound])
    fences = FenceStream(opener, text, body_start, bound)
    at = closing_fence_index(fences, 0, lines)
    if not at:
        return close
    start = line_start(text, _offset_of_body_line(text, body_start, fences[at].line) + 1)
    end = text.find("\n", start)
    return start, len(text) if end < 0 else end, fences[at].char * fences[at].length


def _offset_of_body_line(text: str, body_start: int, line: int) -> int:
    """An offset on line ``line`` of the body starting at ``body_start`` (its first char - 1
    for line 0: the newline before it)."""
    at = body_start - 1
    for _ in range(line):
        at = text.find("\n", at + 1)
    return at
