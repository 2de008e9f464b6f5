"""Code lenses of a response document: each block's state where it starts, "Apply all" at
the top (docs/protocol.md, "Response documents").

Per block, at its first response line: its status as the title, whose command applies that
block alone, and "Preview" (the same block, previewed), both sent unresolved (``data``
names the document and the block) and resolved by ``codeLens/resolve`` for the lenses the
editor shows (:mod:`.lens_resolve`). A block still being written
(started and not closed, or not validated yet) has one lens, ``⋯ writing``, with no
command (``command: ""``: nothing to apply yet). At line 0: "Apply all N ready blocks"
(N: the validated ones; "Apply 1 ready block" for one), applying the whole response.
"""

from __future__ import annotations

import json
import operator
from itertools import compress, count

from ...model import Block, BlockResult, ParseResult, ParseWarning
from ...results import JsonObject
from ...streaming_plan import block_identity
from ..protocol.shown import shown


def pending_warnings(parsed: ParseResult) -> list[ParseWarning]:
    """The warnings of blocks started but not closed at the end of the text: blocks being
    written, in a response document."""
    return [w for w in parsed.warnings if w.pending]

APPLY, PREVIEW = "llmEdits.apply", "llmEdits.preview"
REASON_CHARS = 80  # a failure's reason is cut to this many characters in its title


def _where(result: BlockResult) -> str:
    file = shown(result.file)
    return file if result.line is None else f"{file}:{result.line + 1}"


def _reason(result: BlockResult) -> str:
    reason = (result.reason or "failed").split("\n", 1)[0]
    return reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS - 1] + "…"


def status_title(result: BlockResult) -> str:
    """A block's lens title: ``✓ src/app.py:42``, ``✗ <reason> — closest line 57``,
    ``⊘ skipped``, ``= already applied``, ``✓ applied src/app.py:42`` (lines 1-based)."""
    status = result.status
    if status == "validated":
        return f"✓ {_where(result)}"
    if status == "applied":
        return f"✓ applied {_where(result)}"
    if status == "failed":
        closest = (result.fixes or {}).get("closestLine", (result.fixes or {}).get(
            "closest_line"))
        tail = f" — closest line {closest + 1}" if isinstance(closest, int) else ""
        return f"✗ {_reason(result)}{tail}"
    if status == "already-applied":
        return "= already applied"
    if status == "skipped":
        return "⊘ skipped"
    return status


WRITING = "⋯ writing"


def apply_all_title(ready: int) -> str:
    """The title of the lens at line 0: ``Apply 1 ready block``, ``Apply all N ready
    blocks``."""
    return "Apply 1 ready block" if ready == 1 else f"Apply all {ready} ready blocks"


def _lens_json(line: int, title: str, command: str, arguments: list | None) -> JsonObject:
    position = {"line": line, "character": 0}
    lens_command: JsonObject = {"title": title, "command": command}
    if arguments is not None:
        lens_command["arguments"] = arguments
    return {"range": {"start": position, "end": position}, "command": lens_command}


def lens_block_key(block: Block) -> str:
    """What a block's lens names it by: where it stands (its first and next response lines)
    and what it does (its identity, hashed). A lens clicked after the document changed
    under it (text pasted above, the block edited) names no block any more: it runs nothing
    (:mod:`.runs`), where an index would name another block. The hash is this process's
    (lenses are asked for again after a restart)."""
    digest = hash(block_identity(block)) & 0xFFFF_FFFF_FFFF_FFFF
    return f"{block.response_line}-{block.end_line}-{digest:016x}"


STATUS, PREVIEW_LENS = 0, 1  # the kinds of a block's two lenses (``data[2]``)


def _unresolved_json(line: int, data: list) -> JsonObject:
    position = {"line": line, "character": 0}
    return {"range": {"start": position, "end": position}, "data": data}


def _block_lenses(document_id: str, block: Block) -> str:
    """A block's two lenses, unresolved, as JSON (without the brackets of the list): each
    names the document and the block (``data``: ``[document id, block key, kind]``);
    ``codeLens/resolve`` gives it its title and command (:func:`block_lens_command`)."""
    data = [document_id, lens_block_key(block)]
    line = block.response_line
    return json.dumps([_unresolved_json(line, [*data, STATUS]),
                       _unresolved_json(line, [*data, PREVIEW_LENS])])[1:-1]


