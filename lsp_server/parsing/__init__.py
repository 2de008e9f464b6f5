"""Parsing: find every edit block in an LLM response, whatever its format.

Each format has its own module exposing ``find_blocks(text, lines) -> list[Found]``; a
``Found`` is the response-line span a parser recognised plus the blocks and warnings it
produced there. This module runs every format parser over the response, keeps the earliest
of overlapping spans (so markers quoted inside another block stay content), gives blocks
without a path line the previous block's path, and collects shell suggestions.

Parsers never raise: a malformed block becomes a ``ParseWarning`` and parsing goes on. An
unexpected exception inside one parser is caught here and reported as a warning too.
"""

from __future__ import annotations

import gc
from bisect import bisect_right
from collections.abc import Callable
from operator import attrgetter

from ..model import Block, ParseResult, ParseWarning
from . import (
    apply_patch,
    edit_v2,
    edit_v3,
    hunk_patch,
    search_replace,
    semantic_diff,
    unified_diff,
)
from .found import Found
from .shell import detect_shell_suggestions
from .textscan import forget_scan

# Imported with the package (not on the first parse): a server's first preview would otherwise
# pay for importing markdown-it and the seven parsers, 3-7x a warm preview.
_FORMAT_PARSERS: list[tuple[str, Callable[[str, list[str]], list[Found]]]] = [
    ("edit-v3", edit_v3.find_blocks),
    ("edit-v2", edit_v2.find_blocks),
    ("search-replace", search_replace.find_blocks),
    ("hunk-patch", hunk_patch.find_blocks),
    ("semantic-diff", semantic_diff.find_blocks),
    ("apply-patch", apply_patch.find_blocks),
    ("unified-diff", unified_diff.find_blocks),
]

__all__ = ["Found", "parse_response"]


def _format_parsers() -> list[tuple[str, Callable[[str, list[str]], list[Found]]]]:
    return _FORMAT_PARSERS


def normalize_response(text: str) -> str:
    """CRLF/CR → LF; a leading BOM dropped (it is not part of the first line); a lone
    surrogate (from bad UTF-8 decoding, e.g. ``surrogateescape``) becomes one U+FFFD, and a
    high + low surrogate pair the character it encodes (as UTF-16 reads it)."""
    text = text.removeprefix("\ufeff")
    if "\r" in text:  # the scan for "\r" is far cheaper than two replace() copies
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.isascii():  # isascii() is O(1); ASCII text cannot hold surrogates
        try:
            # The UTF-16 encoder rejects surrogates like the UTF-8 one, several times faster.
            text.encode("utf-16-le")
        except UnicodeEncodeError:
            text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


_MAX_RESCANS = 3
_GUILLEMET_FORMATS = frozenset({"edit-v3", "edit-v2"})
Parser = tuple[str, Callable[[str, list[str]], list[Found]]]


def _run_parsers(parsers: list[Parser], text: str, lines: list[str],
                 result: ParseResult) -> list[Found]:
    """Every parser's Founds, each tagged with its parser's format name."""
    found: list[Found] = []
    for name, find_blocks in parsers:
        try:
            mine = find_blocks(text, lines)
        except Exception as exc:  # a parser bug must not lose the other formats' blocks
            result.warnings.append(
                ParseWarning(0, f"internal error while parsing {name} blocks: {exc!r}")
            )
            continue
        for f in mine:
            f.format = name
        found += mine
    return found


_START = attrgetter("start")
_END = attrgetter("end")


def _outermost(found: list[Found]) -> tuple[list[Found], set[str], list[Found]]:
    """The spans not inside an earlier one (markers inside a block are its content); and,
    for dropped spans that started inside a kept one and ran past its end, their formats
    and the kept spans they started in (in order)."""
    # Ordered by start, the longer span first on a tie: two stable sorts with C-level keys
    # (reverse=True keeps equal items in order) cost far less than one with a tuple key.
    ordered = sorted(found, key=_END, reverse=True)
    ordered.sort(key=_START)
    kept: list[Found] = []
    spilled: set[str] = set()
    swallowers: list[Found] = []
    end = 0
    for f in ordered:
        if f.start < end and kept:
            if f.end > end:
                spilled.add(f.format)
                if not swallowers or swallowers[-1] is not kept[-1]:
                    swallowers.append(kept[-1])  # kept spans are disjoint: the last one
            continue
        kept.append(f)
        if f.end > end:
            end = f.end
    return kept, spilled, swallowers


