"""Re-indenting a unit written at another indentation than its place in the file (a method
pasted at column 0), keeping the file's indentation unit (tabs or spaces)."""

from __future__ import annotations

from ..reindent import leading_ws


def indent_unit(lines: list[str]) -> str:
    """The indentation step ``lines`` use: a tab, or the smallest positive difference of
    space indentations (4 when nothing says)."""
    widths: set[int] = set()
    for line in lines:
        ws = leading_ws(line)
        if not line.strip():
            continue
        if ws.startswith("\t"):
            return "\t"
        if ws:
            widths.add(len(ws))
    steps = sorted(widths)
    diffs = [b - a for a, b in zip([0, *steps], steps, strict=False) if b > a]
    return " " * min(diffs) if diffs else "    "


def reindent(lines: list[str], from_ws: str, to_ws: str, from_unit: str, to_unit: str
             ) -> list[str]:
    """``lines`` indented at ``from_ws`` moved to ``to_ws``; indentation beyond the base is
    converted from ``from_unit`` steps to ``to_unit`` steps. Blank lines become empty; a line
    indented less than the base (inside a multi-line string) stays as written."""
    if from_ws == to_ws and ("\t" in from_unit) == ("\t" in to_unit):
        return list(lines)
    out: list[str] = []
    for line in lines:
        if not line.strip():
            out.append("")
            continue
        ws = leading_ws(line)
        if not ws.startswith(from_ws):
            out.append(line)
            continue
        extra = ws[len(from_ws):]
        out.append(to_ws + _convert(extra, from_unit, to_unit) + line[len(ws):])
    return out


def _convert(extra: str, from_unit: str, to_unit: str) -> str:
    """Indentation converted between tabs and spaces; spaces of another width stay as
    written (a unit guessed from a file's widths is not reliable enough to rescale)."""
    if ("\t" in from_unit) == ("\t" in to_unit) or not extra:
        return extra
    width = len(extra.expandtabs(len(from_unit) if from_unit != "\t" else 4))
    step = 4 if from_unit == "\t" else len(from_unit)
    depth, rest = divmod(width, step)
    return to_unit * depth + " " * rest
