"""edit-v2 blocks (seed 002, docs/formats.md "edit-v2").

Grammar (one marker per whole line; trailing whitespace on marker lines is ignored; a marker
not at the start of its line is content)::

    block     := [path-line blank* [fence-opener blank*]]
                 START anchor-line* SEP old-line* MID new-line* SEP trailing-line* END
    START     := "««« EDIT"
    SEP       := "───────"
    MID       := "═══════"
    END       := "»»»"
    path-line := see paths.py (nearest non-blank line above START, one fence opener skipped)

``anchor + old + trailing`` must match the file; ``old`` becomes ``new``. Any section may be
empty; anchor, old and trailing all empty is a create whose content is ``new``.

State machine (shared with edit-v3, which also opens with ``««« EDIT``; see edit_v3_v2.py)::

    SCANNING --START--> LEAD --SEP--> OLD --MID--> NEW --SEP--> TRAIL --END--> emit, SCANNING
    END in LEAD / OLD / NEW: malformed (missing markers): warning, skipped
    end of response inside a block: unclosed: warning, skipped, parsing resumes at the next
    START after it (a complete block nested in a closed block is content)
"""

from __future__ import annotations

from ..model import Block
from .edit_v3_v2 import START, V2_END, V2_MID, V2_SEP, find_blocks_of
from .marker_scan import MarkerLines
from .parsed_span import ParsedSpan

FORMAT = "edit-v2"


def find_blocks(text: str, lines: list[str], markers: MarkerLines) -> list[ParsedSpan]:
    """Every edit-v2 block (and malformed/unclosed one) of the response."""
    return find_blocks_of(FORMAT, lines, markers)


def render(block: Block) -> str:
    """The block as edit-v2 text (path line first when the block has a file), ending in "\\n".

    A create renders with empty anchor, old and trailing sections. Content lines that are
    themselves markers cannot be escaped in this format. Raises ValueError for ops edit-v2
    cannot express.
    """
    if block.hunks is not None or block.op not in ("update", "create"):
        raise ValueError(f"edit-v2 cannot express a {block.op!r} block")
    if block.op == "create":
        anchor: list[str] = []
        old: list[str] = []
        trailing: list[str] = []
    else:
        anchor, old, trailing = block.anchor, block.old, block.trailing
    head = [block.file] if block.file else []
    return "\n".join(
        [*head, START, *anchor, V2_SEP, *old, V2_MID, *block.new, V2_SEP, *trailing, V2_END]
    ) + "\n"
