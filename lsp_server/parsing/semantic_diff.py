"""semantic-diff blocks: seed 004's Markdown "Semantic Patch" (docs/formats.md "semantic-diff").

Grammar (headings are ATX headings, fences CommonMark fenced code blocks)::

    section    := "## File `PATH` " action           (at the start of its line)
    action     := "modified:" hunk* | "created:" hunk* | "deleted." | "moved to `DEST`."
    hunk       := "### Hunk N:" [remove] [add]         (any text may stand between the parts)
    remove     := "#### Lines to remove:" [fence]
    add        := "#### Lines to add:" [fence]
    fence      := opener (3+ "`" or "~", info) LF content-line* closer
                  (closes only on the same character, at least as long: ```` holds ```)

A section ends before the first heading that is not a ``### Hunk`` or ``#### Lines to …``
heading (the next ``## File``, ``## Notes``, ...) or before a fence that follows no ``Lines
to …`` heading; a heading or ``## File`` line *inside* a fence is content.

Blocks: one per ``### Hunk`` of a modified file (op "update", ``old`` = the lines to remove,
``new`` = the lines to add, no anchor/trailing); one per created file (op "create", ``new`` =
its lines to add); one per deleted file (op "delete") and per moved file (op "rename",
``move_to``). A fence's content is every line between opener and closer, verbatim: blank
lines just before the closing fence are content (the corpus's real patches put file blank
lines there; the seed's template shows one too). Up to three spaces of opener indentation
are removed from content lines, as CommonMark does.

Decisions:
- A modified hunk with no (or an empty) lines-to-remove block cannot be located: warning,
  skipped. A ``Lines to add`` heading with no fence deletes the removed lines; with no
  ``Lines to add`` heading at all the hunk is malformed (or cut off, at the end).
- A created file takes the lines of its ``Lines to add`` fences (normally one); a fence
  directly under the section heading is accepted too. A created file with a ``Lines to add``
  heading and no fence is empty.
- A fence still open at the end of the response (a cut-off stream) skips its hunk (and
  ends the section) with a warning; so does a hunk that stops after its headings.
- The seed's batch limits (at most 1 created, 2 modified and 10 deleted or moved files per
  patch, i.e. per response) are reported as warnings; the blocks still apply.

Parsing, sized for multi-megabyte responses (a response is never markdown-parsed whole):
- The ``## File`` lines come from the shared marker scan (``marker_scan``; such a line must
  not be indented).
- Inside a section a regex steps from one *structure line* to the next: a line that could be
  a fence or an ATX heading (up to three spaces, then a run of backticks, tildes or #s).
- Where a fence closes is CommonMark's call. The plain case (the opener's very next
  fence-like line is a valid closer: same character, at least as long, only whitespace
  after it; no other line can close a fence) is read directly; every other case (a longer
  fence holding shorter ones, an info string with a backtick, no closer yet) is handed to
  markdown-it-py, fed the fence-like lines from the opener on (other lines cannot change
  where a fence ends).
- After a complete hunk, the section goes on only if its next structure line is a ``Hunk`` or
  ``Lines to`` heading. That heading is looked for with a literal-prefix regex, bounded by
  the next ``## File`` line, so the text between sections (other blocks, prose) is not
  stepped through line by line.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from ..model import Block, ParseWarning, lines_to_text
from .marker_scan import MarkerLines
from .nested_fences import nested_close
from .parsed_span import ParsedSpan, new_block
from .response_text import LineCounter, backtick_fence_for

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

FORMAT = "semantic-diff"
MAX_CREATED, MAX_MODIFIED, MAX_DELETED_OR_MOVED = 1, 2, 10

_SECTION_RE = re.compile(
    r"## File[ \t]+`([^`\n]+)`[ \t]+(modified|created|deleted|moved to[ \t]+`([^`\n]+)`)"
    r"[ \t]*[.:]?[ \t]*$",
    re.MULTILINE,
)
# A structure line, matched from the newline before it: a fence-like line (group 1 = its
# run of backticks or tildes) or an ATX heading (group 2 = its #s).
_STRUCTURE_RE = re.compile(r"\n {0,3}(?:(`{3,}|~{3,})|(#{1,6})(?:[ \t]|$))", re.MULTILINE)
# A heading that may continue a section (checked properly once found), matched likewise.
_CONTINUATION_RE = re.compile(r"\n#{3,6}[ \t]+(?i:hunk|lines)")
_NON_SPACE_RE = re.compile(r"\S")
# Fast path: a whole hunk in the seed's exact layout, matched from the newline before it.
# Its fences open at column 0 with an info string free of backticks, hold no fence-like
# line, and close with exactly their opener's run, so no CommonMark question arises; only
# blank lines stand between the parts. Anything else goes through the state machine, which
# would read such a hunk the same way (tests/parsing/test_semantic_diff.py checks that).
_PLAIN_HUNK = re.compile(
    r"\n(?:[ \t]*\n)*"
    r"(?P<hunk>### Hunk\b[^\n]*)\n(?:[ \t]*\n)*"
    r"#### Lines to remove:[ \t]*\n(?:[ \t]*\n)*"
    r"(?P<r>`{3,}(?!`)|~{3,}(?!~))[^`\n]*\n"
    r"(?P<old>(?:(?! {0,3}(?:```|~~~))[^\n]*\n)*)"
    r"(?P=r)[ \t]*\n(?:[ \t]*\n)*"
    r"#### Lines to add:[ \t]*\n(?:[ \t]*\n)*"
    r"(?P<a>`{3,}(?!`)|~{3,}(?!~))[^`\n]*\n"
    r"(?P<new>(?:(?! {0,3}(?:```|~~~))[^\n]*\n)*)"
    r"(?P=a)[ \t]*(?=\n|\Z)"
)
_HUNK_HEADING_RE = re.compile(r"hunk\b", re.IGNORECASE)
_LINES_HEADING_RE = re.compile(r"lines[ \t]+to[ \t]+(remove|add)\b", re.IGNORECASE)


@cache
def _markdown() -> MarkdownIt:
    """Fences, and indented code so that a line indented four spaces can never close a fence
    (as in CommonMark; markdown-it's "zero" preset would let it). Made on first use: importing
    markdown-it costs more than a whole small ``llm-edits apply`` (about 170M instructions),
    and most responses never reach a fence that needs it."""
    from markdown_it import MarkdownIt

    markdown = MarkdownIt("zero").enable(["fence", "code"])
    markdown.core.ruler.disable(["inline", "text_join"])  # block structure is all we need
    return markdown

_LANGUAGES = {
    "py": "python", "js": "javascript", "ts": "typescript", "go": "go", "rs": "rust",
    "md": "markdown", "json": "json", "yaml": "yaml", "yml": "yaml", "toml": "toml",
    "sh": "bash", "rst": "rst", "java": "java", "c": "c", "h": "c", "cpp": "cpp",
    "rb": "ruby", "html": "html", "css": "css", "txt": "text",
}


# A structure line: (start, end, is_fence, run) with the offsets of its first character and
# of the newline ending it, and its run of backticks/tildes (a fence-like line) or #s (a
# heading). Plain tuples: a response may hold many thousands.
_Line = tuple[int, int, bool, str]


@dataclass(slots=True)
class _Fence:
    opener: _Line
    close: _Line | None  # None: not closed before the end of the response
    indent: int  # spaces before the opener (removed from content lines, up to this many)

    def content(self, text: str) -> list[str]:
        start = self.opener[1] + 1
        end = self.close[0] if self.close is not None else len(text) + 1
        if end <= start:
            return []
        body = text[start : end - 1].split("\n")
        if self.indent:
            body = [_dedent(line, self.indent) for line in body]
        return body


def _dedent(line: str, spaces: int) -> str:
    stripped = line.lstrip(" ")
    return line[min(spaces, len(line) - len(stripped)):]


@dataclass(slots=True)
class _Hunk:
    start: int  # offset of its first line (### Hunk, or the first Lines heading)
    end: int = 0  # offset of the newline ending its last line
    remove_heading: bool = False  # set by name: setattr(hunk, "<kind>_heading", True)
    add_heading: bool = False
    remove: list[str] | None = None  # the content of its fences, when it has them
    add: list[str] | None = None


@dataclass(slots=True)
class _Section:
    action: str  # "modified" or "created"
    hunks: list[_Hunk] = field(default_factory=list)
    end: int = 0  # offset of the newline ending its last line (section content before it)
    truncated: bool = False  # a fence ran to the end of the response


class _Scanner:
    """Steps through the structure lines of one response."""

    def __init__(self, text: str, section_offsets: list[int]) -> None:
        self.text = text
        self.section_offsets = section_offsets  # where "## File" lines start, in order

    def _line(self, m: re.Match[str]) -> _Line:
        start = m.start() + 1
        end = self.text.find("\n", start)
        fence = m.group(1)
        return (start, len(self.text) if end < 0 else end, fence is not None,
                fence if fence is not None else m.group(2))

    def next_line(self, pos: int, endpos: int | None = None) -> _Line | None:
        """The first structure line after the newline at ``pos`` (and before ``endpos``)."""
        m = _STRUCTURE_RE.search(self.text, pos, len(self.text) if endpos is None else endpos)
        return self._line(m) if m else None

    def next_section(self, pos: int) -> int:
        """Where the first ``## File`` line after ``pos`` starts (the text's end: none)."""
        index = bisect_right(self.section_offsets, pos)
        return (self.section_offsets[index] if index < len(self.section_offsets)
                else len(self.text))

    def continuation(self, pos: int) -> _Line | None:
        """The next structure line after ``pos`` if it may continue the section (a Hunk or
        Lines heading, before the next ``## File``), else None."""
        text = self.text
        index = bisect_right(self.section_offsets, pos)
        bound = self.section_offsets[index] if index < len(self.section_offsets) else len(text)
        # str.find skips the text between sections several times faster than a regex.
        heading = None
        found = text.find("\n###", pos, bound)
        while found >= 0:
            heading = _CONTINUATION_RE.match(text, found)
            if heading is not None:
                break
            found = text.find("\n###", found + 1, bound)
        if heading is None:
            return None
        if text[pos:heading.start()].strip():  # something stands in between: what is it?
            other = self.next_line(pos, heading.start())
            if other is not None:
                return other
        return self._line(_STRUCTURE_RE.match(text, heading.start()))  # type: ignore[arg-type]

    def fence(self, opener: _Line) -> _Fence | None:
        """The fence that ``opener`` opens (None: it opens none), per CommonMark."""
        text = self.text
        start, end, _, run = opener
        indent = len(text[start:end]) - len(text[start:end].lstrip(" "))
        if not (run[0] == "`" and "`" in text[start + indent + len(run):end]):
            after = self.next_line(end)
            while after is not None and not after[2]:  # headings inside it are content
                after = self.next_line(after[1])
            if after is not None:
                after_start, after_end, _, after_run = after
                if (after_run[0] == run[0] and len(after_run) >= len(run)
                        and not text[after_start:after_end].lstrip(" ")[len(after_run):]
                        .strip(" \t")):
                    return _Fence(opener, after, indent)
        return self._markdown_fence(opener, indent)

    def nested_close(self, fence: _Fence) -> _Fence:
        """``fence`` closed where seed 004's nested fences close (``nested_fences``)."""
        if fence.close is None:
            return fence
        start, end, run = nested_close(self.text, fence.opener[1], fence.opener[3],
                                       fence.close[:2] + fence.close[3:],
                                       self.next_section(fence.close[1]))
        return _Fence(fence.opener, (start, end, True, run), fence.indent)

    def _markdown_fence(self, opener: _Line, indent: int) -> _Fence | None:
        """markdown-it's answer, given the fence-like lines from ``opener`` on in growing
        windows (no fence is open at ``opener``); a trailing paragraph line shows a fence
        still open at the end of the window: it swallows it."""
        text = self.text
        fence_like = [opener]
        wanted = 8
        pos = opener[1]
        while True:
            pos, exhausted = self._gather_fence_like(fence_like, pos, wanted)
            doc = "\n".join(text[f[0]:f[1]] for f in fence_like) + "\nx\n"
            token = next((t for t in _markdown().parse(doc) if t.map is not None), None)
            if token is None or token.type != "fence" or token.map[0] != 0:
                return None
            after = token.map[1]
            if after <= len(fence_like):
                return _Fence(opener, fence_like[after - 1], indent)
            if exhausted:
                return _Fence(opener, None, indent)
            wanted *= 4

    def _gather_fence_like(self, fence_like: list[_Line], pos: int, wanted: int) -> tuple[
            int, bool]:
        """Append the fence-like lines after ``pos`` to ``fence_like`` until it holds
        ``wanted``; the offset reached, and whether the response ran out first."""
        while len(fence_like) < wanted:
            following = self.next_line(pos)
            if following is None:
                return pos, True
            pos = following[1]
            if following[2]:
                fence_like.append(following)
        return pos, False


def _read_structure(section: _Section, scanner: _Scanner, pos: int) -> None:
    """The section's hunks, their headings and fences, from the newline at ``pos`` up to the
    first structure line that does not belong to the section."""
    _StructureReader(section, scanner, pos).read()


class _StructureReader:
    """The state machine of one section: the hunk being read, and a ``Lines to remove/add``
    heading waiting for its fence."""

    __slots__ = ("created", "hunk", "pos", "scanner", "section", "waiting")

    def __init__(self, section: _Section, scanner: _Scanner, pos: int) -> None:
        self.section = section
        self.scanner = scanner
        self.pos = pos  # offset of the newline after the last line read
        self.hunk: _Hunk | None = None
        self.waiting: str | None = None  # "remove"/"add": a Lines heading waiting for its fence
        self.created = section.action == "created"

    def read(self) -> None:
        while True:
            item = self._next_item()
            if item is None or not (self._fence(item) if item[2] else self._heading(item)):
                return

    def _expects_fence(self) -> bool:
        return self.waiting is not None or (self.created and not self.section.hunks)

    def _next_item(self) -> _Line | None:
        """The next structure line of the section, after reading the tidy hunks that come
        first in one go."""
        if self._expects_fence():
            return self.scanner.next_line(self.pos)
        text, section = self.scanner.text, self.section
        plain = _PLAIN_HUNK.match(text, self.pos)
        while plain is not None and not _closes_later(self.scanner, plain):
            self.hunk = _plain_hunk(plain)
            section.hunks.append(self.hunk)
            self.pos = section.end = self.hunk.end
            plain = _PLAIN_HUNK.match(text, self.pos)
        return self.scanner.continuation(self.pos)

    def _current_hunk(self, start: int) -> _Hunk:
        """The hunk being read; a new one starting at ``start`` when there is none yet."""
        if self.hunk is None:
            self.hunk = _Hunk(start)
            self.section.hunks.append(self.hunk)
        return self.hunk

    def _fence(self, item: _Line) -> bool:
        """Read a fence-like line and its fence; False when the section ends there."""
        if not self._expects_fence():
            return False  # a fence of something else: the section is over
        fence = self.scanner.fence(item)
        if fence is None:
            self.pos = item[1]  # not a fence after all (a backtick in a backtick info string)
            return True
        fence = self.scanner.nested_close(fence)
        hunk = self._current_hunk(item[0])
        setattr(hunk, self.waiting or "add", fence.content(self.scanner.text))
        self.waiting = None
        if fence.close is None:
            self.section.truncated = True
            hunk.end = self.section.end = len(self.scanner.text)
            return False
        self.pos = hunk.end = self.section.end = fence.close[1]
        return True

    def _heading(self, item: _Line) -> bool:
        """Read a heading; False when it is none of the section's (which ends there)."""
        start, end, _, run = item
        title = self.scanner.text[start:end].strip()[len(run):].strip()
        lines_heading = _LINES_HEADING_RE.match(title)
        if len(run) in (3, 4) and _HUNK_HEADING_RE.match(title):
            self.hunk = hunk = _Hunk(start)
            self.section.hunks.append(hunk)
            self.waiting = None
        elif len(run) >= 3 and lines_heading:
            hunk = self._current_hunk(start)
            self.waiting = lines_heading.group(1).lower()
            setattr(hunk, self.waiting + "_heading", True)
        else:
            return False  # any other heading ends the section
        self.pos = hunk.end = self.section.end = end
        return True


def _closes_later(scanner: _Scanner, m: re.Match[str]) -> bool:
    """Whether a tidy hunk's add fence closes later than the fast path read it (nested
    fences, ``nested_fences``): the state machine reads that hunk then."""
    close = (m.end("new"), m.end(), m.group("a"))
    return nested_close(scanner.text, m.start("new") - 1, m.group("a"), close,
                        scanner.next_section(m.end())) != close


def _plain_hunk(m: re.Match[str]) -> _Hunk:
    """The hunk a _PLAIN_HUNK match describes."""
    old, new = m.group("old", "new")
    return _Hunk(m.start("hunk"), m.end(), True, True,
                 old[:-1].split("\n") if old else [], new[:-1].split("\n") if new else [])


class _Reader:
    """Reads the sections of one response and turns them into blocks."""

    def __init__(self, text: str, lines: list[str], section_offsets: list[int]) -> None:
        self.text = text
        self.lines = lines
        self.counter = LineCounter(text)
        self.scanner = _Scanner(text, section_offsets)

    def line_of(self, offset: int) -> int:
        return self.counter.line_of(offset)

    def nothing_after(self, offset: int) -> bool:
        """True when only whitespace follows ``offset`` (the response may have been cut)."""
        return _NON_SPACE_RE.search(self.text, offset) is None

    def blocks(self, path: str, line: int, section: _Section) -> tuple[
            list[Block], list[ParseWarning]]:
        """The blocks of a modified or created file's section starting at ``line``."""
        if section.action == "created":
            return self._created(path, line, section)
        text = self.text
        where = f"semantic-diff file '{path}'"
        if not section.hunks:
            pending = self.nothing_after(section.end)
            reason = ("the response ends after its heading (truncated?)" if pending
                      else "it has no '### Hunk' with lines to remove and add")
            return [], [_warning(line, f"{where} (modified): {reason}; skipped", pending, path)]
        blocks: list[Block] = []
        warnings: list[ParseWarning] = []
        for number, hunk in enumerate(section.hunks, start=1):
            problem = self._hunk_problem(section, hunk)
            first = self.line_of(hunk.start)
            if problem:
                warnings.append(_warning(first, f"{where}, hunk {number}: {problem}; skipped",
                                         problem in _PENDING_PROBLEMS, path))
                continue
            block = new_block(FORMAT, path, "update", first, self.line_of(hunk.end) + 1,
                              text[hunk.start:hunk.end])
            block.old = hunk.remove
            if hunk.add is not None:
                block.new = hunk.add
            blocks.append(block)
        return blocks, warnings

    def _hunk_problem(self, section: _Section, hunk: _Hunk) -> str | None:
        """Why a modified file's hunk cannot become a block, if it cannot."""
        if section.truncated and hunk is section.hunks[-1]:
            return _NOT_CLOSED
        if not hunk.remove:
            return "it has no lines to remove, so it cannot be located"
        if hunk.add is None and self.nothing_after(hunk.end):
            return _NO_LINES_TO_ADD_YET
        if hunk.add is None and not hunk.add_heading:
            return "it has no '#### Lines to add:' part"
        return None

    def _created(self, path: str, line: int, section: _Section) -> tuple[
            list[Block], list[ParseWarning]]:
        where = f"semantic-diff file '{path}' (created)"
        fences = [h.add for h in section.hunks if h.add is not None]
        problem = self._created_problem(section, bool(fences))
        if problem:
            return [], [_warning(line, f"{where}: {problem}; skipped",
                                 problem in _PENDING_PROBLEMS, path)]
        end_line = self.line_of(section.end) + 1
        block = new_block(FORMAT, path, "create", line, end_line,
                          "\n".join(self.lines[line:end_line]))
        block.new = [content_line for fence in fences for content_line in fence]
        return [block], []

    def _created_problem(self, section: _Section, has_fences: bool) -> str | None:
        """Why a created file's section cannot become a block, if it cannot."""
        if section.truncated:
            return _NOT_CLOSED
        if not has_fences and self.nothing_after(section.end):
            return _NO_CONTENT_YET
        if not has_fences and not any(h.add_heading for h in section.hunks):
            return "it has no lines to add"
        return None


# The problems of a section the response ends inside: pending, in a response being written.
_NOT_CLOSED = "its code block is not closed (truncated?)"
_NO_LINES_TO_ADD_YET = "the response ends before its lines to add (truncated?)"
_NO_CONTENT_YET = "the response ends before its content (truncated?)"
_PENDING_PROBLEMS = frozenset({_NOT_CLOSED, _NO_LINES_TO_ADD_YET, _NO_CONTENT_YET})


def _warning(line: int, message: str, pending: bool, path: str) -> ParseWarning:
    """A warning about a section of ``path``; a pending one names its format and file."""
    if not pending:
        return ParseWarning(line, message)
    return ParseWarning(line, message, True, FORMAT, path)


_BATCH_LIMITS = {
    "created": MAX_CREATED, "modified": MAX_MODIFIED, "deleted or moved": MAX_DELETED_OR_MOVED,
}


class BatchLimits:
    """Seed 004's per-patch limits, counted over the whole response.

    ``files``: the files counted so far by kind, ``counted``'s copy (a re-parse of a
    response's tail starts from what its head counted); ``log``: ``(line, kind, path)`` of
    every section counted, in order."""

    def __init__(self, counted: dict[str, set[str]] | None = None) -> None:
        self.files: dict[str, set[str]] = {
            kind: set(counted.get(kind, ())) if counted else set() for kind in _BATCH_LIMITS}
        self.log: list[tuple[int, str, str]] = []

    def count(self, kind: str, path: str, line: int) -> ParseWarning | None:
        """Count a section; a warning when it is the first file beyond the limit."""
        self.log.append((line, kind, path))
        files, limit = self.files[kind], _BATCH_LIMITS[kind]
        if path in files or len(files) > limit:  # past the limit: nothing more to say
            return None
        files.add(path)
        if len(files) != limit + 1:
            return None
        return ParseWarning(line, (
            f"semantic-diff batch limit: more than {limit} file(s) {kind} in one patch "
            f"(the protocol allows {limit}); applied anyway"
        ))


def find_blocks(text: str, lines: list[str], markers: MarkerLines,
                limits: BatchLimits | None = None) -> list[ParsedSpan]:
    """Every ``## File`` section of the response: one block per hunk / created / deleted /
    moved file, warnings for malformed or cut-off ones and for the batch limits (counted
    in ``limits``, a fresh count when None)."""
    sections = markers.starts["file_sections"]
    reader = _Reader(text, lines, [offset for _, offset in sections])
    limits = BatchLimits() if limits is None else limits
    out: list[ParsedSpan] = []
    resume_offset = 0
    for line, offset in sections:
        m = _SECTION_RE.match(text, offset)
        if m is None or offset < resume_offset:
            continue  # not a section heading, or content of the previous section's fence
        path, action = m.group(1).strip(), m.group(2)
        if action == "deleted" or action.startswith("moved"):
            block = new_block(FORMAT, path, "delete", line, line + 1, lines[line])
            if action != "deleted":
                block.op, block.move_to = "rename", m.group(3).strip()
            span = ParsedSpan(line, line + 1, [block], [])
            kind = "deleted or moved"
        else:
            reader.counter.seek(offset, line)
            section = _Section(action, end=m.end())
            _read_structure(section, reader.scanner, m.end())
            blocks, warnings = reader.blocks(path, line, section)
            span = ParsedSpan(line, reader.line_of(section.end) + 1, blocks, warnings)
            resume_offset = section.end
            kind = action
        limit_warning = limits.count(kind, path, line)
        if limit_warning is not None:
            span.warnings.append(limit_warning)
        out.append(span)
    return out


_ATX_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")


def settled_by(lines: list[str], start: int, end: int, section_lines: list[int]) -> int | None:
    """For a section read on lines [start, end): the line before which the text decides that
    it ends there (None: the text so far does not tell). A later Hunk heading may continue a
    section, and move where its last fence closes (``nested_fences``), up to the next
    ``## File`` line (``section_lines``: those lines, in order); a heading right after it
    ends it. A deleted or moved file's section is its line alone."""
    m = _SECTION_RE.match(lines[start])
    if m is not None and (m.group(2) == "deleted" or m.group(2).startswith("moved")):
        return end
    complete = len(lines) - 1  # the last line may be partial: it decides nothing
    k = end
    while k < complete and not lines[k].strip():
        k += 1
    if k < complete and _ATX_HEADING.match(lines[k]):
        return k + 1
    following = bisect_right(section_lines, end - 1)
    if following < len(section_lines) and section_lines[following] < complete:
        return section_lines[following] + 1
    return None


def _fenced(content: list[str], language: str) -> list[str]:
    fence = backtick_fence_for(content)
    return [fence + language, *content, fence]


def render(block: Block) -> str:
    """The block as one ``## File`` section (a modification as its single ``### Hunk 1:``).

    Fences are made longer than any backtick fence inside the content. Raises ValueError for
    ops the format cannot express (append) and for hunk-format blocks.
    """
    language = _LANGUAGES.get(block.file.rsplit(".", 1)[-1].lower(), "") if "." in block.file \
        else ""
    head = f"## File `{block.file}`"
    if block.op == "delete":
        return f"{head} deleted.\n"
    if block.op == "rename":
        return f"{head} moved to `{block.move_to}`.\n"
    if block.op == "create":
        out = [f"{head} created:", "", "### Hunk 1:", "#### Lines to remove:", "",
               "#### Lines to add:", *_fenced(block.new, language)]
    elif block.op == "update" and block.hunks is None:
        out = [f"{head} modified:", "", "### Hunk 1:", "#### Lines to remove:",
               *_fenced(block.anchor + block.old + block.trailing, language), "",
               "#### Lines to add:", *_fenced(block.anchor + block.new + block.trailing, language)]
    else:
        raise ValueError(f"semantic-diff cannot express this {block.op!r} block")
    return lines_to_text(out)
