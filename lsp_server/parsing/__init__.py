"""Parsing: find every edit block in an LLM response, whatever its format.

Each format's parser (named by its entry in ``lsp_server.formats``) exposes
``find_blocks(text, lines, markers) -> list[ParsedSpan]``; a ``ParsedSpan`` is the
response-line span a parser recognised plus the blocks and warnings it produced there, and
``markers`` the response's marker lines, scanned once (``marker_scan``) for every parser.
This module runs the parsers of the registry over the response, keeps the earliest of
overlapping spans (so markers quoted inside another block stay content), gives blocks without a
path line the previous block's path, and collects shell suggestions.

Parsers never raise: a malformed block becomes a ``ParseWarning`` and parsing goes on. An
unexpected exception inside one parser is caught here and reported as a warning too.

A big response makes tens of thousands of small objects and frees none of them during the
parse: the cyclic GC's passes over them find nothing. Entry points that parse big responses
(the server, the CLI) set the GC up for that; this library leaves the GC alone.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from functools import partial
from operator import attrgetter

from ..formats import DEFAULT_FORMAT_NAMES, FORMATS, FindBlocks
from ..limits import DEFAULT_MAX_BLOCK_LINES
from ..model import Block, ParseResult, ParseWarning, lines_to_text
from .marker_scan import MarkerLines, scan_markers
from .parsed_span import ParsedSpan
from .paths import names_in, same_file
from .shell import detect_shell_suggestions

__all__ = ["ParsedSpan", "SpanParse", "block_text_fields", "normalize_response", "parse_response"]

Parser = tuple[str, FindBlocks]

# Resolved (imported) with the package, not on the first parse: a server's first preview
# would otherwise pay for importing markdown-it and the seven parsers, 3-7x a warm preview.
_PARSERS: tuple[Parser, ...] = tuple((f.name, f.find_blocks) for f in FORMATS)
_DEFAULT_NAMES = frozenset(DEFAULT_FORMAT_NAMES)
# The formats read again together after a spill: those sharing marker lines. edit-v3 and
# edit-v2 read the same "««« EDIT" blocks: with the swallower masked, a block that spilled as
# one may be read as the other (its closing line was masked).
_SHARING_MARKERS: dict[str, frozenset[str]] = {
    f.name: frozenset(g.name for g in FORMATS if set(g.markers) & set(f.markers))
    for f in FORMATS
}


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


def _run_parsers(parsers: list[Parser], text: str, lines: list[str], markers: MarkerLines,
                 result: ParseResult) -> list[ParsedSpan]:
    """Every parser's spans, each tagged with its parser's format name."""
    spans: list[ParsedSpan] = []
    for name, find_blocks in parsers:
        try:
            mine = find_blocks(text, lines, markers)
        except Exception as exc:  # a parser bug must not lose the other formats' blocks
            result.warnings.append(
                ParseWarning(0, f"internal error while parsing {name} blocks: {exc!r}")
            )
            continue
        for span in mine:
            span.format = name
        spans += mine
    return spans


_START = attrgetter("start")
_END = attrgetter("end")


def _outermost(spans: list[ParsedSpan]) -> tuple[list[ParsedSpan], set[str], list[ParsedSpan]]:
    """The spans not inside an earlier one (markers inside a block are its content); and,
    for dropped spans that started inside a kept one and ran past its end, their formats
    and the kept spans they started in (in order)."""
    # Ordered by start, the longer span first on a tie: two stable sorts with C-level keys
    # (reverse=True keeps equal items in order) cost far less than one with a tuple key.
    ordered = sorted(spans, key=_END, reverse=True)
    ordered.sort(key=_START)
    kept: list[ParsedSpan] = []
    spilled: set[str] = set()
    swallowers: list[ParsedSpan] = []
    end = 0
    for span in ordered:
        if span.start < end and kept:
            if span.end > end:
                spilled.add(span.format)
                if not swallowers or swallowers[-1] is not kept[-1]:
                    swallowers.append(kept[-1])  # kept spans are disjoint: the last one
            continue
        kept.append(span)
        if span.end > end:
            end = span.end
    return kept, spilled, swallowers


def _overlaps(span: ParsedSpan, kept: list[ParsedSpan], ends: list[int]) -> bool:
    """Whether ``span`` shares a line with a kept span: the first kept span ending after
    ``span.start`` is the only candidate (a scan of every kept span made a response of
    thousands of spilling blocks quadratic)."""
    i = bisect_right(ends, span.start)
    return i < len(kept) and kept[i].start < span.end


def parse_response(text: str, formats: set[str] | None = None, *,
                   max_block_lines: int | None = DEFAULT_MAX_BLOCK_LINES,
                   target: str | None = None) -> ParseResult:
    """Every block of ``text`` in response order, with warnings and shell suggestions.

    ``formats`` restricts detection to those format names (None: every format but the
    opt-in ones, ``formats.DEFAULT_FORMAT_NAMES``). A hunk-format block longer than
    ``max_block_lines`` (None: no limit) is cut short while it is read and skipped with a
    warning (``plan_edits`` fails such a block by the same limit). ``target``: the file
    (a workspace-relative path, validated by the caller) every code fence naming no file
    is for (docs/formats.md "code-block"); None: such fences are no blocks.
    """
    result = ParseResult()
    if not isinstance(text, str) or not text:
        return result
    text = normalize_response(text)
    names = parser_names(formats)
    parsed = parse_spans(text, with_target(parsers_named(names), target), max_block_lines,
                         result)
    _take_blocks(parsed.kept, parsed.lines, result)
    if not result.blocks:
        result.warnings += no_block_hints(text, parsed.lines, parsed.markers, result, names,
                                          target)
    if not text.isascii() and _REPLACEMENT in text:
        result.warnings += _replacement_warnings(text)
    result.warnings.sort(key=_RESPONSE_LINE)
    result.shell_suggestions = detect_shell_suggestions(text)
    return result


def parser_names(formats: set[str] | None) -> frozenset[str] | set[str]:
    """The format names a parse runs (``formats``; None: the default ones)."""
    return _DEFAULT_NAMES if formats is None else formats


def parsers_named(names: frozenset[str] | set[str]) -> list[Parser]:
    """The registry's parsers of ``names``, in registry order."""
    return [p for p in _PARSERS if p[0] in names]


