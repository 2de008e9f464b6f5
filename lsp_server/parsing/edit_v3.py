"""edit-v3 blocks (seeds 000/001, docs/formats.md "edit-v3").

Grammar (one marker per whole line; trailing whitespace on marker lines is ignored; a marker
not at the start of its line is content)::

    block     := [path-line blank* [fence-opener blank*]] START edit-line* REPL repl-line* END
    START     := "««« EDIT"
    REPL      := "═══════ REPL"
    END       := "»»» EDIT END"
    path-line := see paths.py (nearest non-blank line above START, one fence opener skipped)

The anchor is the common prefix of whole lines of the EDIT and REPL sections; the rest of
each section is old / new. An empty EDIT section is a create whose content is the REPL section.

State machine (shared with edit-v2, which also opens with ``««« EDIT``; see edit_v3_v2.py)::

    SCANNING  --START-->  EDIT  --REPL-->  REPL  --END-->  emit block, SCANNING
    EDIT      --END-->    malformed (no REPL line): warning, skipped
    end of response while in EDIT/REPL: unclosed: warning, skipped, parsing resumes at the
    next START after it (a complete block nested in a closed block is content)
"""

from __future__ import annotations

from ..model import Block
from .edit_v3_v2 import START, V3_END, V3_REPL, find_blocks_of
from .marker_scan import MarkerLines
from .parsed_span import ParsedSpan

FORMAT = "edit-v3"


def find_blocks(text: str, lines: list[str], markers: MarkerLines) -> list[ParsedSpan]:
    """Every edit-v3 block (and malformed/unclosed ``««« EDIT`` block) of the response."""
    return find_blocks_of(FORMAT, lines, markers)


def render(block: Block) -> str:
    """The block as edit-v3 text (path line first when the block has a file), ending in "\\n".

    A create renders with an empty EDIT section. Trailing context, when the block has some,
    is written at the end of both sections. Content lines that are themselves markers cannot
    be escaped in this format. Raises ValueError for ops edit-v3 cannot express.
    """
    if block.hunks is not None or block.op not in ("update", "create"):
        raise ValueError(f"edit-v3 cannot express a {block.op!r} block")
    if block.op == "create":
        edit: list[str] = []
        repl = block.new
    else:
        edit = block.anchor + block.old + block.trailing
        repl = block.anchor + block.new + block.trailing
    head = [block.file] if block.file else []
    return "\n".join([*head, START, *edit, V3_REPL, *repl, V3_END]) + "\n"
