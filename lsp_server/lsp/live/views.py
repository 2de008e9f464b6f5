"""What a response document shows of its blocks besides lenses and diagnostics: the outline
(``textDocument/documentSymbol``), hovers (``textDocument/hover``) and links on the paths
(``textDocument/documentLink``). Pure functions of the document's state
(:class:`ResponseView`) to the answers' JSON, positions in the client's encoding.

- a symbol per block: name = its file, detail = its status as its lens shows it, range = the
  block's response lines, selection = its first line; a block started and not closed (a
  pending warning) is one more, "⋯ writing";
- a hover on a block's lines: its own change as a unified diff (the file's line numbers), or
  why it failed with the did-you-mean hint, or why it was skipped;
- a link on each block's path as written in the response: the target file's URI with
  ``#L<line>`` (1-based: the line its lens names; VS Code's opener goes there). A refused
  path has no target, hence no link.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain

from lsprotocol import types

from ...model import Block, BlockResult, ParseResult, ParseWarning, ResourceOp
from ...results import JsonObject, UriFor
from ..off_loop import off_loop
from ..protocol.positions import TextLines, code_units
from ..protocol.pygls_hooks import EncodedJson
from .block_diff import BlockChange, cut
from .code_lens import WRITING, pending_warnings, status_title


@dataclass(frozen=True)
class ResponseView:
    """A response document's state as the views read it: its text's lines (BOM-less, as
    parsed), the parse, one result per validated block (in order; none before the first
    validation), the URIs of target files, the client's position encoding, and how to find
    what one block changes (for its hover; without it hovers show no diff)."""

    lines: TextLines
    parsed: ParseResult
    block_results: Sequence[BlockResult]
    uri_for: UriFor
    encoding: str
    change_of: Callable[[Block], BlockChange] | None = None
    kept: KeptViews | None = None  # the document's outline and links kept per block

    @cached_property
    def results(self) -> dict[int, BlockResult]:
        return {b.index: b for b in self.block_results}

    @cached_property
    def pending(self) -> ParseWarning | None:
        """The block still being written: the pending warning (there is at most one, at the
        end of the text)."""
        pending = pending_warnings(self.parsed)
        return pending[-1] if pending else None

    @cached_property
    def _starts(self) -> list[int]:
        return [b.response_line for b in self.parsed.blocks]

    def block_at(self, line: int) -> Block | None:
        """The block whose response lines hold ``line``."""
        i = bisect_right(self._starts, line) - 1
        if i >= 0:
            block = self.parsed.blocks[i]
            if line < max(block.end_line, block.response_line + 1):
                return block
        return None

    def change(self, block: Block) -> BlockChange:
        return self.change_of(block) if self.change_of is not None else BlockChange()

    def line_end(self, line: int) -> int:
        """The length of response line ``line`` in the client's units."""
        text = self.lines[line] if 0 <= line < len(self.lines) else ""
        return len(text) if text.isascii() else code_units(text, self.encoding)

    def lines_range(self, first: int, last: int) -> JsonObject:
        """Response lines ``first`` to ``last`` (inclusive), whole, as a Range's JSON."""
        last = max(first, min(last, len(self.lines) - 1))
        return range_json(first, 0, last, self.line_end(last))


def range_json(line: int, character: int, end_line: int, end_character: int) -> JsonObject:
    return {"start": {"line": line, "character": character},
            "end": {"line": end_line, "character": end_character}}


# An answer for at most this many blocks is built on the event loop (1,363 blocks: an
# outline or the links took 13-19 ms of CPU on a busy machine); a longer response's in a
# worker thread (issue 13's rule: nothing a response does keeps the loop busy ~100 ms).
INLINE_MAX_BLOCKS = 1000


async def answer(view: ResponseView | None, build: Callable[..., str], *args: object,
                 default: str, inline: bool = True) -> EncodedJson:
    """``build(view, *args)`` (JSON text) as the request's answer (``default`` without a
    response document); off the event loop unless ``inline`` and the response is short."""
    if view is None:
        return EncodedJson(default)
    inline = inline and len(view.parsed.blocks) <= INLINE_MAX_BLOCKS
    return EncodedJson(await off_loop(inline, build, view, *args))


# ------------------------------------------------------------------ documentSymbol


def _symbol(name: str, detail: str, kind: types.SymbolKind, view: ResponseView, first: int,
            last: int) -> JsonObject:
    return {"name": name, "detail": detail, "kind": kind.value,
            "range": view.lines_range(first, last),
            "selectionRange": view.lines_range(first, first)}


def block_symbol(view: ResponseView, block: Block) -> JsonObject:
    result = view.results.get(block.index)
    detail = (status_title(result) if result is not None
              else "not checked yet")
    return _symbol(block.file or "(no path)", detail, types.SymbolKind.File, view,
                   block.response_line, block.end_line - 1)