CODE_BLOCK = "code-block"


def with_target(parsers: list[Parser], target: str | None) -> list[Parser]:
    """``parsers`` with the code-block parser told ``target`` (the file of unnamed fences)."""
    if not target:
        return parsers
    return [(name, partial(find, target=target) if name == CODE_BLOCK else find)
            for name, find in parsers]


def _code_blocks_yield(spans: list[ParsedSpan]) -> list[ParsedSpan]:
    """``spans`` without the code-block spans that share a line with another format's span:
    a fence inside (or holding) another format's block is that block's text, whichever
    starts first (docs/formats.md "code-block")."""
    others = sorted((s for s in spans if s.format != CODE_BLOCK), key=_START)
    if len(others) == len(spans) or not others:
        return spans
    starts = [s.start for s in others]
    reach: list[int] = []  # the furthest end of the other spans starting at or before each
    furthest = 0
    for span in others:
        furthest = max(furthest, span.end)
        reach.append(furthest)

    def overlaps(span: ParsedSpan) -> bool:
        i = bisect_right(starts, max(span.end - 1, span.start)) - 1
        return i >= 0 and reach[i] > span.start

    return [s for s in spans if s.format != CODE_BLOCK or not overlaps(s)]


@dataclass(slots=True)
class SpanParse:
    """What the parsers found in one (normalised) text, before blocks are numbered: its
    lines and marker lines, every span any parser reported (re-reads included), the
    outermost ones kept, and the kept spans others spilled out of."""

    lines: list[str]
    markers: MarkerLines
    spans: list[ParsedSpan]
    kept: list[ParsedSpan] = field(default_factory=list)
    swallowers: list[ParsedSpan] = field(default_factory=list)


def parse_spans(text: str, parsers: list[Parser], max_block_lines: int | None,
                result: ParseResult, padding: int = 0) -> SpanParse:
    """Run ``parsers`` over ``text`` (normalised) and keep the outermost spans, reading again
    what spilled; a parser's internal error goes to ``result.warnings``. ``padding``: the
    text starts with that many empty lines (a response's tail read alone, its lines keeping
    their numbers): they are neither split nor scanned."""
    if padding:
        lines = [""] * padding + text[padding:].split("\n")
        markers = _shifted(scan_markers(text[padding:], max_block_lines), padding)
    else:
        lines = text.split("\n")
        markers = scan_markers(text, max_block_lines)
    parsed = SpanParse(lines, markers, _code_blocks_yield(
        _run_parsers(parsers, text, lines, markers, result)))
    parsed.kept = _reread_spills(parsers, lines, parsed, max_block_lines, result)
    return parsed


