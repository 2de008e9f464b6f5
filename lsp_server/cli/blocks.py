"""``--blocks 1,3-5``: run only some blocks of the response (1-based, as the table numbers
them); the others are reported ``excluded`` (see :mod:`lsp_server.session.selection`)."""

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
    from ..session.selection import parse_block_ranges  # loaded only when --blocks is given

    try:
        return parse_block_ranges(value)
    except ValueError as exc:
        usage_error(str(exc))


blocks_option: Any = click.option(
    "--blocks", callback=_parse_blocks, metavar="LIST",
    help="Run only these blocks (numbers as the table shows them, e.g. 1,3-5); the others "
         "are reported excluded.",
)


__all__ = ["blocks_option"]
