"""whole-file blocks: a path line over one fenced block holding the file's complete new text
(docs/formats.md "whole-file").

The format is opt-in: ``parse_response`` runs this parser only when the formats asked for
name it. A fenced snippet under a path line is usually *part* of a file (an example, an
excerpt), and reading it as the whole file would erase the rest; a model taught this format
writes every line instead. The parser has no line in the shared marker scan: it looks for
fences itself, which costs the responses that do not ask for it nothing.

Grammar::

    block     := path-line blank* FENCE content-line* CLOSE
    FENCE     := up to 3 spaces, then 3+ "`" (no "`" in the rest of the line) or 3+ "~",
                 then an optional info string (a language)
    CLOSE     := up to 3 spaces, 3+ of the fence's character (at least as many), nothing else
    path-line := see paths.py (the nearest non-blank line above FENCE, after the previous
                 fence's closing line)

Nested fences: a Markdown file written whole holds fences of its own, counted as every fence
reader counts them (``nested_fences.closing_fence_index``): a fence with an info string
(```` ```bash ````) or a bare pair (```` ``` ```` / ``make install`` / ```` ``` ````) inside the
block closes nothing, and no path line is read inside it. (CommonMark would close the block
at the first bare fence and read the rest of the file as prose, or as another file.) Content
lines lose the fence's indentation, as in CommonMark.

Not blocks: a fence without a path line above it (a snippet, a shell command); a fence whose
content starts another format's block (a SEARCH/REPLACE block or a diff in its fence is that
format's block, never a file's whole text). A fence with a path line that never closes is
reported (the response was cut short) and not applied: half a file is not the file.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence

from ..model import Block, ParseWarning
from .marker_scan import MarkerLines
from .nested_fences import Fence, LinesOf, fence_close, fence_lines
from .parsed_span import ParsedSpan, new_block
from .paths import find_path_line
from .response_text import backtick_fence_for

FORMAT = "whole-file"
OP = "write"  # create the file when it is missing, else turn its text into this one

# Marker lines of the shared scan that start another format's block: (kind, text prefix);
# a whole-line kind is checked on its text, a line-start kind on the line (see formats.py).
_WHOLE_LINE_STARTS = (("edit_markers", "««« EDIT"), ("search_replace_markers", "<"))
_LINE_STARTS = ("file_sections", "edit_calls", "git_headers")
_PATCH_MARKERS = "patch_markers"  # of those, "*** Begin Patch" (padded or not) starts a patch
_DIFF_MINUS = "minus_lines"  # "--- " starts a unified diff only with "+++ " after it


def find_blocks(text: str, lines: list[str], markers: MarkerLines) -> list[ParsedSpan]:
    """Every whole-file block (and unclosed fence under a path line) of the response."""
    out: list[ParsedSpan] = []
    starts = other_format_starts(lines, markers)
    floor = 0  # a path line is never inside or above the previous fence
    for opener, close in _fence_pairs(fence_lines(text), lines):
        path_line = find_path_line(lines, opener.line, floor)
        if close is None:
            if path_line is not None:
                out.append(_unclosed(opener, path_line))
            break  # the rest of the response is that fence's content
        if path_line is not None and not holds_line_of(starts, opener.line, close):
            out.append(_span(lines, opener, close, path_line))
        floor = close + 1
    return out


def _fence_pairs(fences: list[Fence], lines: list[str]) -> Iterator[tuple[Fence, int | None]]:
    """Each fence the parser reads: its opener and the line of its closing fence (None: not
    closed, and the rest of the response is its content)."""
    for opener, close, _ in _fences_read(fences, lines):
        yield opener, close


def _fences_read(fences: list[Fence],
                 lines: Sequence[str]) -> Iterator[tuple[Fence, int | None, int | None]]:
    """:func:`_fence_pairs` with the line settling each close (``nested_fences.fence_close``)."""
    i = 0
    while i < len(fences):
        opener = fences[i]
        if not opener.can_open():
            i += 1
            continue
        j, settled_by = fence_close(fences, i, lines)
        yield opener, None if j is None else fences[j].line, settled_by
        if j is None:
            return
        i = j + 1


def fence_ends(text: str, lines: list[str] | None = None) -> list[tuple[int, int]]:
    """``(opener line, line after the closing fence)`` of each fence the parser reads, -1
    for one not closed: where a re-parse of a response's tail may start is outside them.
    ``lines``: the text's lines, when the caller has them."""
    return [(opener, end) for opener, end, _ in fence_records(text, lines)]


