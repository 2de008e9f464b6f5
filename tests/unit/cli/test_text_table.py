"""The report's tables (lsp_server.cli.text_table): drawn as Rich draws its default table."""

from __future__ import annotations

import io

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from lsp_server.cli.text_table import Column, render_table

COLUMNS = [Column("#", right=True), Column("status"), Column("file", fold=True),
           Column("line", right=True), Column("reason", fold=True)]
ROWS = [
    ["1", "validated", "src/app.py", "12", ""],
    ["2", "failed", "docs/\u65e5\u672c\u8a9e.md", "", "Leading anchor not found\nhint: line 3"],
    ["10", "skipped", "a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z.txt", "7",
     "Previous edit to this file failed"],
]


def _console(width: int) -> Console:
    return Console(file=io.StringIO(), width=width, color_system=None, highlight=False)


def _ours(width: int) -> list[str]:
    out = _console(width)
    out.print(render_table(out, COLUMNS, [[Text(c) for c in row] for row in ROWS]),
              soft_wrap=True)
    return out.file.getvalue().splitlines()


def _richs(width: int) -> list[str]:
    table = Table(header_style="bold")
    for column in COLUMNS:
        table.add_column(column.header, justify="right" if column.right else "left",
                         overflow="fold" if column.fold else "ellipsis")
    for row in ROWS:
        table.add_row(*[Text(c) for c in row])
    out = _console(width)
    out.print(table)
    return out.file.getvalue().splitlines()


def test_a_table_that_fits_is_drawn_as_richs() -> None:
    assert _ours(200) == _richs(200)


@pytest.mark.parametrize("width", [100, 80, 60])
def test_a_wide_table_folds_its_fold_columns_to_the_console_width(width: int) -> None:
    lines = _ours(width)
    assert all(cell_len(line) <= width for line in lines), lines
    # The folded path is all there, read down its column.
    file_cells = [line.split("│")[3].strip() for line in lines if line.startswith("│")]
    assert "a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z.txt" in "".join(file_cells)


def test_a_very_narrow_console_cuts_other_columns_short() -> None:
    lines = _ours(40)
    assert all(cell_len(line) <= 40 for line in lines), lines
    assert any("…" in line for line in lines)  # "validated" no longer fits its column
