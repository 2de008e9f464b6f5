"""semantic-diff blocks: seed 004's Markdown "Semantic Patch" (FORMATS.md "semantic-diff").

Grammar (headings are ATX headings, fences CommonMark fenced code blocks)::

    section    := " {0,3}## File `PATH` " action
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

Parsing: a regex finds the ``## File`` lines; for each section only the lines that could be a
fence or heading (up to three spaces, then ``` `` ``` ``, ``~~~`` or ``#``) are collected, in
growing windows until the section ends. markdown-it-py decides which of the fence-like lines
open and close CommonMark fences (ordinary lines cannot close a fence, so they are left out of
what it parses); heading-like lines outside those fences are the section's headings. A
10 MB response is therefore never markdown-parsed as a whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice

from markdown_it import MarkdownIt

from ..model import Block, ParseWarning, lines_to_text
from .found import Found
from .textscan import LineCounter, backtick_fence_for, only_indent_before

FORMAT = "semantic-diff"
MAX_CREATED, MAX_MODIFIED, MAX_DELETED_OR_MOVED = 1, 2, 10

_SECTION_RE = re.compile(
    r"## File[ \t]+`([^`\n]+)`[ \t]+(modified|created|deleted|moved to[ \t]+`([^`\n]+)`)"
    r"[ \t]*[.:]?[ \t]*$",
    re.MULTILINE,
)
# Lines that may be a fence (group 1) or an ATX heading (group 2 = its #s).
_STRUCTURE_RE = re.compile(r"^ {0,3}(?:(`{3,}|~{3,})|(#{1,6})(?:[ \t]|$))", re.MULTILINE)
_HUNK_HEADING_RE = re.compile(r"hunk\b", re.IGNORECASE)
_LINES_HEADING_RE = re.compile(r"lines[ \t]+to[ \t]+(remove|add)\b", re.IGNORECASE)

_MARKDOWN = MarkdownIt("zero").enable("fence")
_MARKDOWN.core.ruler.disable(["inline", "text_join"])  # block structure is all we need

_LANGUAGES = {
    "py": "python", "js": "javascript", "ts": "typescript", "go": "go", "rs": "rust",
    "md": "markdown", "json": "json", "yaml": "yaml", "yml": "yaml", "toml": "toml",
    "sh": "bash", "rst": "rst", "java": "java", "c": "c", "h": "c", "cpp": "cpp",
    "rb": "ruby", "html": "html", "css": "css", "txt": "text",
}


@dataclass
class _Fence:
    open_line: int
    close_line: int | None  # None: not closed before the end of the response
    indent: int  # spaces before the opener (removed from content lines, up to this many)

    def content(self, lines: list[str]) -> list[str]:
        end = self.close_line if self.close_line is not None else len(lines)
        body = lines[self.open_line + 1 : end]
        if self.indent:
            body = [_dedent(line, self.indent) for line in body]
        return body


def _dedent(line: str, spaces: int) -> str:
    stripped = line.lstrip(" ")
    return line[min(spaces, len(line) - len(stripped)):]


@dataclass
class _Hunk:
    line: int  # first line (### Hunk, or the first Lines heading)
    remove_heading: int | None = None
    add_heading: int | None = None
    remove: _Fence | None = None
    add: _Fence | None = None

    @property
    def last_line(self) -> int:
        candidates = [self.line, self.remove_heading or 0, self.add_heading or 0]
        for fence in (self.remove, self.add):
            if fence is not None:
                candidates.append(fence.close_line if fence.close_line is not None else 0)
        return max(candidates)


@dataclass
class _Section:
    line: int
    path: str
    action: str  # "modified" or "created"
    hunks: list[_Hunk] = field(default_factory=list)
    end: int = 0  # line after the last line that belongs to the section
    resume_offset: int = 0  # "## File" lines before this offset were section content
    truncated: bool = False  # a fence ran to the end of the response


# One structure candidate: (line, offset, is_fence, marker) where marker is the fence's
# backticks/tildes or the heading's #s.
_Candidate = tuple[int, int, bool, str]


def _structure_windows(
    text: str, start: int, counter: LineCounter
) -> Iterator[tuple[list[_Candidate], bool]]:
    """Growing windows of the structure candidates from offset ``start`` on, each with a flag
    saying whether it reaches the end of the response."""
    candidates: list[_Candidate] = []
    matches = _STRUCTURE_RE.finditer(text, start)
    size = 24
    while True:
        exhausted = False
        while len(candidates) < size:
            m = next(matches, None)
            if m is None:
                exhausted = True
                break
            fence = m.group(1)
            candidates.append((counter.line_of(m.start()), m.start(), fence is not None,
                               fence if fence is not None else m.group(2)))
        yield candidates, exhausted
        if exhausted:
            return
        size *= 4


def _fences(window: list[_Candidate], lines: list[str]) -> dict[int, _Fence]:
    """The CommonMark fences among the window's fence-like lines, by opener line."""
    fence_lines = [c[0] for c in window if c[2]]
    if not fence_lines:
        return {}
    # A paragraph line after the last fence-like line: an unclosed fence swallows it.
    doc = "\n".join(lines[line] for line in fence_lines) + "\nx\n"
    fences: dict[int, _Fence] = {}
    for token in _MARKDOWN.parse(doc):
        if token.type != "fence" or token.map is None:
            continue
        first, after = token.map
        opener = lines[fence_lines[first]]
        fences[fence_lines[first]] = _Fence(
            open_line=fence_lines[first],
            close_line=fence_lines[after - 1] if after <= len(fence_lines) else None,
            indent=len(opener) - len(opener.lstrip(" ")),
        )
    return fences


