"""``options.blocks`` in a command: which blocks a run plans (see
:mod:`lsp_server.block_selection` for what the others become)."""

from __future__ import annotations

from typing import Any

from ..block_selection import check_in_range, nothing_selected_message, with_excluded
from ..model import ParseResult, PlanResult
from ..results import JsonObject
from .options import CommandError, EditOptions


def select_blocks(options: EditOptions, parsed: ParseResult,
                  planning: dict[str, Any]) -> tuple[int, ...] | None:
    """Plan only the blocks ``options.blocks`` names (``planning["only"]``); the selection,
    or None when every block runs. A fix re-plans the one block it names, whatever the run
    selected. ``CommandError`` for an index the response has no block for."""
    blocks = options.blocks
    if blocks is None or "only" in planning:
        return None
    try:
        check_in_range(blocks, len(parsed.blocks))
    except ValueError as exc:
        raise CommandError(f"options.blocks: {exc}") from None
    planning["only"] = set(blocks)
    return blocks


def report_selection(plan: PlanResult, parsed: ParseResult,
                     selection: tuple[int, ...] | None) -> PlanResult:
    """The plan with the blocks left out reported ``excluded`` (unchanged without a
    selection)."""
    return plan if selection is None else with_excluded(plan, parsed, selection)


def note_empty_selection(result: JsonObject, options: EditOptions) -> None:
    """An empty ``options.blocks`` runs nothing: the result says so in ``message``."""
    if options.blocks == ():
        result["message"] = nothing_selected_message(len(result["blocks"]))
