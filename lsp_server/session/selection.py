"""Running some blocks of a response: which ones (``options.blocks``, ``--blocks``), and the
``excluded`` results of the others (the one module for it: server, CLI and agents).

The selected blocks are planned as usual, in response order, each over the files as the
selected blocks before it left them: a block that needed an excluded one fails (or is
skipped) with the usual reason. Every other block is reported ``excluded``: no edit, no
diagnostic, no feedback. The options take the protocol's 0-based list
(:func:`~.options.checked_block_list`), the CLI its 1-based ranges (:func:`parse_block_ranges`); the
range is checked against the response as the run starts (:func:`check_in_range`, numbering
blocks as the front end does).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..model import BlockResult, ParseResult, PlanResult
from .options import OptionsError, Vocabulary

EXCLUDED = "excluded"


def check_in_range(selected: Iterable[int], block_count: int, words: Vocabulary) -> None:
    """:class:`OptionsError` naming the first index the response has no block for, numbered
    as the front end numbers blocks."""
    base = words.block_base
    for index in selected:
        if index >= block_count:
            has = f"{block_count} block{'' if block_count == 1 else 's'}"
            valid = f"{base}-{block_count - 1 + base}" if block_count else "none"
            raise OptionsError(f"{words.name('blocks')}: there is no block {index + base}: "
                               f"the response has {has} (valid: {valid})")


def parse_block_ranges(text: str) -> tuple[int, ...]:
    """``--blocks 1,3-5``: 1-based block numbers and ranges → 0-based indices, in the order
    given; ``OptionsError`` naming the bad part (not a number, 0, a backward range, a block
    named twice)."""
    indices: list[int] = []
    seen: set[int] = set()
    parts = [part.strip() for part in text.split(",")]
    if not any(parts):
        raise OptionsError("no block numbers given (e.g. --blocks 1,3-5)")
    for part in parts:
        for number in _range_numbers(part):
            if number in seen:
                raise OptionsError(f"block {number} is named twice")
            seen.add(number)
            indices.append(number - 1)
    return tuple(indices)


def _range_numbers(part: str) -> range:
    first, dash, last = part.partition("-")
    try:
        low = int(first)
        high = int(last) if dash else low
    except ValueError:
        raise OptionsError(f"{part!r} is not a block number or a range like 3-5") from None
    if low < 1:
        raise OptionsError(f"{part!r}: blocks are numbered from 1")
    if high < low:
        raise OptionsError(f"{part!r}: a range goes from the lower number to the higher")
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


def nothing_selected_message(block_count: int) -> str:
    """What a run with an empty ``options.blocks`` says."""
    return (f"options.blocks is empty: no block was run ({block_count} "
            f"block{'' if block_count == 1 else 's'} excluded)")


def empty_selection_message(blocks: tuple[int, ...] | None, block_count: int) -> str | None:
    """An empty ``options.blocks`` runs nothing: what the result's ``message`` says then."""
    return nothing_selected_message(block_count) if blocks == () else None


__all__ = ["EXCLUDED", "check_in_range", "empty_selection_message", "excluded_result",
           "nothing_selected_message", "parse_block_ranges", "with_excluded"]
