"""``llmEdits.preview`` / ``apply`` of a response document (``responseUri`` naming one).

Three differences from a run of any other response:

- a block started but not closed at the end of the text is being written: it is reported
  in ``blocks`` as ``{"index", "status": "pending", "file", "format", "responseLine"}``
  (``index``: the next ones after the complete blocks), never applied, not a warning;
- blocks applied from the document before (while it streamed, or by an earlier apply) are
  not planned again: they are reported ``applied`` as they were (their text is in the files
  now), so nothing is applied twice; the blocks this run applies join them;
- the document's diagnostics are its live validation's (:mod:`.live_validation`), validated
  again once the run changed the files, not the run's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..model import BlockResult, ParseResult, ParseWarning, PlanResult
from ..results import JsonObject

if TYPE_CHECKING:
    from .response_documents import LiveResponse


class ResponseDocumentRun:
    """One preview or apply of a response document."""

    def __init__(self, live: LiveResponse) -> None:
        self.live = live
        self.parsed: ParseResult | None = None
        self.settled: dict[int, BlockResult] = {}
        self.pending: list[ParseWarning] = []

    def before_planning(self, parsed: ParseResult, planning: dict[str, Any]) -> None:
        """Leave the blocks applied before out of the plan (``planning["only"]``)."""
        self.parsed = parsed
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
            planned = {block.index: block for block in plan.blocks
                       if block.index not in self.settled or block.status != "excluded"}
            planned.update(self.settled)
            plan.blocks = [planned[index] for index in sorted(planned)]
        self.pending = [w for w in plan.warnings if w.pending]
        if self.pending:
            plan.warnings = [w for w in plan.warnings if not w.pending]
        return plan

    def add_pending(self, result: JsonObject) -> None:
        """The pending blocks as entries of the result's ``blocks``."""
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