def block_lens_command(uri: str, block: Block, result: BlockResult,
                       kind: int) -> JsonObject:
    """The command of a block's lens of ``kind``, resolved: its status title applying the
    block alone, or "Preview" previewing it."""
    argument = [{"responseUri": uri, "options": {"blocks": [block.index]},
                 "block": lens_block_key(block)}]
    if kind == STATUS:
        return {"title": status_title(result), "command": APPLY, "arguments": argument}
    return {"title": "Preview", "command": PREVIEW, "arguments": argument}


class LensCache:
    """Each block's lenses as JSON, kept while the block stays the same at the same place,
    the JSON of the first ones joined, and how many blocks are ready.

    A client asks for every lens of the document after each chunk. The lenses are sent
    unresolved (the editor resolves those it shows), so a block's lenses change only with
    the block or its place, never with its result: a chunk costs the blocks it touched. The
    blocks kept from one parse to the next are the very same objects, found in one C-level
    pass; those parsed again are compared field by field.
    """

    def __init__(self) -> None:
        self._blocks: list[Block] = []
        self._parts: list[str] = []
        self._joined = ""  # ",".join of the first _joined_count parts
        self._joined_count = 0
        self._results: list[BlockResult] = []
        self._ready: list[bool] = []  # per result: its block validated
        self.ready = 0  # how many are (counted as results change, not over every block)
        # The last answer, and the parse and results it was made of (see code_lens_json).
        self.answer: tuple[ParseResult, list[BlockResult], str] | None = None

    def _kept(self, blocks: list[Block]) -> int:
        """How many of the first blocks' lenses are still right."""
        kept = first_difference(blocks, self._blocks)
        limit = min(len(blocks), len(self._blocks))
        while kept < limit and blocks[kept] == self._blocks[kept]:
            self._blocks[kept] = blocks[kept]  # parsed again, the same: the parse's object
            kept += 1
        return kept

    def count_ready(self, results: list[BlockResult]) -> int:
        """How many of ``results`` are validated (counting the results that changed)."""
        same = first_difference(results, self._results)
        self.ready -= sum(self._ready[same:])
        self._ready[same:] = [result.status == "validated" for result in results[same:]]
        self.ready += sum(self._ready[same:])
        self._results = results
        return self.ready

    def joined(self, document_id: str, blocks: list[Block]) -> str:
        """The lenses of ``blocks``, joined (``""`` for none)."""
        kept = self._kept(blocks)
        self._parts[kept:] = [_block_lenses(document_id, block) for block in blocks[kept:]]
        self._blocks = list(blocks)
        if kept < self._joined_count:
            self._joined, self._joined_count = "", 0
        rest = ",".join(self._parts[self._joined_count:])
        text = f"{self._joined},{rest}" if self._joined and rest else self._joined or rest
        self._joined, self._joined_count = text, len(self._parts)
        return text


def first_difference(now: list, before: list) -> int:
    """The first position where ``now`` holds another object than ``before`` (identity)."""
    return next(compress(count(), map(operator.is_not, now, before)),
                min(len(now), len(before)))


def code_lens_json(uri: str, document_id: str, validated: ParseResult,
                   results: list[BlockResult], cache: LensCache) -> str:
    """The lenses of a validated response document (``validated``: the parse its
    ``results`` are of), as the JSON of the codeLens answer.

    Made once per validation (each gives a new parse and a new results list; the answer
    depends on nothing else): the validation compares it with the last one, and each
    codeLens request until the next validation sends it as it is."""
    made = cache.answer
    if made is not None and made[0] is validated and made[1] is results:
        return made[2]
    text = _code_lens_json(uri, document_id, validated, results, cache)
    cache.answer = (validated, results, text)
    return text


def _code_lens_json(uri: str, document_id: str, validated: ParseResult,
                    results: list[BlockResult], cache: LensCache) -> str:
    blocks = validated.blocks
    parts = [cache.joined(document_id, blocks[:len(results)])] if blocks else []
    # Blocks after the validated ones (one result each; none once a validation has run).
    parts += [json.dumps(_lens_json(block.response_line, WRITING, "", None))
              for block in blocks[len(results):]]
    parts += [json.dumps(_lens_json(warning.response_line, WRITING, "", None))
              for warning in pending_warnings(validated)]
    parts = [part for part in parts if part]  # no lens of a complete block yet: ""
    if not parts:
        return "[]"
    ready = cache.count_ready(results[:len(blocks)]) if blocks else 0
    apply_all = _lens_json(0, apply_all_title(ready), APPLY, [{"responseUri": uri}])
    return f"[{json.dumps(apply_all)},{','.join(parts)}]"
