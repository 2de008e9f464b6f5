"""What one format parser reports for one span of the response, and how parsers make blocks."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Block, ParseWarning


@dataclass(slots=True)
class ParsedSpan:
    """Blocks and warnings a parser found in response lines [start, end) (0-based).

    A block whose ``file`` is empty had no path line; parse_response gives it the previous
    block's path (with a warning) or skips it.
    """

    start: int
    end: int
    blocks: list[Block] = field(default_factory=list)
    warnings: list[ParseWarning] = field(default_factory=list)
    format: str = ""  # the parser's format name, set by parse_response (for sorting in C)


def new_block(fmt: str, file: str, op: str, response_line: int, end_line: int,
              raw: str) -> Block:
    """A :class:`Block` with empty sections (the caller fills in what its format gives).

    Built with positional arguments and fresh lists: ``Block(format=..., ...)`` with keywords
    and default factories costs about twice as much, and a big response has tens of
    thousands of blocks. tests/parsing/test_normalize.py checks it equals the keyword form.
    """
    return Block(fmt, file, op, [], [], [], [], None, None, response_line, end_line, raw, 0, None)