def _read_structure(
    section: _Section, window: list[_Candidate], final: bool, lines: list[str]
) -> bool:
    """Run the section's state machine over one window of candidates; True when the section
    is known to end inside it (False: a later window may continue it)."""
    fences = _fences(window, lines)
    section.hunks = []
    section.truncated = False
    hunk: _Hunk | None = None
    waiting: str | None = None  # "remove"/"add": a Lines heading waiting for its fence
    inside_until = -1  # last line of the fence being skipped over
    for line, offset, is_fence, marker in window:
        if line <= inside_until:
            continue  # fence content
        if is_fence:
            fence = fences.get(line)
            if fence is None:
                continue  # not an opener (e.g. a backtick fence whose info has a backtick)
            if waiting is None and not (section.action == "created" and not section.hunks):
                return True  # a fence of something else: the section is over
            if fence.close_line is None and not final:
                return False  # it may close in a later window
            if hunk is None:
                hunk = _Hunk(line=line)
                section.hunks.append(hunk)
            setattr(hunk, waiting or "add", fence)
            waiting = None
            section.resume_offset = offset + 1
            if fence.close_line is None:
                section.truncated = True
                section.end = len(lines)
                return True
            section.end = fence.close_line + 1
            inside_until = fence.close_line
            continue
        title = lines[line].strip()[len(marker):].strip()
        lines_heading = _LINES_HEADING_RE.match(title)
        if len(marker) in (3, 4) and _HUNK_HEADING_RE.match(title):
            hunk = _Hunk(line=line)
            section.hunks.append(hunk)
            waiting = None
        elif len(marker) >= 3 and lines_heading:
            if hunk is None:
                hunk = _Hunk(line=line)
                section.hunks.append(hunk)
            waiting = lines_heading.group(1).lower()
            setattr(hunk, waiting + "_heading", line)
        else:
            return True  # any other heading ends the section
        section.end = line + 1
        section.resume_offset = offset + 1
    return False


