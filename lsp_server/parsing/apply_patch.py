"""apply-patch blocks: OpenAI Codex's ``*** Begin Patch`` grammar (docs/formats.md "apply-patch").

Grammar (Codex's, as its parser reads it; marker lines may be padded with spaces or tabs,
``*** Begin Patch`` included: the shared scan finds it at a line start, and
:func:`_padded_begins` the padded ones, looked for only when the text holds one)::

    patch       := "*** Begin Patch" LF section* "*** End Patch"
    section     := add | delete | update
    add         := "*** Add File: " path LF ("+" text LF)*
    delete      := "*** Delete File: " path LF
    update      := "*** Update File: " path LF ["*** Move to: " path LF] chunk*
    chunk       := [chunk-header LF] change-line+ ["*** End of File" LF]
    chunk-header:= "@@" | "@@ " context-line
    change-line := " " text | "-" text | "+" text | ""   ("" = an empty context line)

One section is one block: Add File → op "create" (``new`` = the ``+`` lines), Delete File →
op "delete", Update File → op "update" with ``hunks`` (one per chunk; ``anchor`` = the
``@@ context line``, ``end_of_file`` from ``*** End of File``) and ``move_to`` from
``*** Move to``. An Update File with a Move to and no chunk is op "rename" (Codex rejects an
empty update; a pure move is still clear); one with neither is an update block without hunks,
which fails when planned ("Empty update"), so the user sees it.

A ``*** Add/Delete/Update File:`` line outside any patch (the model forgot ``*** Begin
Patch``) is a warning naming the line: nothing is applied from it.

State machine, per line of the patch::

    BETWEEN  --Add/Delete/Update File-->  that section
    ADD      --"+" line--> content          UPDATE  --"@@", " ", "-", "+" line--> chunk
    any      --next File marker / End Patch--> emit the section
    any      --Begin Patch--> the patch was not ended: emit the section, start the next patch

Decisions (Codex parity unless noted):
- Marker lines may be padded with spaces or tabs anywhere, inside an update body too: a line
  that is a marker once stripped (`` *** End Patch``) is that marker, never a context line
  (Codex reads its patch's last line so; a file line that is exactly a patch marker cannot be
  context). Any other line starting with a space is a context line.
- Empty lines: inside a chunk or Add File they are empty lines of the text; at the end of a
  chunk or Add File section they only separate it from what follows and are dropped (Codex
  keeps them as context, which then has to match).
- ``@@ -12,5 +12,6 @@`` (unified-style) headers are read as in :mod:`.hunks`.
- Stacked headers (``@@ class A`` directly followed by ``@@ def f``) are an error, as in
  Codex's parser: the first chunk has no lines.
- A line that fits no rule (unprefixed text, a stray ``@@`` in Add File, ...) makes its
  section malformed (warning, skipped; parsing resumes at the next marker) when an
  ``*** End Patch`` follows later; otherwise it ends a patch whose ``*** End Patch`` is
  missing, and the sections read so far are applied with a warning.
- Missing ``*** End Patch`` at the end of the response (a truncated stream): the sections
  followed by another section are complete and applied; the last one may be cut short, so it
  is reported and skipped.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from ..model import Block, Hunk, ParseWarning, lines_to_text
from .hunk_syntax import (
    PLAIN_HUNKS,
    BodyBuilder,
    anchor_header,
    anchor_header_line,
    block_hunks,
    plain_hunks,
    render_body,
)
from .marker_scan import MarkerLines
from .parsed_span import ParsedSpan, new_block
from .response_text import LineCounter, line_start

FORMAT = "apply-patch"
BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE = "*** Add File: ", "*** Delete File: ", "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"

_END_OR_BEGIN_RE = re.compile(r"\*\*\* (End|Begin) Patch")
_MARKER_RE = re.compile(
    r"\*\*\* (Begin Patch|End Patch|End of File|Add File:|Delete File:|Update File:|Move to:)"
    r"[ \t]*(.*)$"
)
# Fast path for tidy section bodies directly followed by the next "***" line (see
# _PatchReader._plain_body); the line-by-line state machine reads them the same way.
_PLAIN_ADD = re.compile(r"(?P<body>(?:\+[^\n]*\n)+)(?=\*\*\* )")
_PLAIN_UPDATE = re.compile(
    r"(?:\*\*\* Move to: (?P<move>[^\n]*\S)[ \t]*\n)?"
    r"(?P<body>" + PLAIN_HUNKS.pattern + r")(?=\*\*\* )"
)
_FILE_MARKERS = {"Add File:": "create", "Delete File:": "delete", "Update File:": "update"}
# First characters of a body line, per section kind ("" is not one: empty lines are blanks).
_BODY_PREFIXES = {"create": ("+",), "delete": (), "update": (" ", "-", "+")}


@dataclass(slots=True)
class _Section:
    """One ``*** Add/Delete/Update File`` section being read."""

    op: str  # "create", "delete" or "update"
    path: str
    line: int
    end: int  # line after the last non-blank line consumed
    move_to: str | None = None
    new: list[str] = field(default_factory=list)  # Add File content
    pending_blanks: int = 0  # Add File empty lines not yet known to be content
    hunks: list[Hunk] = field(default_factory=list)
    body: BodyBuilder | None = None  # the chunk being read (None after *** End of File)
    error: tuple[int, str] | None = None  # (response line, message) of the first problem
    size: int = 0  # body lines and chunk headers read (blank ones included)

    def fail(self, line: int, message: str) -> None:
        if self.error is None:
            self.error = (line, message)


def _marker(line: str) -> tuple[str, str] | None:
    """``(marker name, argument)`` for a marker line, padded or not."""
    m = _MARKER_RE.fullmatch(line.strip())
    return (m.group(1), m.group(2).strip()) if m else None


def _move_to(section: _Section, i: int, path: str) -> None:
    """``*** Move to: path`` at line ``i``."""
    if section.op != "update" or section.hunks or section.move_to is not None:
        section.fail(i, "'*** Move to' must follow its '*** Update File' line")
    elif not path:
        section.fail(i, "'*** Move to' names no file")
    else:
        section.move_to, section.end = path, i + 1


def _holds_padded_marker(body: str) -> bool:
    """A line of ``body`` is a marker padded with spaces or tabs (`` *** End Patch``); the C
    substring tests settle most bodies."""
    if "\n ***" not in body and "\n\t***" not in body and body[:1] not in " \t":
        return False
    return any(_marker(line) for line in body.split("\n") if line[:1] in " \t")


def _end_of_file(section: _Section, i: int) -> None:
    """``*** End of File`` at line ``i``: the hunk before it ends at the end of the file."""
    if section.body is None or not section.body.hunk.lines:
        section.fail(i, f"'{END_OF_FILE}' does not follow a hunk")
    else:
        section.body.hunk.end_of_file = True
        section.body, section.end = None, i + 1


class _PatchReader:
    """Reads one patch from its ``*** Begin Patch`` line; ``read()`` returns its ParsedSpan."""

    def __init__(self, text: str, lines: list[str], begin: int, begin_offset: int,
                 max_lines: int | None) -> None:
        self.text = text
        self.lines = lines
        self.max_lines = max_lines  # a section past this many lines is skipped (maxBlockLines)
        self.span = ParsedSpan(begin, begin + 1)
        self.offset = begin_offset  # offset of the line being read
        self.section: _Section | None = None
        self.skipping = False  # after a malformed line outside a section: until a marker
        self.boundary: tuple[int, str] | None = None  # next End/Begin Patch line: offset, which

    # -- emitting ----------------------------------------------------------------------

    def _warn(self, line: int, message: str, pending_file: str | None = None) -> None:
        """A warning; with ``pending_file`` (``""``: none known) one for a patch the response
        ends inside (pending: still being written, in a response that is)."""
        pending = pending_file is not None
        self.span.warnings.append(ParseWarning(
            line, message, pending, FORMAT if pending else None, pending_file or None))

    def _close_section(self) -> None:
        section, self.section = self.section, None
        if section is None:
            return
        where = f"apply-patch section '{section.path}'"
        if section.error is not None:
            line, message = section.error
            self._warn(line, f"{where}: {message}; section skipped")
            return
        block = new_block(FORMAT, section.path, section.op, section.line, section.end,
                          "\n".join(self.lines[section.line:section.end]))
        if section.op == "create":
            block.new = section.new
        elif section.op == "update":
            block.move_to = section.move_to
            if not section.hunks:
                if section.move_to is None:
                    block.hunks = []  # fails when planned: "Empty update"
                else:
                    block.op = "rename"
            else:
                empty = [h for h in section.hunks if not h.lines]
                if empty:
                    self._warn(empty[0].response_line, (
                        f"{where}: this hunk has no lines (stacked '@@' headers are not "
                        "supported); section skipped"
                    ))
                    return
                block.hunks = section.hunks
        self.span.blocks.append(block)

    # -- reading -------------------------------------------------------------------------

    def _end_patch_ahead(self) -> bool:
        """True when an ``*** End Patch`` line comes later, before any ``*** Begin Patch``
        line. Remembered per patch: a patch with many stray lines scans the rest once."""
        if self.boundary is None or self.boundary[0] < self.offset:
            text, pos = self.text, self.offset
            self.boundary = (len(text), "")
            for m in _END_OR_BEGIN_RE.finditer(text, pos):
                start = line_start(text, m.start())
                end = text.find("\n", m.end())
                if text[start:len(text) if end < 0 else end].strip() == m.group(0):
                    self.boundary = (m.start(), m.group(1))
                    break
        return self.boundary[1] == "End"

    def _open_section(self, op: str, path: str, i: int) -> None:
        self._close_section()
        self.skipping = False
        self.section = _Section(op=op, path=path, line=i, end=i + 1)
        if not path:
            self.section.fail(i, "the marker names no file")

    def _stray_line(self, i: int, line: str) -> bool:
        """A line that fits no rule; returns True when it ends the (unterminated) patch."""
        if not self._end_patch_ahead():
            self._close_section()
            self._warn(i, f"apply-patch has no '{END}'; the patch ends before this line")
            self.span.end = i
            return True
        if self.section is not None:
            self.section.fail(i, f"not a patch line: {line[:60]!r}")
        elif not self.skipping:
            self._warn(i, f"apply-patch line is not part of any file section: {line[:60]!r}")
            self.skipping = True
        return False

    def _body_line(self, i: int, line: str) -> None:
        section = self.section
        assert section is not None
        if section.op == "create":
            section.new.extend([""] * section.pending_blanks)
            section.pending_blanks = 0
            section.new.append(line[1:])
        else:
            if section.body is None:  # a body without "@@" starts a bare chunk
                section.body = BodyBuilder(Hunk(header="", response_line=i))
                section.hunks.append(section.body.hunk)
            section.body.add(line[0], line[1:])
        section.end = i + 1

    def _marker_line(self, i: int, name: str, arg: str) -> bool:
        """Handle a marker line; returns True when the patch ends here."""
        section = self.section
        if name == "End Patch":
            self._close_section()
            self.span.end = i + 1
            return True
        if name == "Begin Patch":
            self._close_section()
            self._warn(i, f"apply-patch has no '{END}' before this '{BEGIN}'")
            self.span.end = i
            return True
        if name in _FILE_MARKERS:
            self._open_section(_FILE_MARKERS[name], arg, i)
        elif section is None:
            if not self.skipping:
                self._warn(i, f"'*** {name}' outside a file section; ignored")
        elif name == "Move to:":
            _move_to(section, i, arg)
        else:
            _end_of_file(section, i)
        return False

    def _plain_body(self, i: int, offset: int) -> int:
        """Fast path right after a file marker at line ``i - 1``: a tidy body (``+`` lines of
        an Add File; an optional Move to and tidy hunks of an Update File) directly followed
        by the next ``***`` line is read in C. Returns how many lines it took (0: none)."""
        section = self.section
        assert section is not None
        if section.op == "delete":
            return 0
        regex = _PLAIN_ADD if section.op == "create" else _PLAIN_UPDATE
        if self.max_lines is not None:
            # re's stack grows by ~500 bytes per hunk it matches: a body of millions of tiny
            # hunks peaked at 1.6 GB inside the match. A body past the limit (up to the next
            # "***" line, counted in C) is left to the line rules, which stop at the limit.
            following = self.text.find("\n***", offset) + 1 or len(self.text)
            if self.text.count("\n", offset, following) > self.max_lines:
                return 0
        m = regex.match(self.text, offset)
        if m is None:
            return 0
        body = m.group("body")
        if _holds_padded_marker(body):
            return 0  # the line rules read it as the marker it is
        if section.op == "create":
            section.new = [line[1:] for line in body[:-1].split("\n")]
            taken = len(section.new)
        else:
            if m.group("move") is not None:
                section.move_to = m.group("move").strip()
            line = i + (m.group("move") is not None)
            section.hunks = plain_hunks(body)
            for hunk in section.hunks:
                hunk.response_line = line
                line += 1 + len(hunk.lines)
            section.body = BodyBuilder(section.hunks[-1])  # *** End of File may follow
            taken = line - i
        section.end = i + taken
        section.size += taken
        self.offset = m.end()
        return taken

    def read(self) -> ParsedSpan:
        lines = self.lines
        self.offset += len(lines[self.span.start]) + 1
        i = self.span.start + 1
        while i < len(lines):
            taken = self._read_line(i, lines[i])
            if not taken:
                return self.span
            i += taken
        self._response_ended()
        return self.span

    def _read_line(self, i: int, line: str) -> int:
        """Read line ``i``; returns how many lines it took (more when a file marker's tidy
        body was read with it), 0 when the patch ends at this line."""
        section = self.section
        if not (self._section_line(section, i, line) if section is not None
                else not line.strip()):  # a blank line outside a section is nothing
            marker = _marker(line)
            if marker is not None and self._marker_line(i, *marker):
                return 0
            if marker is None and self._stray_line(i, line):
                return 0
            opened = self.section
            if opened is not None and opened.line == i and opened.error is None:
                taken = self._plain_body(i + 1, self.offset + len(line) + 1)
                if taken:
                    return 1 + taken
        self.offset += len(line) + 1
        return 1

    def _too_long(self, section: _Section, i: int, more: int) -> bool:
        """Count ``more`` lines toward the section's size; past ``max_lines`` the section
        fails (its further lines are skipped, never kept)."""
        section.size += more
        if self.max_lines is None or section.size <= self.max_lines:
            return False
        section.fail(i, f"more than {self.max_lines} lines (maxBlockLines); the rest of the "
                        "section is not read")
        section.hunks.clear()
        section.new.clear()
        section.body = None
        return True

    def _section_line(self, section: _Section, i: int, line: str) -> bool:
        """Read line ``i`` as part of the open section, if it is one: a body line, a blank,
        a hunk header, or any non-marker line of a malformed section (skipped)."""
        if section.error is not None and not line.startswith("*"):
            return True  # malformed section: skip to the next marker
        if line[:1] in " \t" and _marker(line) is not None:
            return False  # a padded marker (" *** End Patch"), never a context line
        if line[:1] != "*" and self._too_long(section, i, 1):
            return True  # ("*" lines are markers or stray, never part of a section)
        if line[:1] in _BODY_PREFIXES[section.op]:
            self._body_line(i, line)
        elif not line.strip():
            if section.body is not None:
                section.body.add_blank()
            elif section.op == "create":
                section.pending_blanks += 1
        elif line.startswith("@@") and section.op == "update":
            anchor, header = anchor_header(line[2:])
            section.body = BodyBuilder(Hunk(header=header, anchor=anchor, response_line=i))
            section.hunks.append(section.body.hunk)
            section.end = i + 1
        else:
            return False
        return True

    def _response_ended(self) -> None:
        """The response ended inside the patch: a stream cut short."""
        if self.section is not None:
            last = self.section
            self.section = None
            self._warn(last.line, (
                f"apply-patch section '{last.path}' may be incomplete (the response ends "
                f"before '{END}'); skipped"
            ), last.path)
        else:
            self._warn(self.span.start, f"apply-patch has no '{END}' (truncated?)", "")
        self.span.end = len(self.lines)


_PATCH_MARKERS = "patch_markers"  # their kind in the marker scan (see lsp_server.formats)
_PADDED_BEGIN = re.compile(r"^[ \t]+\*\*\* Begin Patch[ \t]*$", re.MULTILINE)


def _padded_begins(text: str) -> list[tuple[int, int]]:
    """``(line, offset)`` of the ``*** Begin Patch`` lines with leading spaces or tabs, which
    the shared scan (markers start their line) does not find. The substring tests run in C
    (fast search), so a response without a padded marker pays no regex pass."""
    if " *** Begin Patch" not in text and "\t*** Begin Patch" not in text:
        return []
    counter = LineCounter(text)
    return [(counter.line_of(m.start()), m.start()) for m in _PADDED_BEGIN.finditer(text)]


def find_blocks(text: str, lines: list[str], markers: MarkerLines) -> list[ParsedSpan]:
    """Every ``*** Begin Patch`` … ``*** End Patch`` of the response, one block per section;
    file markers outside every patch as warnings."""
    found = markers.starts[_PATCH_MARKERS]
    begins = [(line, offset) for line, offset in found if lines[line].rstrip() == BEGIN]
    padded = _padded_begins(text)
    out = _patches(text, lines, sorted(begins + padded) if padded else begins,
                   markers.max_block_lines)
    if len(begins) < len(found):  # End Patch or file marker lines: any outside a patch?
        out += _orphan_file_markers(found, out, lines)
    return out


def _patches(text: str, lines: list[str], begins: list[tuple[int, int]],
             max_lines: int | None) -> list[ParsedSpan]:
    """The patch starting at each of ``begins`` not inside the one before."""
    out: list[ParsedSpan] = []
    next_free_line = 0
    for line, offset in begins:
        if line < next_free_line:
            continue  # inside the previous patch
        span = _PatchReader(text, lines, line, offset, max_lines).read()
        if not span.blocks and not span.warnings:
            span.warnings.append(ParseWarning(line, "apply-patch has no file sections"))
        out.append(span)
        next_free_line = span.end
    return out


def _outside(found: list[tuple[int, int]], patches: list[ParsedSpan]) -> list[int]:
    """The lines of ``found`` outside every patch (both in response order)."""
    outside = []
    k = 0
    for line, _ in found:
        while k < len(patches) and patches[k].end <= line:
            k += 1
        if not (k < len(patches) and patches[k].start <= line):
            outside.append(line)
    return outside


_FILE_MARKERS_TEXT = ("*** Add File:", "*** Delete File:", "*** Update File:")


def _orphan_file_markers(found: list[tuple[int, int]], patches: list[ParsedSpan],
                         lines: list[str]) -> list[ParsedSpan]:
    """A warning for each ``*** Add/Delete/Update File:`` line outside every patch (at the
    start of its line: the scan's; a padded one outside a patch is not looked for)."""
    orphans: list[ParsedSpan] = []
    for line in _outside(found, patches):
        seen = lines[line].strip()
        if seen.startswith(_FILE_MARKERS_TEXT):
            warning = ParseWarning(line, (
                f"apply-patch: {seen[:80]!r} is not inside a '{BEGIN}' … '{END}' patch; "
                "nothing is applied from it"))
            orphans.append(ParsedSpan(line, line + 1, warnings=[warning]))
    return orphans


def settled_by(lines: list[str], start: int, end: int, begin_lines: list[int]) -> int | None:
    """For a span read on lines [start, end): the line before which the text decides it
    (None: the text so far does not tell). A patch that ended at a stray line did so because
    no ``*** End Patch`` follows before the next ``*** Begin Patch`` (``begin_lines``, in
    order): more text could bring one, until that next Begin Patch line."""
    if lines[start].strip() != BEGIN or lines[end - 1].strip() == END:
        return end  # a file marker outside patches, or a patch ended by its End Patch
    complete = len(lines) - 1
    if end < complete and lines[end].strip() == BEGIN:
        return end + 1
    following = bisect_left(begin_lines, end)
    if following < len(begin_lines) and begin_lines[following] < complete:
        return begin_lines[following] + 1
    return None


def render(block: Block) -> str:
    """The block as a complete ``*** Begin Patch`` … ``*** End Patch`` patch.

    A line-format update becomes one bare chunk. Raises ValueError for an append.
    """
    out = [BEGIN]
    if block.op == "create":
        out.append(ADD + block.file)
        out.extend("+" + line for line in block.new)
    elif block.op == "delete":
        out.append(DELETE + block.file)
    elif block.op in ("update", "rename"):
        out.append(UPDATE + block.file)
        if block.move_to is not None:
            out.append(MOVE + block.move_to)
        for hunk in block_hunks(block) if block.op == "update" else []:
            out.append(anchor_header_line(hunk))
            out.extend(render_body(hunk))
            if hunk.end_of_file:
                out.append(END_OF_FILE)
    else:
        raise ValueError(f"apply-patch cannot express a {block.op!r} block")
    out.append(END)
    return lines_to_text(out)
