"""``llmEdits.preview`` / ``apply`` of a response document (``responseUri`` naming one).

Three differences from a run of any other response:

- a block started but not closed at the end of the text is reported in ``blocks`` as
  ``{"index", "status": "pending", "file", "format", "responseLine"}`` (``index``: the next
  ones after the parse's blocks), never applied, and is not a warning. Every block the
  parse closed runs: the user asked for it now (only applying while streaming waits for a
  block to be complete, :mod:`..parsing.completion`);
- blocks applied from the document before (while it streamed, or by an earlier apply) are
  not planned again (their text is in the files now), so nothing is applied twice: they are
  reported as what they are for this run, ``already-applied`` when it chose them (Apply
  all), ``excluded`` when it did not (another block's lens), never ``applied``; the blocks
  this run applies join them;
- the document's diagnostics are its live validation's (:mod:`.validation`), validated
  again once the run changed the files, not the run's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...model import BlockResult, ParseResult, ParseWarning, PlanResult
from ...results import JsonObject
from ..errors import CommandError
from ..protocol.shown import shown
from .code_lens import lens_block_key

if TYPE_CHECKING:
    from ..run_store import EditRequest
    from .state import ResponseDocument


def lens_block_of(argument: Any) -> str | None:
    """The ``block`` a lens's command names its block by (``code_lens.lens_block_key``);
    None: the command is no block's lens."""
    block = argument.get("block") if isinstance(argument, dict) else None
    if block is not None and not isinstance(block, str):
        raise CommandError("`block` must be a string (a block's lens names it)")
    return block


class ResponseDocumentRun:
    """One preview or apply of a response document (``request``: the run's text, as the
    document holds it, and options; ``lens_block``: the block a lens named, if a lens
    runs it)."""

    def __init__(self, live: ResponseDocument, request: EditRequest,
                 lens_block: str | None = None) -> None:
        self.live = live
        self.request = request
        self.lens_block = lens_block
        self.parsed: ParseResult | None = None
        self.settled: dict[int, BlockResult] = {}
        self.chosen: set[int] | None = None  # the blocks the run asked for (None: all)
        self.pending: list[ParseWarning] = []

    def before_planning(self, parsed: ParseResult, planning: dict[str, Any]) -> None:
        """Leave the blocks applied before out of the plan (``planning["only"]``)."""
        self.parsed = parsed
        self.chosen = planning.get("only")
        if self.lens_block is not None:
            _check_lens(self.lens_block, parsed, self.chosen)
        self.settled = self.live.applied.settled(parsed.blocks)
        if self.settled:
            wanted = planning.get("only")
            if wanted is None:
                wanted = {block.index for block in parsed.blocks}
            planning["only"] = set(wanted) - set(self.settled)

    def after_planning(self, plan: PlanResult) -> PlanResult:
        """The plan with the blocks applied before reported ``applied``, and without the
        warnings of pending blocks (kept for :meth:`add_pending`)."""
        if self.settled:
            plan.blocks = self._with_settled(plan.blocks)
        self.pending = [w for w in plan.warnings if w.pending]
        if self.pending:
            plan.warnings = [w for w in plan.warnings if not w.pending]
        return plan

    def _with_settled(self, results: list[BlockResult]) -> list[BlockResult]:
        """``results`` with each block applied before reported as it is for this run: one
        the run chose is ``already-applied`` (its text is in the files, where it was
        applied), one it did not keeps its ``excluded``."""
        by_index = {result.index: result for result in results}
        for index, result in self.settled.items():
            if self.chosen is None or index in self.chosen:
                by_index[index] = replace(result, status="already-applied")
        return [by_index[index] for index in sorted(by_index)]

    def add_pending(self, result: JsonObject) -> None:
        """The blocks started and not closed as entries of the result's ``blocks``."""
        first = len(self.parsed.blocks) if self.parsed is not None else 0
        result["blocks"] += [{"index": first + n, "status": "pending", "file": w.file,
                              "format": w.format, "responseLine": w.response_line}
                             for n, w in enumerate(self.pending)]

    def record_applied(self, plan: PlanResult) -> None:
        """After the editor applied the run's edit: its applied blocks join the record."""
        if self.parsed is None:
            return
        blocks = {block.index: block for block in self.parsed.blocks}
        for result in plan.blocks:
            if result.status == "applied" and result.index not in self.settled:
                block = blocks.get(result.index)
                if block is not None:
                    self.live.applied.record(block, result)
        self.live.generation += 1  # its statuses changed: validated again when asked


def _check_lens(key: str, parsed: ParseResult, chosen: set[int] | None) -> None:
    """A lens names one block (``key``): run it only if the document still holds that block
    there; else nothing runs and the error says why (the lens was shown before a change)."""
    index = next(iter(chosen)) if chosen is not None and len(chosen) == 1 else None
    block = parsed.blocks[index] if index is not None and index < len(parsed.blocks) else None
    if block is not None and lens_block_key(block) == key:
        return
    line = key.split("-", 1)[0]
    now = (f"block {index + 1} is now {shown(block.file)}'s, at line {block.response_line + 1}"
           if block is not None else "that block is gone")
    raise CommandError(
        f"This lens is out of date: the response document changed since it was shown (the "
        f"lens was at line {int(line) + 1 if line.isdigit() else '?'}; {now}). Nothing was "
        "run: click the lens as it is shown now.")
