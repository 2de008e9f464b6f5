"""The "Apply at closest match (line N)" quick fix, checked against the buffer as it is now.

The fix was offered by an earlier preview: its line N is where the block's near match was
then. The user may have edited since (lines added above move the near match down), so the
block is first planned as it is: if it applies now, it applies where it matches; if the near
match the diagnosis finds now is still at line N, the block is placed there; otherwise it
fails, saying where the near match went, and nothing is placed over lines that are no
longer the ones the fix named.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...model import BlockResult, ParseResult, PlanResult
from ..client_refusals import plan_for_client
from ..file_reader import FileReader
from ..protocol.client_features import ClientFeatures

Planner = Callable[..., PlanResult]


def _closest_line(block: BlockResult) -> int | None:
    line = (block.fixes or {}).get("closestLine")
    return line if isinstance(line, int) else None


def _moved(block: BlockResult, line: int, now: int | None) -> None:
    where = (f"it is at line {now + 1} now: use the quick fix offered there" if now is not None
             else "there is no clear near match now")
    block.reason = (f"The closest match is no longer at line {line + 1} ({where}); nothing was "
                    f"applied. Before: {block.reason}")


def plan_at_closest(index: int, line: int) -> Planner:
    """A planner (as :func:`plan_for_client`) placing block ``index`` at 0-based ``line``
    only while its near match is still there."""

    def planner(parsed: ParseResult, reader: FileReader, roots: list[Path],
                features: ClientFeatures, **planning: Any) -> PlanResult:
        replanning = planning.get("before_replanning")
        as_is = plan_for_client(parsed, reader, roots, features, **planning)
        block = next((b for b in as_is.blocks if b.index == index), None)
        if block is None or block.status != "failed":
            return as_is  # it applies (or already did) where it matches now
        now = _closest_line(block)
        if now != line:
            _moved(block, line, now)
            return as_is
        if replanning is not None:
            replanning()
        return plan_for_client(parsed, reader, roots, features, force_at={index: line},
                               **planning)

    return planner
