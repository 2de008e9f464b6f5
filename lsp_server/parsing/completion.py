"""Which blocks of a response still being written are complete: their content can no longer
change, whatever text is appended (docs/protocol.md "Response documents", docs/cli.md
"Streaming").

A block can parse as complete and still change when more text arrives: a unified diff takes
another hunk after a few lines of prose, a semantic-diff section another hunk (which may move
where its last fence closes), a block whose last line is still being written reads that
line again. The rule, for the text so far (which may end inside a line):

- every span any parser read (kept or not) and every fence the parsers pair from the start
  of the text has a *settling line* (``settled_by`` of its parser, see
  :mod:`.incremental`): the line before which the text decides its extent and content (a
  closing marker; for a unified diff, the line that ends the hunk look-ahead; for a
  semantic-diff section, a heading after it or the next ``## File`` line; for a patch
  without ``*** End Patch``, the next ``*** Begin Patch`` line), or none yet (a block
  started and not closed, a fence not closed);
- it is *settled* when that line is complete: the last line of the text, maybe partial,
  decides nothing;
- a block is complete when every span and fence starting at or before the first line of
  its span is settled. A span starting above it and still open could take it in when it
  closes; the blocks above it are complete too, so its index and a path it takes from the
  block before are decided as well;
- and when no block written later can start on that line: a block of edit-v3, edit-v2,
  search-replace or whole-file takes the nearest non-blank line above its marker (one fence
  opener skipped) as its path line, and its span starts there. A later block after blank
  lines may so start on the last non-blank line of the text so far (or the one above it,
  when that is a fence opener); starting on the same line as a block there, and running
  longer, it would replace that block (a one-line ``## File `x` deleted.`` section, say).
  Once a non-blank line follows, no later block reaches back to it.

So the complete blocks are a prefix of the parse's blocks. When the text has ended (the
CLI's input closed), every block is complete. The rule is exact per format (each parser says
what decides its spans), not a guess from blank lines or prose: a block that ends on its
closing marker is complete once the line break after that marker has arrived.
"""

from __future__ import annotations

from . import normalize_response
from .incremental import IncrementalParse
from .paths import is_fence_opener

__all__ = ["complete_count"]

_BACK = 256  # characters read back from the end at first, looking for the last lines


def complete_count(text: str, parse: IncrementalParse, *, ended: bool = False) -> int:
    """How many blocks of ``parse.result`` (the parse of ``text``, the text last given to
    ``parse.update``), from the first, are complete (see the module docstring); ``ended``:
    no more text will come (every block is complete)."""
    blocks = parse.result.blocks
    if ended or not blocks:
        return len(blocks)
    # A block to come starts at its marker, on a line not written yet, or on its path line.
    limit = _lowest_start(text, parse, parse.last_line)
    first_open = parse.unsettled_from()
    if first_open is not None:
        # What is still open may take the path line above it when it closes.
        limit = min(limit, _lowest_start(text, parse, first_open))
    return parse.blocks_before(limit)


def _lowest_start(text: str, parse: IncrementalParse, line: int) -> int:
    """The lowest line a block whose marker stands on ``line`` (or below it, after blank
    lines and a fence opener) can start on: its path line, the nearest non-blank line above
    it, or the one above that when it is a fence opener; ``line`` when there is none."""
    end = parse.line_offset(line)
    back = _BACK
    while True:
        start = text.rfind("\n", 0, max(0, end - back)) + 1
        above = normalize_response(text[start:end]).split("\n")  # the last: ``line``'s
        found = _path_line_from_end(above)
        if found is not None:
            return line - found
        if start == 0:
            return line
        back *= 4


def _path_line_from_end(lines: list[str]) -> int | None:
    """How many lines above the last of ``lines`` the lowest path line is; None when
    ``lines`` do not reach it."""
    count = len(lines)
    non_blank = [k for k in range(count - 2, -1, -1) if lines[k].strip()][:2]
    if not non_blank:
        return None
    if not is_fence_opener(lines[non_blank[0]]):
        return count - 1 - non_blank[0]
    return count - 1 - non_blank[1] if len(non_blank) > 1 else None
