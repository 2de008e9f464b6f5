"""Helpers of the merge by definitions over a region's units: groups, accessors, the
definitions at any depth, and blank lines around headers."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..matching import strip_ws
from .units import Unit

_ACCESSOR_RE = re.compile(r"(?:(?:static|async|public|private|protected|override)\s+)*"
                          r"(get|set)\s+[\w$#\[]")

def groups(units: list[Unit], elided: frozenset[int]) -> list[list[Unit]]:
    """Consecutive units of one kind (definitions, or other statements not parted by an
    elision), in order."""
    groups: list[list[Unit]] = []
    for unit in units:
        if groups and same_group(groups[-1][-1], unit, elided):
            groups[-1].append(unit)
        else:
            groups.append([unit])
    return groups


def accessor(lines: list[str], unit: Unit) -> str:
    """What kind of accessor a definition is: its decorators (``@property``,
    ``@total.setter``) and a JavaScript ``get``/``set`` keyword; empty for a plain one."""
    decorators = " ".join(strip_ws(line) for line in lines[unit.start:unit.def_start])
    keyword = _ACCESSOR_RE.match(strip_ws(lines[unit.def_start]))
    return f"{decorators} {keyword.group(1) if keyword else ''}".strip()


def same_group(previous: Unit, unit: Unit, elided: frozenset[int]) -> bool:
    if unit.kind == "def" or previous.kind == "def":
        return unit.kind == previous.kind
    return not any(previous.end <= i < unit.comment_start for i in elided)


def walk(units: list[Unit], parents: tuple[str, ...], shown: set[str | None],
          lines: list[str], key: str | None) -> Iterator[tuple[Unit, tuple[str, ...]]]:
    """Every definition at any depth with its containers' names, except the members of the
    containers the snippet shows (a unit shown outside them is top-level); a container is
    entered only when its lines mention ``key`` (None: always)."""
    for unit in units:
        if unit.kind != "def":
            continue
        yield unit, parents
        if unit.inner is None or (not parents and unit.name in shown):
            continue
        if key is None or key in "\n".join(lines[unit.inner[0]:unit.inner[1]]):
            yield from walk(unit.members, (*parents, unit.name or ""), shown, lines, key)


def search_key(name: str | None) -> str | None:
    """Text every definition named ``name`` holds (``add`` for ``Cart.add`` or
    ``describe("x")``'s ``describe``); None when there is no such simple text."""
    if not name:
        return None
    key = name.split("(")[0].split(".")[-1].split("::")[-1].strip()
    return key if key and " " not in key else None


def before_blanks(lines: list[str], start: int, end: int) -> int:
    """``end`` moved up past the blank lines above it (never above ``start + 1``)."""
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def trimmed(lines: list[str]) -> list[str]:
    """``lines`` without their trailing blank lines."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]
