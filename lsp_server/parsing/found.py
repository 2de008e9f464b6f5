"""What one format parser reports for one span of the response."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Block, ParseWarning


@dataclass
class Found:
    """Blocks and warnings a parser found in response lines [start, end) (0-based).

    A block whose ``file`` is empty had no path line; parse_response gives it the previous
    block's path (with a warning) or skips it.
    """

    start: int
    end: int
    blocks: list[Block] = field(default_factory=list)
    warnings: list[ParseWarning] = field(default_factory=list)
