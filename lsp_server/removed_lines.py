"""How much of a file's text a replacement removes: the rule that refuses a whole file which
looks like part of one (docs/formats.md "whole-file" and "code-block"), kept here once for
the whole-file locate policy and the code-block merge, which both apply it.

A replacement "removes most" of a text when it drops more than half of that text's non-blank
lines, whatever it adds. Lines are compared ignoring surrounding whitespace, as a multiset: a
re-indented or moved line is not removed; a line the new text holds fewer copies of is.
"""

from __future__ import annotations

from collections import Counter

from .matching import strip_ws


def non_blank(lines: list[str]) -> list[str]:
    """The non-blank lines, stripped of surrounding whitespace."""
    return [s for s in map(strip_ws, lines) if s]


def removed_non_blank(old_lines: list[str], new_lines: list[str]) -> tuple[int, int]:
    """``(removed, total)``: how many of ``old_lines``' non-blank lines ``new_lines`` does
    not keep (as a multiset, ignoring surrounding whitespace), and how many there are."""
    gone = Counter(non_blank(old_lines))
    total = gone.total()
    gone.subtract(non_blank(new_lines))
    return sum(count for count in gone.values() if count > 0), total


def removes_most_of(old_lines: list[str], new_lines: list[str]) -> tuple[int, int] | None:
    """``(removed, total)`` when ``new_lines`` in place of ``old_lines`` removes more than
    half of the old non-blank lines, else None."""
    removed, total = removed_non_blank(old_lines, new_lines)
    return (removed, total) if removed * 2 > total > 0 else None


__all__ = ["non_blank", "removed_non_blank", "removes_most_of"]