def fence_records(text: str, lines: list[str] | None = None) -> list[tuple[int, int, int | None]]:
    """:func:`fence_ends` with each fence's settling line: the line before which the text
    decides where it closes (None: not decided yet, or not closed), for a response still
    arriving (``incremental``: a bare fence right above a content line may yet open a pair
    of the file's own, decided by the next fence line)."""
    read = _fences_read(fence_lines(text), LinesOf(text) if lines is None else lines)
    return [(opener.line, -1, None) if close is None else (opener.line, close + 1, by)
            for opener, close, by in read]


def _unclosed(opener: Fence, path_line: tuple[int, str]) -> ParsedSpan:
    first, path = path_line
    message = (f"whole-file block for {path!r} is not closed (no closing fence; truncated?); "
               "skipped")
    warning = ParseWarning(first, message, True, FORMAT, path)
    return ParsedSpan(first, opener.line + 1, warnings=[warning])


def _span(lines: list[str], opener: Fence, close: int,
          path_line: tuple[int, str]) -> ParsedSpan:
    first, path = path_line
    end = close + 1
    block = new_block(FORMAT, path, OP, first, end, "\n".join(lines[first:end]))
    block.new = dedent_fence(lines[opener.line + 1 : close], opener.indent)
    return ParsedSpan(first, end, [block])


def dedent_fence(content: list[str], indent: int) -> list[str]:
    """Content lines without the fence's indentation (up to ``indent`` spaces each)."""
    if not indent:
        return content
    out = []
    for line in content:
        spaces = len(line) - len(line.lstrip(" "))
        out.append(line[min(spaces, indent):])
    return out


def other_format_starts(lines: list[str], markers: MarkerLines) -> list[int]:
    """Sorted response lines where another format's block starts (for every fence reader:
    whole-file and code-block)."""
    found = (_whole_line_starts(markers) + _line_starts(markers) + _diff_starts(lines, markers)
             + [line for line, _ in markers.starts.get(_PATCH_MARKERS, ())
                if lines[line].lstrip().startswith("*** Begin Patch")])
    found.sort()
    return found


def _whole_line_starts(markers: MarkerLines) -> list[int]:
    return [line for kind, prefix in _WHOLE_LINE_STARTS
            for line, text in markers.whole_lines.get(kind, ()) if text.startswith(prefix)]


def _line_starts(markers: MarkerLines) -> list[int]:
    return [line for kind in _LINE_STARTS for line, _ in markers.starts.get(kind, ())]


def _diff_starts(lines: list[str], markers: MarkerLines) -> list[int]:
    return [line for line, _ in markers.starts.get(_DIFF_MINUS, ())
            if lines[line + 1 : line + 2] and lines[line + 1].startswith("+++ ")]


def holds_line_of(starts: list[int], opener: int, close: int) -> bool:
    """Whether a line of ``starts`` lies strictly between the fence lines."""
    i = bisect_right(starts, opener)
    return i < len(starts) and starts[i] < close


def render(block: Block) -> str:
    """The block as a path line over a fenced whole file, ending in "\\n".

    Only a block that carries a file's whole text can be written this way (op ``write`` or
    ``create``, the text in ``new``); raises ValueError for any other.
    """
    if block.hunks is not None or block.op not in (OP, "create") or block.old or block.anchor:
        raise ValueError(f"whole-file cannot express a {block.op!r} block")
    content = block.new
    fence = backtick_fence_for(content)
    head = [block.file] if block.file else []
    return "\n".join([*head, fence, *content, fence]) + "\n"
