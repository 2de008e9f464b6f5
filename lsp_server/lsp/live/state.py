"""One response document's state: its text, parse, validation and the blocks applied from it.

Kept by :class:`~.documents.ResponseDocuments` (which documents are response documents, and
when they are parsed and validated); read by the lenses, the outline, hovers and links, and
by runs of the document (:mod:`.runs`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...model import Block, BlockResult, ParseResult, ParseWarning, PlanResult
from ...session.live import LiveResponse
from ...session.options import EditOptions
from ...streaming_plan import BlockIdentity, StreamingPlan, block_identity
from ..file_reader import FileReader
from ..protocol.positions import TextLines
from .block_diff import replanned_changes
from .code_lens import LensCache, code_lens_json, pending_warnings
from .views import KeptViews, ResponseView


class AppliedBlocks:
    """The blocks of one response document applied so far, by identity (with repeats: the
    second of two identical blocks is applied only if it was applied twice)."""

    def __init__(self) -> None:
        self._results: dict[BlockIdentity, list[BlockResult]] = {}

    def __len__(self) -> int:
        return sum(len(results) for results in self._results.values())

    def record(self, block: Block, result: BlockResult) -> None:
        self._results.setdefault(block_identity(block), []).append(result)

    def settled(self, blocks: Sequence[Block]) -> dict[int, BlockResult]:
        """``{index: result}`` of the ``blocks`` applied already (their result renumbered
        and placed where the block stands now)."""
        if not self._results:
            return {}
        seen: dict[BlockIdentity, int] = {}
        out: dict[int, BlockResult] = {}
        for block in blocks:
            identity = block_identity(block)
            results = self._results.get(identity)
            if not results:
                continue
            count = seen.get(identity, 0)
            seen[identity] = count + 1
            if count < len(results):
                kept = results[count]
                out[block.index] = BlockResult(
                    block.index, block.file, block.format, "applied", line=kept.line,
                    match=kept.match, offset=kept.offset, response_line=block.response_line,
                    path=kept.path, anchor_preview=kept.anchor_preview,
                    old_preview=kept.old_preview, new_preview=kept.new_preview)
        return out


@dataclass(eq=False)
class ResponseDocument:
    """One response document: its text, parse, validation and applied blocks.

    Read it after :meth:`ResponseDocuments.current` (then it reflects the current text);
    everything here is replaced, never changed in place, by the next parse or validation.
    """

    uri: str
    run_id: str  # names its diagnostics and lets quick fixes find its blocks
    options: EditOptions
    response: LiveResponse  # the text read as it grows: parse, complete blocks, the plan
    text: str = ""  # the document's text (BOM-less), as last parsed
    version: int | None = None
    parsed: ParseResult = field(default_factory=ParseResult)
    # How many blocks of ``parsed``, from the first, are complete (session.live): no text
    # appended can change them. Only those are applied while streaming; every block the
    # parse closed is validated and shown, and runs when the user asks (a document has no
    # end of input: a last unified diff or semantic-diff section is never "complete").
    complete: int = 0
    results: list[BlockResult] = field(default_factory=list)  # one per block validated
    validated_parse: ParseResult = field(default_factory=ParseResult)  # what results are of
    reader: FileReader | None = None  # the files the last validation saw
    applied: AppliedBlocks = field(default_factory=AppliedBlocks)
    # applyWhileStreaming: the blocks the stream completed (session.live's ``streamed``),
    # the only ones applied without a click, and those tried already (at most once each).
    streamed: set[BlockIdentity] = field(default_factory=set)
    attempted: set[BlockIdentity] = field(default_factory=set)
    by_language: bool = False  # its language id is llm-response (else: watched)
    generation: int = 0  # counts changes of the text and of buffers
    validated_generation: int = -1
    changed_paths: set[Path] = field(default_factory=set)
    lens_cache: LensCache = field(default_factory=LensCache)
    kept_views: KeptViews = field(default_factory=KeptViews)  # outline, links (views)
    diagnosed: list[BlockResult] = field(default_factory=list)  # the results last diagnosed
    noted: list[BlockResult] = field(default_factory=list)  # those of them with diagnostics
    # What the diagnostics last published were made of: the noted results, the warnings,
    # the layer published (live_validation._published_already).
    published: tuple[list[BlockResult], list[ParseWarning], Any] | None = None
    lens_text: str = "[]"  # the lenses last validated (a refresh is sent when they change)
    closed: bool = False
    # A change not parsed yet: (where it starts, None: anywhere; whether the stream made
    # it), and the parse running in a worker thread (documents._parse_change).
    pending_change: tuple[int | None, bool] | None = None
    parsing: asyncio.Future | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.TimerHandle | None = None

    @property
    def plan(self) -> StreamingPlan | None:
        """The plan the validations keep (the live response's)."""
        return self.response.plan

    @property
    def plan_roots(self) -> list[Path]:
        return self.response.plan_roots

    @property
    def stale(self) -> bool:
        """Whether the text or a buffer changed since the last validation."""
        return self.validated_generation != self.generation

    @property
    def pending(self) -> list[ParseWarning]:
        """Blocks started but not closed at the end of the text: being written."""
        return pending_warnings(self.parsed)

    @property
    def warnings(self) -> list[ParseWarning]:
        """The parse warnings that are not blocks being written."""
        return [w for w in self.parsed.warnings if not w.pending]

    def block_results(self) -> list[BlockResult]:
        """One result per block, in order (validated ones; read only)."""
        return self.results[:len(self.parsed.blocks)]

    def plan_result(self) -> PlanResult:
        """The validation as one plan (copies): every block's result, the composed changes
        of the validated blocks, the warnings that are not pending blocks."""
        if self.plan is None or self.stale:
            return PlanResult(blocks=list(self.results), warnings=self.warnings)
        parsed = ParseResult(self.parsed.blocks, self.warnings, self.parsed.shell_suggestions)
        return self.plan.plan_result(parsed, atomic=self.options.atomic)

    def uri_for(self, path: Path) -> str:
        """A target file's URI as the client knows it."""
        assert self.reader is not None
        return self.reader.uri_for(path)

    def lenses_json(self) -> str:
        """The codeLens answer of its last validation."""
        return code_lens_json(self.uri, self.run_id, self.validated_parse, self.results,
                              self.lens_cache)

    def view(self, encoding: str) -> ResponseView:
        """The view of its state (read after ``ResponseDocuments.current``, so its
        validation is of its current text). A hover's diff is found by planning the block's
        file again over the files that validation read (see
        :func:`~.block_diff.replanned_changes`)."""
        parsed = self.parsed
        if self.reader is None or self.validated_parse is not parsed:
            return ResponseView(TextLines(self.text), parsed, [], self.uri_for, encoding,
                                kept=self.kept_views)
        results = self.block_results()
        change_of = replanned_changes(parsed, results, self.reader, list(self.plan_roots),
                                      matching=self.options.matching,
                                      max_block_lines=self.options.max_block_lines)
        return ResponseView(TextLines(self.text), parsed, results, self.uri_for, encoding,
                            change_of, self.kept_views)
