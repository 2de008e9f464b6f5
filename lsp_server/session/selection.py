"""Running some blocks of a response: which ones (``options.blocks``, ``--blocks``), and the
``excluded`` results of the others.

The selected blocks are planned as usual, in response order, each over the files as the
selected blocks before it left them: a block that needed an excluded one fails (or is
skipped) with the usual reason. Every other block is reported ``excluded``: no edit, no
diagnostic, no feedback. The server validates the protocol's 0-based list
(:func:`checked_block_list`), the CLI its 1-based ranges (:func:`parse_block_ranges`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from .model import BlockResult, ParseResult, PlanResult

EXCLUDED = "excluded"


def selected_blocks(options: Any) -> tuple[int, ...] | None:
    """The ``blocks`` of a command's own ``options`` (never a default from
    ``initializationOptions``: a selection names blocks of one response), validated; None
    when absent (every block runs)."""
    value = options.get("blocks") if isinstance(options, dict) else None
    return None if value is None else checked_block_list(value)


def checked_block_list(value: Any) -> tuple[int, ...]:
    """``options.blocks``: a list of distinct non-negative integers (0-based block indices);
    ``ValueError`` naming the first bad entry otherwise. Their range is checked against the
    response later (:func:`check_in_range`)."""
    if not isinstance(value, list):
        raise ValueError(f"options.blocks must be a list of block indices, got "
                         f"{type(value).__name__}")
    seen: set[int] = set()
    for position, entry in enumerate(value):
        if not isinstance(entry, int) or isinstance(entry, bool):
            raise ValueError(f"options.blocks[{position}] must be an integer block index, "
                             f"got {entry!r}")
        if entry < 0:
            raise ValueError(f"options.blocks[{position}] is negative ({entry}); block "
                             "indices start at 0")
        if entry in seen:
            raise ValueError(f"options.blocks[{position}] repeats block index {entry}")
        seen.add(entry)
    return tuple(value)


def check_in_range(selected: Iterable[int], block_count: int, *, one_based: bool = False) -> None:
    """``ValueError`` naming the first index the response has no block for."""
    for index in selected:
        if index >= block_count:
            shown = index + 1 if one_based else index
            has = f"{block_count} block{'' if block_count == 1 else 's'}"
            valid = (f"1-{block_count}" if one_based else f"0-{block_count - 1}"
                     ) if block_count else "none"
            raise ValueError(f"there is no block {shown}: the response has {has} "
                             f"(valid: {valid})")


def parse_block_ranges(text: str) -> tuple[int, ...]:
    """``--blocks 1,3-5``: 1-based block numbers and ranges → 0-based indices, in the order
    given; ``ValueError`` naming the bad part (not a number, 0, a backward range, a block
    named twice)."""
    indices: list[int] = []
    seen: set[int] = set()
    parts = [part.strip() for part in text.split(",")]
    if not any(parts):
        raise ValueError("no block numbers given (e.g. --blocks 1,3-5)")
    for part in parts:
        for number in _range_numbers(part):
            if number in seen:
                raise ValueError(f"block {number} is named twice")
            seen.add(number)
            indices.append(number - 1)
    return tuple(indices)


def _range_numbers(part: str) -> range:
    first, dash, last = part.partition("-")
    try:
        low = int(first)
        high = int(last) if dash else low
    except ValueError:
        raise ValueError(f"{part!r} is not a block number or a range like 3-5") from None
    if low < 1:
        raise ValueError(f"{part!r}: blocks are numbered from 1")
    if high < low:
        raise ValueError(f"{part!r}: a range goes from the lower number to the higher")
    return range(low, high + 1)


def excluded_result(parsed: ParseResult, index: int) -> BlockResult:
    """The result of a block that was not selected: no file read, no line, no edit."""
    block = parsed.blocks[index]
    return BlockResult(index=block.index, file=block.file, format=block.format,
                       status=EXCLUDED, response_line=block.response_line)


def with_excluded(plan: PlanResult, parsed: ParseResult, selected: Iterable[int]) -> PlanResult:
    """``plan`` (of the selected blocks only) with every other block reported ``excluded``,
    all in response order."""
    chosen = set(selected)
    planned = {b.index: b for b in plan.blocks}
    plan.blocks = [planned[b.index] if b.index in chosen and b.index in planned
                   else excluded_result(parsed, position)
                   for position, b in enumerate(parsed.blocks)]
    return plan


def without_excluded(plan: PlanResult) -> tuple[PlanResult, bool]:
    """``plan`` without its excluded blocks (what retry feedback reports on), and whether
    every block of it was excluded (then nothing ran)."""
    kept = [b for b in plan.blocks if b.status != EXCLUDED]
    if len(kept) == len(plan.blocks):
        return plan, False
    return replace(plan, blocks=kept), not kept


def nothing_selected_message(block_count: int) -> str:
    """What a run with an empty ``options.blocks`` says."""
    return (f"options.blocks is empty: no block was run ({block_count} "
            f"block{'' if block_count == 1 else 's'} excluded)")


__all__ = ["EXCLUDED", "check_in_range", "checked_block_list", "excluded_result",
           "nothing_selected_message", "parse_block_ranges", "selected_blocks", "with_excluded",
           "without_excluded"]
