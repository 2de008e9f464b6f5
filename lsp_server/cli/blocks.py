"""``--blocks 1,3-5``: run only some blocks of the response (1-based, as the table numbers
them); the others are reported ``excluded`` (see :mod:`lsp_server.block_selection`)."""

from __future__ import annotations

from typing import Any, NoReturn

import click

from .exit_codes import EXIT_USAGE


def usage_error(message: str) -> NoReturn:
    """One line on stderr and exit 2 (a wrong --blocks is a usage error)."""
    click.echo(f"llm-edits: --blocks: {message}", err=True)
    raise click.exceptions.Exit(EXIT_USAGE)


def _parse_blocks(ctx: click.Context, param: click.Parameter,
                  value: str | None) -> tuple[int, ...] | None:
    if value is None:
        return None
    from ..block_selection import parse_block_ranges  # loaded only when --blocks is given

    try:
        return parse_block_ranges(value)
    except ValueError as exc:
        usage_error(str(exc))


blocks_option: Any = click.option(
    "--blocks", callback=_parse_blocks, metavar="LIST",
    help="Run only these blocks (numbers as the table shows them, e.g. 1,3-5); the others "
         "are reported excluded.",
)


def check_blocks_in_range(blocks: tuple[int, ...] | None, block_count: int) -> None:
    """A usage error for a block number the response does not have."""
    if blocks is None:
        return
    from ..block_selection import check_in_range

    try:
        check_in_range(blocks, block_count, one_based=True)
    except ValueError as exc:
        usage_error(str(exc))


__all__ = ["blocks_option", "check_blocks_in_range"]
