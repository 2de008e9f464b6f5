"""The ``««« EDIT`` blocks, read for edit-v3 and edit-v2 alike.

Both formats open with ``««« EDIT``; which one a block is follows from the first structural
marker after it (outside nested blocks):

    ═══════ REPL   → edit-v3          ───────  → edit-v2
    »»» EDIT END   → edit-v3, malformed (no ═══════ REPL)
    »»»            → edit-v2, malformed (no ─────── / ═══════)

State machine of one block (a :class:`~.block_nesting.Frame`). Markers are whole lines (trailing
whitespace allowed); in each state only the listed markers act, every other line — markers of
the other format included — is content. A ``««« EDIT`` line opens a nested block (see
``block_nesting``: it is content if the outer block closes, a real block if the outer one is
unclosed).

    state     marker          → next
    EDIT      ═══════ REPL    → V3_REPL
    EDIT      ───────         → V2_OLD
    EDIT      »»» EDIT END    → closed, malformed edit-v3 (missing ═══════ REPL)
    EDIT      »»»             → closed, malformed edit-v2 (missing markers)
    V3_REPL   »»» EDIT END    → closed: edit-v3 block
    V2_OLD    ═══════         → V2_NEW
    V2_OLD    »»»             → closed, malformed edit-v2 (missing ═══════)
    V2_NEW    ───────         → V2_TRAIL
    V2_NEW    »»»             → closed, malformed edit-v2 (missing the second ───────)
    V2_TRAIL  »»»             → closed: edit-v2 block

A block still open at the end of the response is reported as unclosed and skipped. A
malformed closed block is reported and skipped. Unclosed blocks that never reached a
structural marker are reported by edit-v3 (the current format).
"""

from __future__ import annotations

from ..model import ParseWarning
from .block_nesting import nest_frames
from .marker_scan import MarkerLines
from .parsed_span import ParsedSpan, new_block
from .paths import find_path_line

START, V3_REPL, V3_END, V2_SEP, V2_MID, V2_END = (
    "««« EDIT", "═══════ REPL", "»»» EDIT END", "───────", "═══════", "»»»")
EDIT_MARKERS = "edit_markers"  # their kind in the marker scan (see lsp_server.formats)
_STARTS = frozenset({START})

# Frame states.
_EDIT = "edit"
_V3_REPL = "v3-repl"
_V2_OLD = "v2-old"
_V2_NEW = "v2-new"
_V2_TRAIL = "v2-trail"


class _Frame:
    """One ``««« EDIT`` block being read."""

    __slots__ = ("children", "cuts", "end", "error", "floor", "format", "start", "state")

    def __init__(self, start: int, floor: int, marker: str = START) -> None:  # marker: START
        self.start = start
        self.floor = floor
        self.children: list | None = None
        self.state = _EDIT
        self.format = "edit-v3"  # until a structural marker says otherwise
        self.cuts: list[int] = []  # lines of the structural markers, in order
        self.end = start
        self.error: str | None = None

    def step(self, marker: str, line: int) -> bool:
        """Consume a non-start marker (the table above); True when it closed the block."""
        action = _ACTIONS[self.state].get(marker)
        if action is None:
            return False  # content in this state
        next_state, self.format, error = action
        if next_state is not None:
            self.state = next_state
            self.cuts.append(line)
            return False
        self.error, self.end = error, line
        return True