def _overlaps(f: Found, kept: list[Found], ends: list[int]) -> bool:
    """Whether ``f`` shares a line with a kept span: the first kept span ending after
    ``f.start`` is the only candidate (a scan of every kept span made a response of
    thousands of spilling blocks quadratic)."""
    i = bisect_right(ends, f.start)
    return i < len(kept) and kept[i].start < f.end


def parse_response(text: str, formats: set[str] | None = None) -> ParseResult:
    """Every block of ``text`` in response order, with warnings and shell suggestions.

    ``formats`` restricts detection to those format names (all when None).
    """
    result = ParseResult()
    if not isinstance(text, str) or not text:
        return result
    # The parsers allocate tens of thousands of small objects on a big response and free none
    # of them: the cyclic GC's passes over them would find nothing (a third of the time).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse(text, formats, result)
    finally:
        forget_scan()
        if gc_was_enabled:
            gc.enable()


def _parse(text: str, formats: set[str] | None, result: ParseResult) -> ParseResult:
    """parse_response's work, with the GC paused."""
    text = normalize_response(text)
    lines = text.split("\n")
    parsers = [(name, find) for name, find in _format_parsers()
               if formats is None or name in formats]
    found = _run_parsers(parsers, text, lines, result)
    kept, spilled, swallowers = _outermost(found)
    # A span that starts inside a kept block and runs past its end (say a "## File `x`
    # created:" line quoted in an edit block, opening a fence that never closes) swallowed
    # whatever came after that block. Read those formats again with the blocks they started
    # in masked, so the later blocks are found (or reported) rather than lost; new spans then
    # compete with the kept ones by the same rule (the earlier start wins).
    for _ in range(_MAX_RESCANS):
        if not spilled:
            break
        # Masked lines read "=": never a path, a marker or a fence, and not blank, so a block
        # found after a masked one cannot take its path line from above it.
        masked = list(lines)
        for f in swallowers:
            masked[f.start : f.end] = ["="] * (min(f.end, len(masked)) - f.start)
        # edit-v3 and edit-v2 read the same "««« EDIT" blocks: with the swallower masked, a
        # block that spilled as one may be read as the other (its closing line was masked).
        if spilled & _GUILLEMET_FORMATS:
            spilled |= _GUILLEMET_FORMATS
        again = _run_parsers([p for p in parsers if p[0] in spilled], "\n".join(masked),
                             masked, result)
        known = {(f.format, f.start, f.end) for f in kept}
        ends = [f.end for f in swallowers]  # sorted and disjoint: ends increase
        again = [f for f in again if (f.format, f.start, f.end) not in known
                 and not _overlaps(f, swallowers, ends)]  # those would hold "=" lines
        if not again:
            break
        kept, spilled, swallowers = _outermost(kept + again)
    previous_file: str | None = None
    for f in kept:
        result.warnings.extend(f.warnings)
        for block in f.blocks:
            if not block.file:
                if previous_file is None:
                    result.warnings.append(ParseWarning(
                        block.response_line,
                        f"{block.format} block has no file path line above it; skipped",
                    ))
                    continue
                block.file = previous_file
                result.warnings.append(ParseWarning(
                    block.response_line,
                    f"{block.format} block has no file path line; "
                    f"using the previous block's path {previous_file!r}",
                ))
            previous_file = block.move_to or block.file
            block.index = len(result.blocks)
            result.blocks.append(block)
    result.warnings.sort(key=lambda w: w.response_line)
    result.shell_suggestions = detect_shell_suggestions(text)
    return result


def block_text_fields(block: Block) -> dict:
    """The parse output of one block, as CONTRACT.md's ``llmEdits.parse`` describes it."""
    from ..model import lines_to_text

    out: dict = {
        "index": block.index,
        "file": block.file,
        "format": block.format,
        "op": block.op,
        "responseLine": block.response_line,
    }
    if block.move_to is not None:
        out["moveTo"] = block.move_to
    if block.hunks is not None:
        out["hunks"] = [
            {"header": h.header, "old": lines_to_text(h.old), "new": lines_to_text(h.new)}
            for h in block.hunks
        ]
    else:
        out["anchor"] = lines_to_text(block.anchor)
        out["old"] = lines_to_text(block.old)
        out["new"] = (
            block.create_text if block.create_text is not None else lines_to_text(block.new)
        )
        out["trailing"] = lines_to_text(block.trailing)
    return out