def _shifted(markers: MarkerLines, padding: int) -> MarkerLines:
    """``markers`` of a text read after ``padding`` newlines: lines and offsets moved down."""
    for found in markers.whole_lines.values():
        found[:] = [(line + padding, marker) for line, marker in found]
    for found in markers.starts.values():
        found[:] = [(line + padding, offset + padding) for line, offset in found]
    return markers


WHOLE_FILE = "whole-file"


def no_block_hints(text: str, lines: list[str], markers: MarkerLines, result: ParseResult,
                   names: frozenset[str] | set[str], target: str | None = None,
                   warned: list[ParseWarning] | None = None) -> list[ParseWarning]:
    """What a response with no block holds that is worth saying: with code-block asked for,
    how many code fences name no file (``target`` would apply them); else, unless
    whole-file was asked for, the fences that read like whole files. ``warned``: every
    warning the parse gave (default ``result.warnings``; a fence warned about is that
    format's, not an unnamed code block)."""
    warned = result.warnings if warned is None else warned
    if CODE_BLOCK in names:
        if target is not None:
            # Every fence that could be a block was read for the target: one that is none
            # gave way to another format's block or warning, which says why, or is a shell
            # fence, which is said here.
            from .code_block import shell_fence_warning

            warning = shell_fence_warning(text, lines, markers, target)
            return [] if warning is None or warned else [warning]
        from .code_block import no_block_warning, unnamed_fence_lines

        claimed = sorted(w.response_line for w in warned)
        warning = no_block_warning(unnamed_fence_lines(text, lines, markers, claimed))
        return [] if warning is None else [warning]
    if WHOLE_FILE in names:
        return []
    return _whole_file_hints(text, lines, markers, result)


def _whole_file_hints(text: str, lines: list[str], markers: MarkerLines,
                      result: ParseResult) -> list[ParseWarning]:
    """For a response with no block, when whole-file was not asked for: a warning for each
    path line over a fenced block that reads like a whole file (models answer so on their
    own), naming what was seen, so the response does not look empty for no reason."""
    parsers = [p for p in _PARSERS if p[0] == WHOLE_FILE]
    return [ParseWarning(block.response_line, (
        f"{block.file!r} above a fenced block (to response line {block.end_line}) reads like "
        "the whole file; whole-file blocks are applied only when the formats asked for "
        "name 'whole-file': not applied"))
        for span in _run_parsers(parsers, text, lines, markers, result) for block in span.blocks]


_REPLACEMENT = "\ufffd"
_MAX_REPLACEMENT_WARNINGS = 10


def _replacement_warnings(text: str) -> list[ParseWarning]:
    """A warning for each of the first lines holding U+FFFD: what a client or the CLI writes
    for bytes that were not UTF-8 (and what a lone surrogate became above), so the text there
    may not be what the model wrote. (A file may hold U+FFFD too: hence "may".)"""
    return replacement_warnings(replacement_lines(text))


def replacement_lines(text: str) -> list[int]:
    """The first lines holding U+FFFD, one more than are warned about (to know whether
    later lines hold some too)."""
    found: list[int] = []
    pos = text.find(_REPLACEMENT)
    line = text.count("\n", 0, pos)
    while pos >= 0 and len(found) <= _MAX_REPLACEMENT_WARNINGS:
        found.append(line)
        line_end = text.find("\n", pos)
        following = -1 if line_end < 0 else text.find(_REPLACEMENT, line_end)
        if following >= 0:
            line += text.count("\n", pos, following)
        pos = following
    return found


def replacement_warnings(lines: list[int]) -> list[ParseWarning]:
    """The warnings for the lines :func:`replacement_lines` found."""
    warnings = [ParseWarning(line, (
        "the response holds U+FFFD replacement characters on this line: bytes that were "
        "not valid UTF-8 are replaced by them when a response is decoded, so the text here "
        "may not be what was written")) for line in lines[:_MAX_REPLACEMENT_WARNINGS]]
    if len(lines) > _MAX_REPLACEMENT_WARNINGS:
        warnings[-1].message += " (and on later lines too)"
    return warnings


_RESPONSE_LINE = attrgetter("response_line")


