"""``check --stream`` / ``apply --stream``: each block reported (and with ``apply`` written)
the moment it is complete, while the response is still arriving
(``llm … | llm-edits apply --stream -``).

The text received so far is parsed up to its last line break (a line still being written
may be half a marker); at the end of the input, all of it. A block of that parse is
*complete* once no text appended can change it: the lines that decide it, and every block
started above it, have arrived (the response so far is a
:class:`~lsp_server.session.live.LiveResponse`, as the server's response documents are). At
the end of the input every block is complete, and a block still open is ``pending``:
reported, never applied.

Blocks are planned in response order, each over the files as the earlier blocks left them,
with the sequential rule of a whole run: after a failed block, later blocks of its file are
skipped. ``apply`` writes each block that applies at once (atomically per file, through
:mod:`.writes`), so the next block is planned over the disk as it now is; each block is run
once, so nothing is written twice (a block sent again finds its text there:
``already-applied``).
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from ..model import (
    Block,
    BlockResult,
    FileEdit,
    ParseResult,
    ParseWarning,
    PlanResult,
    ResourceOp,
)
from ..session.live import LiveResponse, LiveUpdate
from ..session.options import EditOptions
from ..workspace import read_disk_file
from .changes import read_for_diff
from .stream_input import InputStopped, response_chunks
from .writes import Interrupted, write_changes


@dataclass
class OpenBlock:
    """A block not complete yet (being written), or left open when the response ended."""

    index: int
    file: str | None
    format: str | None
    response_line: int
    message: str | None = None  # why it is not applied (at the end)


class StreamReport(Protocol):
    """Where a streamed run shows its blocks (:mod:`.stream_report`)."""

    def block(self, result: BlockResult) -> None: ...

    def writing(self, open_blocks: list[OpenBlock]) -> None: ...


@dataclass
class StreamOptions:
    roots: list[Path]
    options: EditOptions  # the session's, from the command line (cli.run.run_options)
    dry_run: bool


# ------------------------------------------------------------------------- the response


class ResponseSoFar:
    """The response received so far, as a live response (whole lines until the end: a line
    still being written may be half a marker)."""

    def __init__(self, options: EditOptions) -> None:
        self.live = LiveResponse(options)
        self._chunks: list[str] = []
        self._text = ""  # the text given to the live response: whole lines until the end

    @property
    def parsed(self) -> ParseResult:
        return self.live.parsed

    @property
    def ended(self) -> bool:
        return self.live.ended

    def add(self, chunk: str) -> LiveUpdate | None:
        """Take a piece of the response; what the live response made of it when the parse
        moved (a line was completed), else None."""
        self._chunks.append(chunk)
        if "\n" not in chunk:
            return None
        received = self._text + "".join(self._chunks)
        cut = received.rfind("\n") + 1
        self._chunks = [received[cut:]] if cut < len(received) else []
        return self._take(received[:cut], ended=False)

    def end(self) -> LiveUpdate:
        """The input ended: the last line counts, with or without its line break."""
        rest = "".join(self._chunks)
        self._chunks = []
        return self._take(self._text + rest, ended=True)

    def _take(self, text: str, *, ended: bool) -> LiveUpdate:
        changed_from = len(self._text)
        self._text = text
        return self.live.feed(text, changed_from, ended=ended)

    def complete_count(self, start: int) -> int:
        """How many blocks, from the first, are complete (``start`` of them are known to be,
        and have run)."""
        return max(start, self.live.complete)

    def open_blocks(self, start: int) -> list[OpenBlock]:
        """The blocks from ``start`` on, not complete, and those started but not closed."""
        blocks = self.parsed.blocks
        found = [OpenBlock(b.index, b.file, b.format, b.response_line) for b in blocks[start:]]
        found += [OpenBlock(len(blocks) + k, w.file, w.format, w.response_line, w.message)
                  for k, w in enumerate(self.live.pending)]
        return found


# -------------------------------------------------------------------------- the blocks


class BlockRunner:
    """Plans each complete block over the files as the earlier blocks left them
    (:class:`~lsp_server.streaming_plan.StreamingPlan`) and, unless ``dry_run``, writes it.

    ``check``: nothing is written, the plan goes on block after block over what the earlier
    ones would leave. ``apply``: each block's own changes are written at once, and the next
    block is planned alone over the files as they now are on disk (planning it after the
    earlier ones would compose their changes again, against the files as first read). The
    planner then forgets the earlier blocks, so the sequential rule (after a failure, later
    blocks of that file are skipped) is kept here.
    """

    def __init__(self, options: StreamOptions, response: LiveResponse) -> None:
        self.options = options
        max_file_bytes = options.options.max_file_bytes
        self._plan = response.planner(lambda path: read_disk_file(path, max_file_bytes),
                                      options.roots)
        self._blocks: list[Block] = []  # check: every block so far
        self._failed_paths: set[Path] = set()
        self.results: list[BlockResult] = []
        self.changes: list[FileEdit | ResourceOp] = []  # apply: those carried out, in order
        self.warnings: list[ParseWarning] = []  # apply: what planning noticed
        self.write_errors: list[str] = []
        self.unwritten: set[Path] = set()
        self.deleted_texts: dict[Path, str | None] = {}  # for the diff of a deleted file

    def run(self, block: Block) -> BlockResult:
        if self.options.dry_run:
            self._blocks.append(block)
            result = replace(self._plan.update(self._blocks)[-1])  # the planner's stays its
        else:
            # The earlier blocks are on disk: the plan starts again with this block alone, so
            # it reads the files as they are now and its changes are this block's.
            self._plan.reset()
            result = self._write(replace(self._plan.update([block])[-1]))
        self.results.append(result)
        return result

    def plan_so_far(self, parsed: ParseResult) -> PlanResult:
        """The whole run's result (``check``: composed as one plan of every block)."""
        if self.options.dry_run:
            return self._plan.plan_result(parsed)
        warnings = sorted([*parsed.warnings, *self.warnings], key=lambda w: w.response_line)
        return PlanResult(blocks=self.results, changes=self.changes,
                          shell_suggestions=list(parsed.shell_suggestions), warnings=warnings)

    def old_text_for_diff(self, path: Path) -> str | None:
        """A deleted file's text, as it was before ``apply`` deleted it."""
        if path in self.deleted_texts:
            return self.deleted_texts[path]
        return read_for_diff(path)

    def _write(self, result: BlockResult) -> BlockResult:
        """Write the block's changes (the plan holds only this block); its result as
        ``apply`` reports it."""
        if result.path is not None and result.path in self._failed_paths:
            return _skipped(result)
        if result.status == "validated":
            result.status = "applied"
        plan = self._plan.plan_result(ParseResult())
        self.warnings += plan.warnings
        self._keep_deleted_texts(plan.changes)
        outcome = write_changes(PlanResult(blocks=[result], changes=plan.changes),
                                atomic=False,
                                max_file_bytes=self.options.options.max_file_bytes)
        self.changes += plan.changes
        self.write_errors += outcome.errors
        self.unwritten |= outcome.failed
        if result.status == "failed" and result.path is not None:
            self._failed_paths.add(result.path)
        return result


    def _keep_deleted_texts(self, changes: list[FileEdit | ResourceOp]) -> None:
        """The text of each file about to be deleted, for the diff at the end."""
        for change in changes:
            if isinstance(change, ResourceOp) and change.kind == "delete":
                self.deleted_texts.setdefault(change.path, read_for_diff(change.path))