def _pending_symbol(view: ResponseView) -> JsonObject | None:
    pending = view.pending
    if pending is None:
        return None
    return _symbol(pending.file or "(path not written yet)", WRITING, types.SymbolKind.Event,
                   view, pending.response_line, len(view.lines) - 1)


def document_symbols(view: ResponseView) -> list[JsonObject]:
    """One symbol per block, in response order, then the block being written; as the
    ``DocumentSymbol`` JSON (a long response has thousands: building lsprotocol objects
    and converting them took longer than the rest of the request)."""
    symbols = [block_symbol(view, block) for block in view.parsed.blocks]
    pending = _pending_symbol(view)
    return symbols if pending is None else [*symbols, pending]


def symbols_json(view: ResponseView) -> str:
    """:func:`document_symbols` as JSON text, each block's kept while it stays the same
    (:class:`KeptViews`)."""
    if view.kept is None:
        return json.dumps(document_symbols(view))
    parts = view.kept.symbols_of(view, lambda block, after: json.dumps(
        block_symbol(view, block)))
    pending = _pending_symbol(view)
    return "[" + ",".join([*parts, *([json.dumps(pending)] if pending else [])]) + "]"


# ------------------------------------------------------------------ hover

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")


def escape_markdown(text: str) -> str:
    """``text`` shown as written in Markdown (its punctuation escaped)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def fenced(text: str, info: str) -> str:
    """``text`` in a code fence longer than any backtick run at a line start in it."""
    runs = re.findall(r"^ {0,3}(`{3,})", text, re.MULTILINE)
    fence = "`" * max([3, *(len(run) + 1 for run in runs)])
    return f"{fence}{info}\n{text}\n{fence}"


def _heading(block: Block, title: str) -> str:
    return f"**Block {block.index + 1}** · {block.format} · {escape_markdown(title)}"


def _result_markdown(view: ResponseView, block: Block, result: BlockResult) -> str:
    title = status_title(result)
    parts = [_heading(block, title)]
    if result.status == "failed":
        if result.reason and result.reason not in title:  # the title cuts a long reason
            parts.append(escape_markdown(result.reason))
        if result.hint:
            parts.append(fenced(result.hint, "text"))
    elif result.status == "skipped":
        parts.append(escape_markdown(result.reason or "skipped"))
    elif result.status == "already-applied":
        where = f" at line {result.line + 1}" if result.line is not None else ""
        parts.append(f"Its new text is already in the file{where}: nothing to do.")
    else:
        parts += _change_markdown(view.change(block), block, result)
    return "\n\n".join(parts)


def _change_markdown(change: BlockChange, block: Block, result: BlockResult) -> list[str]:
    parts = ["Applied: its change is in the file."] if result.status == "applied" else []
    if result.match not in (None, "exact"):
        parts.append(f"Matched only by tolerating differences ({result.match}): check it.")
    parts += [_operation_words(op, block) for op in change.operations if op.kind != "create"]
    parts += [fenced(cut(diff), "diff") for diff in change.diffs]
    if change.shared_with:
        others = ", ".join(str(i + 1) for i in sorted(change.shared_with))
        parts.append(f"Its change touches that of block(s) {others}: the diff shows both.")
    return parts


def _operation_words(op: ResourceOp, block: Block) -> str:
    file = escape_markdown(block.file)
    if op.kind == "rename":
        return f"Moves `{file}` to `{escape_markdown(block.move_to or str(op.new_path))}`."
    return f"Deletes `{file}`."


_STILL_WRITTEN = "Still being written: it is checked when it is closed."


def hover(view: ResponseView, position: types.Position) -> JsonObject | None:
    """The hover on a block's lines, as the ``Hover`` JSON (None elsewhere)."""
    block = view.block_at(position.line)
    if block is not None:
        result = view.results.get(block.index)
        text = (_result_markdown(view, block, result) if result is not None
                else _heading(block, "not checked yet"))
        first, last = block.response_line, block.end_line - 1
    else:
        pending = view.pending
        if pending is None or position.line < pending.response_line:
            return None
        name = f" · `{escape_markdown(pending.file)}`" if pending.file else ""
        index = len(view.parsed.blocks) + 1
        text = f"**Block {index}**{name} · {WRITING}\n\n{_STILL_WRITTEN}"
        first, last = pending.response_line, len(view.lines) - 1
    return {"contents": {"kind": types.MarkupKind.Markdown.value, "value": text},
            "range": view.lines_range(first, last)}


# ------------------------------------------------------------------ documentLink


def edit_line(result: BlockResult) -> int | None:
    """The 0-based line of the target file a block's link opens: the line its lens names
    (where it matched; a failed block's estimated line)."""
    return result.line


def _path_pattern(path: str) -> re.Pattern[str]:
    # Not inside a longer path or word: `a.py` is not the one in `data.py` or `a.pyc`.
    return re.compile(r"(?<![\w.\\-])" + re.escape(path) + r"(?![\w/\\-]|\.\w)")