def _reread_spills(parsers: list[Parser], lines: list[str], parsed: SpanParse,
                   max_block_lines: int | None, result: ParseResult) -> list[ParsedSpan]:
    """The outermost spans, after reading again what spilled out of a kept block.

    A span that starts inside a kept block and runs past its end (say a "## File `x`
    created:" line quoted in an edit block, opening a fence that never closes) swallowed
    whatever came after that block. Those formats are read again with the blocks they started
    in masked, so the later blocks are found (or reported) rather than lost; new spans then
    compete with the kept ones by the same rule (the earlier start wins).
    """
    kept, spilled, swallowers = _outermost(parsed.spans)
    for _ in range(_MAX_RESCANS):
        if not spilled:
            break
        parsed.swallowers += swallowers
        again = _reread_masked(parsers, lines, spilled, swallowers, max_block_lines, result)
        known = {(s.format, s.start, s.end) for s in kept}
        ends = [s.end for s in swallowers]  # sorted and disjoint: ends increase
        again = [s for s in again if (s.format, s.start, s.end) not in known
                 and not _overlaps(s, swallowers, ends)]  # those would hold "=" lines
        if not again:
            break
        parsed.spans += again
        kept, spilled, swallowers = _outermost(kept + again)
    return kept


def _reread_masked(parsers: list[Parser], lines: list[str], spilled: set[str],
                   swallowers: list[ParsedSpan], max_block_lines: int | None,
                   result: ParseResult) -> list[ParsedSpan]:
    """The spans of the ``spilled`` formats (and those sharing their markers) in the
    response with the ``swallowers``' lines masked."""
    # Masked lines read "=": never a path, a marker or a fence, and not blank, so a block
    # found after a masked one cannot take its path line from above it.
    masked = list(lines)
    for span in swallowers:
        masked[span.start : span.end] = ["="] * (min(span.end, len(masked)) - span.start)
    rereads = set().union(*(_SHARING_MARKERS[name] for name in spilled))
    text = "\n".join(masked)
    return _run_parsers([p for p in parsers if p[0] in rereads], text, masked,
                        scan_markers(text, max_block_lines), result)


def _take_blocks(kept: list[ParsedSpan], lines: list[str], result: ParseResult) -> None:
    """The kept spans' blocks and warnings into ``result``, in response order; a block
    without a path line takes the previous block's when nothing between them names another
    file (with a warning), or is skipped with a warning saying why."""
    previous: Block | None = None
    for span in kept:
        result.warnings.extend(span.warnings)
        previous = take_span_blocks(span, previous, lines, result.blocks, result.warnings)


def take_span_blocks(span: ParsedSpan, previous: Block | None, lines: list[str],
                     blocks: list[Block], warnings: list[ParseWarning]) -> Block | None:
    """``span``'s blocks appended to ``blocks`` (indexed in order), a block without a path
    line taking ``previous``'s path (see :func:`_carry_path_over`, its warning appended to
    ``warnings``); the last block taken, to be the next span's ``previous``."""
    for block in span.blocks:
        if not block.file:
            warnings.append(_carry_path_over(block, previous, lines))
            if not block.file:
                continue
        previous = block
        block.index = len(blocks)
        blocks.append(block)
    return previous


def _carry_path_over(block: Block, previous: Block | None, lines: list[str]) -> ParseWarning:
    """Give ``block`` (no path line) the previous block's path when nothing between the two
    names another file (docs/formats.md, "Paths in real responses"); the warning either way."""
    where = f"{block.format} block has no file path line"
    if previous is None:
        return ParseWarning(block.response_line, f"{where} above it; skipped")
    previous_file = previous.move_to or previous.file
    between = lines[previous.end_line : block.response_line]
    others = [name for name in names_in(between) if not same_file(name, previous_file)]
    if others:
        return ParseWarning(block.response_line, (
            f"{where}: the text above it names `{others[0]}`, not the previous block's "
            f"`{previous_file}`; skipped (nothing is guessed)"))
    block.file = previous_file
    return ParseWarning(block.response_line,
                        f"{where}; using the previous block's path {previous_file!r}")


def block_text_fields(block: Block) -> dict:
    """The parse output of one block, as the ``llmEdits.parse`` command answers it."""
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
    if block.tool is not None:
        _tool_fields(block, out)
    return out


def _tool_fields(block: Block, out: dict) -> None:
    """An agent's tool call: its exact strings (a str-replace's old text is a substring, not
    lines), ``replaceAll``, ``insertLine`` (1-based, 0: the top) and the ``callId``."""
    tool = block.tool
    assert tool is not None
    if block.format == "str-replace" and block.op == "update":
        out["old"], out["new"] = tool.old_text, tool.new_text
        if tool.replace_all or tool.expected:
            out["replaceAll"] = True
        if tool.insert_line is not None:
            out["insertLine"] = tool.insert_line
    if tool.call_id is not None:
        out["callId"] = tool.call_id
