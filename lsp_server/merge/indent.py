"""Re-indenting a unit written at another indentation than its place in the file (a method
pasted at column 0), keeping the file's indentation unit (tabs or spaces)."""

from __future__ import annotations

from collections.abc import Callable

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


def reindent(lines: list[str], from_ws: str, to_ws: str, from_unit: str,
             to_unit: Callable[[], str]) -> list[str]:
    """``lines`` indented at ``from_ws`` moved to ``to_ws``; indentation beyond the base is
    converted between tabs and spaces when the file (``to_unit``, asked only then) indents
    with the other. Blank lines become empty; a line indented less than the base (inside a
    multi-line string) stays as written."""
    target_unit = _target_unit(lines, from_ws, to_ws, from_unit, to_unit)
    if from_ws == to_ws and target_unit is None:
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
        converted = extra if target_unit is None else _convert(extra, from_unit, target_unit)
        out.append(to_ws + converted + line[len(ws):])
    return out


def _target_unit(lines: list[str], from_ws: str, to_ws: str, from_unit: str,
                 to_unit: Callable[[], str]) -> str | None:
    """The file's unit when the lines' indentation must change kind (tabs <-> spaces),
    else None. The target indentation shows the file's kind; the file's unit is read only
    when it does not (a top-level unit) or when spaces must replace tabs (their width)."""
    if to_ws:
        if ("\t" in to_ws) == ("\t" in from_unit):
            return None
        return "\t" if "\t" in to_ws else to_unit()
    if not _indents_beyond(lines, from_ws):
        return None
    unit = to_unit()
    return None if _same_kind(unit, from_unit) else unit


def _same_kind(a: str, b: str) -> bool:
    return ("\t" in a) == ("\t" in b)


def _indents_beyond(lines: list[str], base: str) -> bool:
    return any(line.startswith(base) and len(leading_ws(line)) > len(base)
               for line in lines if line.strip())


def _convert(extra: str, from_unit: str, to_unit: str) -> str:
    """Indentation converted between tabs and spaces; spaces of another width stay as
    written (a unit guessed from a file's widths is not reliable enough to rescale)."""
    if ("\t" in from_unit) == ("\t" in to_unit) or not extra:
        return extra
    width = len(extra.expandtabs(len(from_unit) if from_unit != "\t" else 4))
    step = 4 if from_unit == "\t" else len(from_unit)
    depth, rest = divmod(width, step)
    return to_unit * depth + " " * rest
