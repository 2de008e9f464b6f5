"""search-replace blocks: aider's SEARCH/REPLACE format (seed 002's legacy format, docs/formats.md).

Grammar (one marker per whole line; trailing whitespace on marker lines is ignored; a marker
not at the start of its line is content)::

    block     := [path-line blank* [fence-opener blank*]] HEAD old-line* DIVIDER new-line* CLOSE
    HEAD      := "<<<<<<< SEARCH"         (5 to 9 "<"; aider's optional ">" after SEARCH)
    DIVIDER   := "======="                (5 to 9 "=")
    CLOSE     := ">>>>>>> REPLACE"        (5 to 9 ">")  |  DIVIDER (a second one; warned)
    path-line := see paths.py (nearest non-blank line above HEAD, one fence opener skipped)

Marker lengths other than 7 are accepted with a warning, as is a second DIVIDER where
``>>>>>>> REPLACE`` belongs (both are known model slips). An empty SEARCH section (or one of
blank lines only, as aider treats it) is op "append": create the file, or append to it.

Several blocks in a row after one path line (aider's usual "one fence, many blocks") all take
that path silently: a block whose nearest non-blank line above is the previous block's closing
marker inherits the previous block's file.

State machine::

    SCANNING --HEAD--> SEARCH --DIVIDER--> REPLACE --REPLACE/DIVIDER--> emit, SCANNING
    SEARCH --REPLACE-->  malformed (no DIVIDER): warning, skipped
    end of response inside a block: unclosed: warning, skipped, parsing resumes at the next
    HEAD after it (a complete block nested in a closed block is content)
"""

from __future__ import annotations

from ..model import Block, ParseWarning
from .block_nesting import nest_frames
from .marker_scan import MarkerLines
from .parsed_span import ParsedSpan, new_block
from .paths import find_path_line
from .response_text import backtick_fence_for

FORMAT = "search-replace"
HEAD = "<<<<<<< SEARCH"
DIVIDER = "======="
UPDATED = ">>>>>>> REPLACE"
MARKERS = "search_replace_markers"  # their kind in the marker scan (see lsp_server.formats)
# Every HEAD the marker scan finds: 5 to 9 "<", aider's optional ">".
_HEADS = frozenset("<" * n + " SEARCH" + gt for n in range(5, 10) for gt in ("", ">"))

_SEARCH, _REPLACE = "search", "replace"


class _Frame:
    """One SEARCH/REPLACE block being read."""

    __slots__ = ("children", "close", "divider", "divider_marker", "end", "error", "floor",
                 "head", "start", "state")

    def __init__(self, start: int, floor: int, marker: str) -> None:
        self.start = start
        self.floor = floor
        self.children: list | None = None
        self.state = _SEARCH
        self.head = marker  # the marker texts, for the odd-length warnings
        self.divider = start
        self.divider_marker = ""
        self.close = ""
        self.end = start
        self.error: str | None = None

    def step(self, marker: str, line: int) -> bool:
        if self.state == _SEARCH:
            if marker[0] == "=":
                self.state, self.divider, self.divider_marker = _REPLACE, line, marker
                return False
            self.end, self.error = line, f"SEARCH/REPLACE block has no '{DIVIDER}' line"
            return True
        self.end, self.close = line, marker
        return True


def _marker_warnings(frame: _Frame) -> list[ParseWarning]:
    """Warnings for markers with 5, 6, 8 or 9 characters and for a closing second divider."""
    if frame.head == HEAD and frame.divider_marker == DIVIDER and frame.close == UPDATED:
        return []  # the usual case, checked first
    warnings = []
    for line, marker in (
        (frame.start, frame.head), (frame.divider, frame.divider_marker), (frame.end, frame.close)
    ):
        count = len(marker) - len(marker.lstrip(marker[0]))
        if count != 7:
            warnings.append(ParseWarning(
                line, f"'{marker}' has {count} '{marker[0]}' instead of 7; accepted"
            ))
    if frame.close[0] == "=":
        warnings.append(ParseWarning(
            frame.end,
            f"a second '{DIVIDER}' stands where '{UPDATED}' belongs; it closes the block",
        ))
    return warnings


def find_blocks(text: str, lines: list[str], markers: MarkerLines) -> list[ParsedSpan]:
    """Every SEARCH/REPLACE block (and malformed/unclosed one) of the response."""
    out: list[ParsedSpan] = []
    previous_end = -1  # closing-marker line of the previous block emitted
    previous_file = ""
    for frame, closed in nest_frames(markers.whole_lines[MARKERS], _HEADS, _Frame):
        first, file = _path_of(frame, lines, previous_end, previous_file)
        if not closed:
            out.append(_unclosed(frame, first, file))
            continue
        span = _span(frame, lines, first, file)
        out.append(span)
        if span.blocks:
            previous_end, previous_file = frame.end, file
    return out


def _unclosed(frame: _Frame, first: int, file: str) -> ParsedSpan:
    """The warning for a block still open at the end of the response (pending), at the
    line where the block will start once closed (``first``: its path line, if any)."""
    start = frame.start
    missing = f"'{UPDATED}'" if frame.state == _REPLACE else f"'{DIVIDER}' or '{UPDATED}'"
    message = f"SEARCH/REPLACE block is not closed (no {missing} line; truncated?); skipped"
    warning = ParseWarning(first, message, True, FORMAT, file or None)
    return ParsedSpan(start, start + 1, warnings=[warning])


def _path_of(frame: _Frame, lines: list[str], previous_end: int,
             previous_file: str) -> tuple[int, str]:
    """The block's first response line and its file ("" when it has no path line)."""
    start = frame.start
    above = start - 1
    while above >= frame.floor and not lines[above].strip():
        above -= 1
    if above == previous_end and previous_file:
        return start, previous_file  # next block in the same fence
    path_line = find_path_line(lines, start, frame.floor)
    return path_line if path_line else (start, "")


def _span(frame: _Frame, lines: list[str], first: int, file: str) -> ParsedSpan:
    """A closed frame's block (or the warning for a malformed one), from response line
    ``first`` on."""
    end = frame.end + 1
    if frame.error is not None:
        warning = ParseWarning(frame.start, frame.error + "; skipped")
        return ParsedSpan(first, end, warnings=[warning])
    old = lines[frame.start + 1 : frame.divider]
    block = new_block(FORMAT, file, "update", first, end, "\n".join(lines[first:end]))
    block.new = lines[frame.divider + 1 : frame.end]
    if any(map(str.strip, old)):
        block.old = old
    else:  # empty or blank-only SEARCH: aider's "append to the file, or create it"
        block.op = "append"
    return ParsedSpan(first, end, [block], _marker_warnings(frame))


def render(block: Block) -> str:
    """The block as a fenced SEARCH/REPLACE block (path line first when it has a file).

    create and append render with an empty SEARCH section. Leading and trailing context, when
    the block has some, is written around both sections. Content lines that are themselves
    markers cannot be escaped in this format. Raises ValueError for ops it cannot express.
    """
    if block.hunks is not None or block.op not in ("update", "create", "append"):
        raise ValueError(f"search-replace cannot express a {block.op!r} block")
    if block.op == "update":
        search = block.anchor + block.old + block.trailing
        replace = block.anchor + block.new + block.trailing
    else:
        search, replace = [], block.new
    fence = backtick_fence_for(search + replace)
    head = [block.file] if block.file else []
    return "\n".join(
        [*head, fence, HEAD, *search, DIVIDER, *replace, UPDATED, fence]
    ) + "\n"