class _Reader:
    """Reads the sections of one response and turns them into blocks."""

    def __init__(self, text: str, lines: list[str]) -> None:
        self.text = text
        self.lines = lines
        self.counter = LineCounter(text)

    def nothing_after(self, line: int) -> bool:
        """True when only blank lines follow ``line`` (the response may have been cut)."""
        return not any(s.strip() for s in islice(self.lines, line + 1, None))

    def read_section(self, section: _Section, body_offset: int) -> None:
        section.end = section.line + 1
        section.resume_offset = body_offset
        for window, final in _structure_windows(self.text, body_offset, self.counter):
            if _read_structure(section, window, final, self.lines):
                return

    def blocks(self, section: _Section) -> tuple[list[Block], list[ParseWarning]]:
        if section.action == "created":
            return self._created(section)
        lines = self.lines
        where = f"semantic-diff file '{section.path}'"
        if not section.hunks:
            reason = ("the response ends after its heading (truncated?)"
                      if self.nothing_after(section.line)
                      else "it has no '### Hunk' with lines to remove and add")
            return [], [ParseWarning(section.line, f"{where} (modified): {reason}; skipped")]
        blocks: list[Block] = []
        warnings: list[ParseWarning] = []
        for number, hunk in enumerate(section.hunks, start=1):
            problem = None
            if section.truncated and hunk is section.hunks[-1]:
                problem = "its code block is not closed (truncated?)"
            elif hunk.remove is None or not hunk.remove.content(lines):
                problem = "it has no lines to remove, so it cannot be located"
            elif hunk.add is None and self.nothing_after(hunk.last_line):
                problem = "the response ends before its lines to add (truncated?)"
            elif hunk.add is None and hunk.add_heading is None:
                problem = "it has no '#### Lines to add:' part"
            if problem:
                warnings.append(ParseWarning(
                    hunk.line, f"{where}, hunk {number}: {problem}; skipped"
                ))
                continue
            end = hunk.last_line + 1
            blocks.append(Block(
                format=FORMAT, file=section.path, op="update",
                old=hunk.remove.content(lines),
                new=hunk.add.content(lines) if hunk.add is not None else [],
                response_line=hunk.line, end_line=end, raw="\n".join(lines[hunk.line:end]),
            ))
        return blocks, warnings

    def _created(self, section: _Section) -> tuple[list[Block], list[ParseWarning]]:
        lines = self.lines
        where = f"semantic-diff file '{section.path}' (created)"
        end = max([section.line + 1] + [h.last_line + 1 for h in section.hunks])
        fences = [h.add for h in section.hunks if h.add is not None]
        problem = None
        if section.truncated:
            problem = "its code block is not closed (truncated?)"
        elif not fences and self.nothing_after(end - 1):
            problem = "the response ends before its content (truncated?)"
        elif not fences and all(h.add_heading is None for h in section.hunks):
            problem = "it has no lines to add"
        if problem:
            return [], [ParseWarning(section.line, f"{where}: {problem}; skipped")]
        return [Block(
            format=FORMAT, file=section.path, op="create",
            new=[line for fence in fences for line in fence.content(lines)],
            response_line=section.line, end_line=end, raw="\n".join(lines[section.line:end]),
        )], []


_BATCH_LIMITS = {
    "created": MAX_CREATED, "modified": MAX_MODIFIED, "deleted or moved": MAX_DELETED_OR_MOVED,
}


class _BatchLimits:
    """Seed 004's per-patch limits, counted over the whole response."""

    def __init__(self) -> None:
        self.files: dict[str, set[str]] = {kind: set() for kind in _BATCH_LIMITS}

    def count(self, kind: str, path: str, line: int) -> ParseWarning | None:
        """Count a section; a warning when it is the first file beyond the limit."""
        files, limit = self.files[kind], _BATCH_LIMITS[kind]
        if path in files:
            return None
        files.add(path)
        if len(files) != limit + 1:
            return None
        return ParseWarning(line, (
            f"semantic-diff batch limit: more than {limit} file(s) {kind} in one patch "
            f"(the protocol allows {limit}); applied anyway"
        ))


def find_blocks(text: str, lines: list[str]) -> list[Found]:
    """Every ``## File`` section of the response: one block per hunk / created / deleted /
    moved file, warnings for malformed or cut-off ones and for the batch limits."""
    if "## File" not in text:
        return []
    reader = _Reader(text, lines)
    limits = _BatchLimits()
    out: list[Found] = []
    resume_offset = 0
    for m in _SECTION_RE.finditer(text):
        if m.start() < resume_offset or not only_indent_before(text, m.start(), 3):
            continue
        line = reader.counter.line_of(m.start())
        path, action = m.group(1).strip(), m.group(2)
        raw = lines[line]
        if action == "deleted" or action.startswith("moved"):
            block = Block(format=FORMAT, file=path, op="delete", response_line=line,
                          end_line=line + 1, raw=raw)
            if action != "deleted":
                block.op, block.move_to = "rename", m.group(3).strip()
            found = Found(line, line + 1, blocks=[block])
            kind = "deleted or moved"
        else:
            section = _Section(line=line, path=path, action=action)
            reader.read_section(section, m.end())
            blocks, warnings = reader.blocks(section)
            found = Found(line, section.end, blocks, warnings)
            resume_offset = section.resume_offset
            kind = action
        limit_warning = limits.count(kind, path, line)
        if limit_warning is not None:
            found.warnings.append(limit_warning)
        out.append(found)
    return out


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