def path_range(view: ResponseView, block: Block, after: int = 0) -> JsonObject | None:
    """Where the block's path is written in the response: its first occurrence on the
    block's lines, else the nearest above them, after line ``after`` (the end of the block
    before: a semantic diff's ``## File`` heading stands above its hunks). None when it is
    not written there as the block names it."""
    if not block.file:
        return None
    pattern = _path_pattern(block.file)
    own = range(block.response_line, min(block.end_line, len(view.lines)))
    above = range(min(block.response_line, len(view.lines)) - 1, after - 1, -1)
    for number in chain(own, above):
        line = view.lines[number]
        found = pattern.search(line) if block.file in line else None
        if found is not None:
            start = code_units(line[:found.start()], view.encoding)
            end = start + code_units(found.group(), view.encoding)
            return range_json(number, start, number, end)
    return None


def block_link(view: ResponseView, block: Block, after: int) -> JsonObject | None:
    """The link on ``block``'s written path (``after``: where the block before ended), or
    None: not checked yet, a refused path (no file to open), or its path not written."""
    result = view.results.get(block.index)
    if result is None or result.path is None:
        return None
    where = path_range(view, block, after)
    if where is None:
        return None
    line = edit_line(result)
    target = view.uri_for(result.path)
    tooltip = f"Open {result.file}"
    if line is not None:
        target += f"#L{line + 1}"
        tooltip += f" at line {line + 1}"
    return {"range": where, "target": target, "tooltip": tooltip}


def document_links(view: ResponseView) -> list[JsonObject]:
    """A link on each block's written path to its target file at the edit's line, as the
    ``DocumentLink`` JSON (see :func:`document_symbols`)."""
    links = []
    for block, after in _with_ends_before(view.parsed.blocks):
        link = block_link(view, block, after)
        if link is not None:
            links.append(link)
    return links


def links_json(view: ResponseView) -> str:
    """:func:`document_links` as JSON text, each block's kept while it stays the same."""
    if view.kept is None:
        return json.dumps(document_links(view))

    def build(block: Block, after: int) -> str:
        link = block_link(view, block, after)
        return "" if link is None else json.dumps(link)

    return "[" + ",".join(part for part in view.kept.links_of(view, build) if part) + "]"


def hover_json(view: ResponseView, position: types.Position) -> str:
    return json.dumps(hover(view, position))


def _with_ends_before(blocks: Sequence[Block]) -> Iterator[tuple[Block, int]]:
    """Each block with the line where the blocks before it end."""
    after = 0
    for block in blocks:
        yield block, after
        after = max(after, block.end_line)


# ------------------------------------------------------------------ kept between requests


@dataclass(frozen=True)
class _Kept:
    block: Block
    result: BlockResult | None
    text: str  # the block's JSON ("" when it has none)


class KeptViews:
    """A response document's outline and links, as JSON text per block, kept between
    requests (one per document, :class:`~.state.ResponseDocument`).

    Why: an editor asks for both after every change, and a long response has thousands of
    blocks (1,363 at 1 MB: 20-23 ms of server CPU per answer built whole). A block's entry
    depends on its lines and those above it back to the block before, and its result. The
    parse hands back the very object of a block it did not read again, and those blocks end
    before the first place it read again, their last line break included: their text is
    unchanged; the plan hands back the very object of a result it did not make again. So an
    entry whose block and result are the same objects is the same, except for the last
    block, whose last line may be the text's own, still growing: it is always built again.
    """

    def __init__(self) -> None:
        self._encoding: str | None = None
        self._symbols: list[_Kept] = []
        self._links: list[_Kept] = []

    def symbols_of(self, view: ResponseView, build: Callable[[Block, int], str]) -> list[str]:
        self._check(view.encoding)
        self._symbols = self._entries(view, self._symbols, build)
        return [entry.text for entry in self._symbols]

    def links_of(self, view: ResponseView, build: Callable[[Block, int], str]) -> list[str]:
        self._check(view.encoding)
        self._links = self._entries(view, self._links, build)
        return [entry.text for entry in self._links]

    def _check(self, encoding: str) -> None:
        if encoding != self._encoding:  # columns are counted in the client's units
            self._encoding, self._symbols, self._links = encoding, [], []

    @staticmethod
    def _entries(view: ResponseView, kept: list[_Kept],
                 build: Callable[[Block, int], str]) -> list[_Kept]:
        out = []
        last = len(view.parsed.blocks) - 1
        for position, (block, after) in enumerate(_with_ends_before(view.parsed.blocks)):
            result = view.results.get(block.index)
            old = kept[position] if position < len(kept) and position < last else None
            if old is not None and old.block is block and old.result is result:
                out.append(old)
            else:
                out.append(_Kept(block, result, build(block, after)))
        return out


__all__ = ["KeptViews", "ResponseView", "answer", "block_link", "block_symbol",
           "document_links", "document_symbols", "edit_line", "escape_markdown", "fenced",
           "hover", "hover_json", "links_json", "path_range", "range_json", "symbols_json"]
