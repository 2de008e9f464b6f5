"""Hunk rules shared by the hunk formats (hunk-patch, apply-patch; rendering also unified-diff).

A hunk body is a run of lines that each start with ``' '`` (context), ``'-'`` (removed) or
``'+'`` (added). Two model slips are common and handled the same way in every hunk format:

- An empty line inside a body is an empty context line: editors and models strip the single
  space a context line for an empty file line should carry. Empty lines at the *end* of a
  body are not content but the gap before whatever follows (another hunk, a file marker, the
  closing quote of a JSON string), so :class:`BodyBuilder` drops them. Dropping context never
  changes what a hunk does, only how precisely it is located.
- A unified-diff style header (``@@ -12,5 +12,6 @@ def f():``) in a format whose headers are
  anchors: line numbers are no anchor (seed 003 forbids them), so the hunk is bare unless
  text follows the second ``@@``, which (like git's function-context heading) becomes the
  anchor. ``@@ @@`` is bare as well.
"""

from __future__ import annotations

import re

from ..model import Block, Hunk

_UNIFIED_RANGES = re.compile(r"-\d+(?:,\d+)? \+\d+(?:,\d+)? @@(.*)$")
# Tidy hunks: every line a header or a prefixed body line, each header followed by a body.
PLAIN_HUNKS = re.compile(r"(?:@@[^\n]*\n(?:[ +\-][^\n]*\n)+)+")


def anchor_header(after_at: str) -> tuple[str | None, str]:
    """``(anchor, header)`` for the text after the leading ``@@`` of an anchor-style header.

    ``""`` → ``(None, "")``; ``" def f():"`` → ``("def f():", "def f():")`` (the text after
    ``"@@ "``, kept as written; matching ignores its surrounding whitespace).
    """
    stripped = after_at.strip()
    if not stripped or stripped == "@@":
        return None, ""
    ranges = _UNIFIED_RANGES.match(stripped)
    if ranges:
        heading = ranges.group(1).strip()
        return (heading or None), heading
    anchor = after_at[1:] if after_at.startswith(" ") else after_at
    return anchor, anchor


def plain_hunks(text: str) -> list[Hunk]:
    """The hunks of ``text``, which must fullmatch :data:`PLAIN_HUNKS`: the usual tidy case,
    split in C rather than read line by line (the line rules would read it the same way)."""
    hunks = []
    for chunk in ("\n" + text[:-1]).split("\n@@")[1:]:
        header_line, *body = chunk.split("\n")
        anchor, header = anchor_header(header_line)
        hunks.append(Hunk(header, [(line[0], line[1:]) for line in body], anchor))
    return hunks


class BodyBuilder:
    """Collects the lines of one hunk body, holding back empty lines until more content comes.

    ``add_blank()`` for an empty response line, ``add(kind, text)`` for a prefixed one;
    ``hunk.lines`` never ends with the held-back blanks.
    """

    __slots__ = ("hunk", "pending_blanks")

    def __init__(self, hunk: Hunk) -> None:
        self.hunk = hunk
        self.pending_blanks = 0

    def add_blank(self) -> None:
        self.pending_blanks += 1

    def add(self, kind: str, text: str) -> None:
        if self.pending_blanks:
            self.hunk.lines.extend([(" ", "")] * self.pending_blanks)
            self.pending_blanks = 0
        self.hunk.lines.append((kind, text))


def has_change(hunk: Hunk) -> bool:
    """True when the hunk removes or adds at least one line."""
    return any(kind != " " for kind, _ in hunk.lines)


def render_body(hunk: Hunk) -> list[str]:
    """The hunk's body lines with their one-character prefixes."""
    return [kind + text for kind, text in hunk.lines]


def anchor_header_line(hunk: Hunk) -> str:
    """``@@`` or ``@@ ANCHOR`` for a hunk-patch / apply-patch hunk."""
    return "@@" if hunk.anchor is None else "@@ " + hunk.anchor


def block_hunks(block: Block) -> list[Hunk]:
    """A block's hunks; a line-format block (anchor/old/new/trailing) as one bare hunk."""
    if block.hunks is not None:
        return block.hunks
    hunk = Hunk(header="")
    hunk.lines = (
        [(" ", t) for t in block.anchor] + [("-", t) for t in block.old]
        + [("+", t) for t in block.new] + [(" ", t) for t in block.trailing]
    )
    return [hunk]