# The state machine of the module docstring: state -> marker -> (next state, format, error).
# No next state: the marker closes the block (error None: a complete block).
_ACTIONS: dict[str, dict[str, tuple[str | None, str, str | None]]] = {
    _EDIT: {
        V3_REPL: (_V3_REPL, "edit-v3", None),
        V2_SEP: (_V2_OLD, "edit-v2", None),
        V3_END: (None, "edit-v3", f"edit-v3 block has no '{V3_REPL}' line"),
        V2_END: (None, "edit-v2",
                 f"edit-v2 block has no '{V2_SEP}' / '{V2_MID}' / '{V2_SEP}' lines"),
    },
    _V3_REPL: {V3_END: (None, "edit-v3", None)},
    _V2_OLD: {
        V2_MID: (_V2_NEW, "edit-v2", None),
        V2_END: (None, "edit-v2", f"edit-v2 block has no '{V2_MID}' line after '{V2_SEP}'"),
    },
    _V2_NEW: {
        V2_SEP: (_V2_TRAIL, "edit-v2", None),
        V2_END: (None, "edit-v2",
                 f"edit-v2 block has no second '{V2_SEP}' line after '{V2_MID}'"),
    },
    _V2_TRAIL: {V2_END: (None, "edit-v2", None)},
}


def _common_prefix_length(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _block(frame: _Frame, lines: list[str]) -> ParsedSpan:
    """The ParsedSpan of a closed frame: its block, or a warning when it is malformed."""
    path_line = find_path_line(lines, frame.start, frame.floor)
    first = path_line[0] if path_line else frame.start
    end = frame.end + 1
    if frame.error is not None:
        warning = ParseWarning(frame.start, frame.error + "; skipped")
        return ParsedSpan(first, end, warnings=[warning])
    block = new_block(frame.format, path_line[1] if path_line else "", "update", first, end,
                      "\n".join(lines[first:end]))
    if frame.format == "edit-v3":
        repl = frame.cuts[0]
        edit_lines = lines[frame.start + 1 : repl]
        repl_lines = lines[repl + 1 : frame.end]
        if not edit_lines:
            block.op = "create"
            block.new = repl_lines
        else:
            n = _common_prefix_length(edit_lines, repl_lines)
            block.anchor = edit_lines[:n]
            block.old = edit_lines[n:]
            block.new = repl_lines[n:]
    else:
        sep1, mid, sep2 = frame.cuts
        block.anchor = lines[frame.start + 1 : sep1]
        block.old = lines[sep1 + 1 : mid]
        block.new = lines[mid + 1 : sep2]
        block.trailing = lines[sep2 + 1 : frame.end]
        if not (block.anchor or block.old or block.trailing):
            block.op = "create"
    return ParsedSpan(first, end, [block], [])


def _unclosed(frame: _Frame, lines: list[str]) -> ParsedSpan:
    """The warning for a frame still open at the end of the response (pending: a block
    still being written, in a response that is), at the line where the block will start
    once closed (its path line, if any)."""
    if frame.state == _EDIT:
        what = f"no '{V3_REPL}' or '{V2_SEP}' line and no end marker"
    elif frame.format == "edit-v3":
        what = f"no '{V3_END}' line"
    else:
        missing = {_V2_OLD: V2_MID, _V2_NEW: V2_SEP, _V2_TRAIL: V2_END}[frame.state]
        what = f"no '{missing}' line" + ("" if missing == V2_END else f" and no '{V2_END}'")
    message = f"{frame.format} block is not closed ({what}; truncated?); skipped"
    path_line = find_path_line(lines, frame.start, frame.floor)
    warning = ParseWarning(path_line[0] if path_line else frame.start, message, True,
                           frame.format, path_line[1] if path_line else None)
    return ParsedSpan(frame.start, frame.start + 1, warnings=[warning])


def find_blocks_of(fmt: str, lines: list[str], markers: MarkerLines) -> list[ParsedSpan]:
    """The ``««« EDIT`` blocks of format ``fmt`` ("edit-v3" or "edit-v2"), in response order,
    malformed and unclosed ones as warnings.

    Each of the two formats runs the nesting pass over the shared markers and keeps its own
    blocks (the pass is a few percent of a parse; sharing its result would need a memo).
    """
    edit_markers = markers.whole_lines[EDIT_MARKERS]
    if not edit_markers:
        return []
    return [_block(frame, lines) if closed else _unclosed(frame, lines)
            for frame, closed in nest_frames(edit_markers, _STARTS, _Frame)
            if frame.format == fmt]