def _skipped(result: BlockResult) -> BlockResult:
    return BlockResult(index=result.index, file=result.file, format=result.format,
                       status="skipped", reason="Previous edit to this file failed",
                       response_line=result.response_line, path=result.path,
                       anchor_preview=result.anchor_preview, old_preview=result.old_preview,
                       new_preview=result.new_preview)


# ---------------------------------------------------------------------------- the run


@dataclass
class StreamOutcome:
    response: ResponseSoFar
    runner: BlockRunner
    stopped: str | None = None  # why reading stopped early (exit 2)
    signum: int | None = None  # the signal that interrupted the run

    def result(self) -> PlanResult:
        return self.runner.plan_so_far(self.response.parsed)

    def open_blocks(self) -> list[OpenBlock]:
        """The blocks never run: left open at the end (or not reached when stopped)."""
        return self.response.open_blocks(len(self.runner.results))


def stream_blocks(response: str, options: StreamOptions, report: StreamReport) -> StreamOutcome:
    """Read ``response`` as it arrives, running each block as it completes."""
    so_far = ResponseSoFar(options.options)
    outcome = StreamOutcome(so_far, BlockRunner(options, so_far.live))
    try:
        for chunk in response_chunks(response, options.options.max_response_bytes):
            update = so_far.add(chunk)
            if update is not None:
                _run_complete(outcome, report, update)
        _run_complete(outcome, report, so_far.end())
    except InputStopped as stop:
        outcome.stopped = str(stop)
    except Interrupted as stop:
        outcome.signum = stop.signum
    except KeyboardInterrupt:
        outcome.signum = signal.SIGINT
    return outcome


def _run_complete(outcome: StreamOutcome, report: StreamReport, update: LiveUpdate) -> None:
    """Run the blocks complete now and not run yet; past the block limit, stop reading."""
    so_far, runner = outcome.response, outcome.runner
    done = len(runner.results)
    complete = so_far.complete_count(done)
    for block in so_far.parsed.blocks[done:complete]:
        report.block(runner.run(block))
    if update.refused is not None:
        raise InputStopped(f"{update.refused}; the rest were not run")
    report.writing(so_far.open_blocks(complete))


__all__ = ["BlockRunner", "OpenBlock", "ResponseSoFar", "StreamOptions", "StreamOutcome",
           "StreamReport", "stream_blocks"]
