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

from collections.abc import Callable

from ..model import Block, ParseResult, ParseWarning
from .found import Found
from .shell import detect_shell_suggestions

__all__ = ["Found", "parse_response"]


def _format_parsers() -> list[tuple[str, Callable[[str, list[str]], list[Found]]]]:
    from . import (
        apply_patch,
        edit_v2,
        edit_v3,
        hunk_patch,
        search_replace,
        semantic_diff,
        unified_diff,
    )

    return [
        ("edit-v3", edit_v3.find_blocks),
        ("edit-v2", edit_v2.find_blocks),
        ("search-replace", search_replace.find_blocks),
        ("hunk-patch", hunk_patch.find_blocks),
        ("semantic-diff", semantic_diff.find_blocks),
        ("apply-patch", apply_patch.find_blocks),
        ("unified-diff", unified_diff.find_blocks),
    ]


def normalize_response(text: str) -> str:
    """CRLF/CR → LF; lone surrogates (from bad UTF-8 decoding) become U+FFFD."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def parse_response(text: str, formats: set[str] | None = None) -> ParseResult:
    """Every block of ``text`` in response order, with warnings and shell suggestions.

    ``formats`` restricts detection to those format names (all when None).
    """
    result = ParseResult()
    if not isinstance(text, str) or not text:
        return result
    text = normalize_response(text)
    lines = text.split("\n")
    found: list[Found] = []
    for name, find_blocks in _format_parsers():
        if formats is not None and name not in formats:
            continue
        try:
            found.extend(find_blocks(text, lines))
        except Exception as exc:  # a parser bug must not lose the other formats' blocks
            result.warnings.append(
                ParseWarning(0, f"internal error while parsing {name} blocks: {exc!r}")
            )
    kept: list[Found] = []
    end = 0
    for f in sorted(found, key=lambda f: (f.start, -f.end)):
        if kept and f.start < end:
            continue  # inside an earlier block: its markers are that block's content
        kept.append(f)
        end = max(end, f.end)
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
