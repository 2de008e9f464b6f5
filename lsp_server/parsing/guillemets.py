"""The ``««« EDIT`` blocks shared by edit-v3 and edit-v2: one scan, each block reported once.

Both formats open with ``««« EDIT``; which one a block is follows from the first structural
marker after it (outside nested blocks):

    ═══════ REPL   → edit-v3          ───────  → edit-v2
    »»» EDIT END   → edit-v3, malformed (no ═══════ REPL)
    »»»            → edit-v2, malformed (no ─────── / ═══════)

State machine of one block (a :class:`~.linemarkers.Frame`). Markers are whole lines (trailing
whitespace allowed); in each state only the listed markers act, every other line — markers of
the other format included — is content. A ``««« EDIT`` line opens a nested block (see
``linemarkers``: it is content if the outer block closes, a real block if the outer one is
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
from .found import Found, new_block
from .linemarkers import GUILLEMET_MARKERS, family_markers, nest_frames
from .paths import find_path_line

START, V3_REPL, V3_END, V2_SEP, V2_MID, V2_END = GUILLEMET_MARKERS

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
        state = self.state
        if state == _EDIT:
            if marker == V3_REPL:
                self.state = _V3_REPL
            elif marker == V2_SEP:
                self.state, self.format = _V2_OLD, "edit-v2"
            elif marker == V3_END:
                return self._close(line, f"edit-v3 block has no '{V3_REPL}' line")
            elif marker == V2_END:
                self.format = "edit-v2"
                return self._close(
                    line, f"edit-v2 block has no '{V2_SEP}' / '{V2_MID}' / '{V2_SEP}' lines"
                )
            else:
                return False
        elif state == _V3_REPL:
            return marker == V3_END and self._close(line)
        elif state == _V2_OLD:
            if marker == V2_MID:
                self.state = _V2_NEW
            elif marker == V2_END:
                return self._close(line, f"edit-v2 block has no '{V2_MID}' line after '{V2_SEP}'")
            else:
                return False
        elif state == _V2_NEW:
            if marker == V2_SEP:
                self.state = _V2_TRAIL
            elif marker == V2_END:
                return self._close(
                    line, f"edit-v2 block has no second '{V2_SEP}' line after '{V2_MID}'"
                )
            else:
                return False
        else:  # _V2_TRAIL
            return marker == V2_END and self._close(line)
        self.cuts.append(line)
        return False

    def _close(self, line: int, error: str | None = None) -> bool:
        self.end = line
        self.error = error
        return True


def _common_prefix_length(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _block(frame: _Frame, lines: list[str]) -> Found:
    """The Found of a closed frame: its block, or a warning when it is malformed."""
    path_line = find_path_line(lines, frame.start, frame.floor)
    first = path_line[0] if path_line else frame.start
    end = frame.end + 1
    if frame.error is not None:
        return Found(first, end, warnings=[ParseWarning(frame.start, frame.error + "; skipped")])
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
    return Found(first, end, [block], [])


def _unclosed(frame: _Frame) -> Found:
    if frame.state == _EDIT:
        what = f"no '{V3_REPL}' or '{V2_SEP}' line and no end marker"
    elif frame.format == "edit-v3":
        what = f"no '{V3_END}' line"
    else:
        missing = {_V2_OLD: V2_MID, _V2_NEW: V2_SEP, _V2_TRAIL: V2_END}[frame.state]
        what = f"no '{missing}' line" + ("" if missing == V2_END else f" and no '{V2_END}'")
    message = f"{frame.format} block is not closed ({what}; truncated?); skipped"
    return Found(frame.start, frame.start + 1, warnings=[ParseWarning(frame.start, message)])


# One-entry memo: the dispatcher calls edit_v3 and edit_v2 with the same text object in a
# row, and both need the same scan. Each format's list is handed out once (popped), because the
# dispatcher fills in carried-over paths and indexes on the blocks it receives. Identity, not
# equality, is the key; the strong reference keeps that identity valid until the other format
# has taken its part.
_memo: tuple[str, dict[str, list[Found]]] | None = None


def _scan(text: str, lines: list[str]) -> dict[str, list[Found]]:
    by_format: dict[str, list[Found]] = {"edit-v3": [], "edit-v2": []}
    if START in text:
        markers = family_markers(text, "guillemets")
        for frame, closed in nest_frames(markers, START[0], _Frame):
            by_format[frame.format].append(_block(frame, lines) if closed else _unclosed(frame))
    return by_format


def find_blocks_of(fmt: str, text: str, lines: list[str]) -> list[Found]:
    """The ``««« EDIT`` blocks of format ``fmt`` ("edit-v3" or "edit-v2"), in response order."""
    global _memo
    memo = _memo
    if memo is not None and memo[0] is text:
        mine = memo[1].pop(fmt, None)
        if mine is not None:
            if not memo[1]:
                _memo = None
            return mine
    by_format = _scan(text, lines)
    mine = by_format.pop(fmt, [])
    _memo = (text, by_format)
    return mine
