"""The report's tables, drawn as Rich draws its default table (a heavy head box) but made
here as one :class:`~rich.text.Text`: Rich's ``Table`` lays out every cell through its
rendering engine, about 0.4 ms a row (0.09 s of a 200-block report, seconds for thousands
of blocks), where padding known strings costs microseconds.

Columns take the width of their widest line. When the table is wider than the console, the
columns marked ``fold`` are narrowed first (the widest first) and their cells wrapped by Rich,
then if need be the others, their cells cut short with "…" (only the cells that do not fit
go through Rich; a line that fits is padded as it is).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console
from rich.text import Span, Text

_MIN_FOLDED = 8  # a folded column keeps at least this many cells (or its header's width)


@dataclass
class Column:
    header: str
    right: bool = False  # right-justified (numbers)
    fold: bool = False  # may be narrowed, its cells wrapped


def render_table(out: Console, columns: list[Column], rows: list[list[Text]],
                 header_style: str = "bold") -> Text:
    """The table as text lines (borders, header, one row per entry, cells of several lines
    for a cell holding line breaks or wrapped)."""
    cells = [[_cell_lines(cell) for cell in row] for row in rows]
    widths = _fit(columns, _natural_widths(columns, cells), out.width)
    table = _TableText()
    _border(table, widths, "┏━┳┓")
    heads = [[Text(c.header, style=header_style)] for c in columns]
    _row(table, columns, widths, heads, "┃")
    _border(table, widths, "┡━╇┩")
    for row in cells:
        wrapped = [_fitted(out, lines, width, column.fold)
                   for lines, width, column in zip(row, widths, columns, strict=True)]
        _row(table, columns, widths, wrapped, "│")
    _border(table, widths, "└─┴┘", last=True)
    return table.text()


class _TableText:
    """The table's characters and styles gathered as strings and spans, made into one
    :class:`~rich.text.Text` at the end: the same text and spans as ``Text.append`` piece by
    piece, whose per-call checks were most of the table's time (the report of 200 blocks:
    141M instructions before, 109M)."""

    __slots__ = ("length", "parts", "spans")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.spans: list[Span] = []
        self.length = 0

    def append(self, piece: str) -> None:
        """Plain characters (borders, padding: no control codes to strip)."""
        self.parts.append(piece)
        self.length += len(piece)

    def append_text(self, text: Text) -> None:
        """A cell's line with its styles, as :meth:`rich.text.Text.append_text` adds it."""
        start = self.length
        if text.style:
            self.spans.append(Span(start, start + len(text), text.style))
        self.spans.extend(Span(s + start, e + start, style) for s, e, style in text.spans)
        self.parts.append(text.plain)
        self.length += len(text)

    def text(self) -> Text:
        return Text("".join(self.parts), spans=self.spans)


def _cell_lines(cell: Text) -> list[Text]:
    """A cell's lines; a one-line cell as it is (``Text.split`` copies it)."""
    return cell.split("\n") if "\n" in cell.plain else [cell]


def _natural_widths(columns: list[Column], cells: list[list[list[Text]]]) -> list[int]:
    widths = [cell_len(c.header) for c in columns]
    for row in cells:
        for i, lines in enumerate(row):
            for line in lines:
                widths[i] = max(widths[i], cell_len(line.plain))
    return widths


def _fit(columns: list[Column], widths: list[int], width: int) -> list[int]:
    """Narrow the columns until the table fits ``width`` (if it can): the fold columns down
    to a few cells, then any column down to one."""
    widths = list(widths)
    excess = sum(widths) + 3 * len(widths) + 1 - width  # "│ " + cell + " " each, last "│"
    folded = [max(_MIN_FOLDED, cell_len(c.header)) if c.fold else w
              for c, w in zip(columns, widths, strict=True)]
    excess = _narrow(widths, folded, excess)
    _narrow(widths, [1] * len(widths), excess)
    return widths


def _narrow(widths: list[int], floors: list[int], excess: int) -> int:
    """Take up to ``excess`` cells from the widest columns above their floors; what is left."""
    while excess > 0:
        candidates = [i for i, w in enumerate(widths) if w > floors[i]]
        if not candidates:
            break
        widest = max(candidates, key=lambda i: widths[i])
        others = [widths[i] for i in candidates if i != widest]
        # Down to the next widest column (at least one cell), or by the excess.
        step = min(excess, widths[widest] - max([floors[widest], *others]) or 1)
        widths[widest] -= step
        excess -= step
    return excess


def _fitted(out: Console, lines: list[Text], width: int, fold: bool) -> list[Text]:
    fitted: list[Text] = []
    for line in lines:
        if cell_len(line.plain) <= width:
            fitted.append(line)
        elif fold:
            fitted.extend(line.wrap(out, width, overflow="fold"))
        else:
            short = line.copy()
            short.truncate(width, overflow="ellipsis")
            fitted.append(short)
    return fitted


def _row(table: _TableText, columns: list[Column], widths: list[int], cells: list[list[Text]],
         bar: str) -> None:
    for k in range(max(len(lines) for lines in cells)):
        table.append(bar)
        for column, width, lines in zip(columns, widths, cells, strict=True):
            line = lines[k] if k < len(lines) else Text()
            pad = " " * (width - cell_len(line.plain))
            table.append(" ")
            if column.right:
                table.append(pad)
            table.append_text(line)
            if not column.right:
                table.append(pad)
            table.append(" " + bar)
        table.append("\n")


def _border(table: _TableText, widths: list[int], chars: str, last: bool = False) -> None:
    left, line, middle, right = chars
    table.append(left + middle.join(line * (w + 2) for w in widths) + right)
    if not last:
        table.append("\n")


__all__ = ["Column", "render_table"]
