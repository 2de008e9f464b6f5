"""``--stream``'s output, each block shown the moment it completes, and the end of the run.

Three ways to show it: on a terminal, a live table (one row per block, the block being
written as a ``writing`` row), replaced at the end by the full report; into a pipe, one
line per block then the report's tail (failure details, warnings, summary); with
``--json``, one JSON object per line: each block as the non-streaming ``--json`` has it,
a block left open at the end as ``{"index", "status": "pending", "file", "format",
"responseLine"}``, and last the rest of the non-streaming result (``ok``, ``warnings``,
``files``, ...).
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..model import BlockResult
from ..results import block_dict
from .changes import FileSummary, summarise
from .exit_codes import EXIT_FAILED, EXIT_USAGE, exit_code
from .output import echo_json, shown, shown_path
from .run import Run, looked_for, run_options, workspace_roots, write_feedback_file
from .stream import OpenBlock, StreamOptions, StreamOutcome, stream_blocks

if TYPE_CHECKING:
    from rich.live import Live

_TABLE_FRAME_LINES = 5  # the table's borders and header, and a line to spare
_NOT_RUN = "not run: the input stopped before the block was complete"


class _Finish:
    """What the end of a run shows, whichever the output."""

    def __init__(self, run: Run, summaries: list[FileSummary], outcome: StreamOutcome,
                 show_diff: bool, applied: bool | None) -> None:
        self.run, self.summaries, self.outcome = run, summaries, outcome
        self.show_diff, self.applied = show_diff, applied
        self.open_blocks = outcome.open_blocks()

    def open_reason(self, block: OpenBlock) -> str:
        if self.outcome.stopped is not None or self.outcome.signum is not None:
            return _NOT_RUN
        return f"{block.message or 'not closed when the response ended'}; not applied"


# ---------------------------------------------------------------------------- outputs


class JsonLines:
    """``--json``: one object per line."""

    def block(self, result: BlockResult) -> None:
        echo_json(block_dict(result, Path.as_uri), one_line=True)

    def writing(self, open_blocks: list[OpenBlock]) -> None:
        pass  # a JSON reader is told each block once, when it is done

    def finish(self, end: _Finish) -> None:
        from .json_report import run_summary_dict

        for block in end.open_blocks:
            echo_json({"index": block.index, "status": "pending", "file": block.file,
                       "format": block.format, "responseLine": block.response_line},
                      one_line=True)
        runner = end.outcome.runner
        echo_json(run_summary_dict(end.run, end.summaries, with_diff=end.show_diff,
                                   applied=end.applied, write_errors=runner.write_errors),
                  one_line=True)

    def close(self) -> None:
        pass


class PlainLines:
    """A pipe: one line per block, then the report under the table."""

    def block(self, result: BlockResult) -> None:
        _echo(block_line(result))

    def writing(self, open_blocks: list[OpenBlock]) -> None:
        pass  # a line is written once: only finished blocks have one

    def finish(self, end: _Finish) -> None:
        from .text_report import console, print_run_tail

        for block in end.open_blocks:
            _echo(f"block {block.index + 1} pending: {shown_path(block.file or '?')} "
                  f"({block.format or '?'}) — {_one_line(end.open_reason(block))}")
        runner = end.outcome.runner
        print_run_tail(console(), end.run, end.summaries, show_diff=end.show_diff,
                       applied=end.applied, write_errors=runner.write_errors,
                       unwritten=frozenset(runner.unwritten))
        sys.stdout.flush()

    def close(self) -> None:
        pass


class LiveTable:
    """A terminal: the table redrawn in place as blocks complete."""

    def __init__(self) -> None:
        from rich.live import Live

        from .text_report import console

        self.out = console()
        self.results: list[BlockResult] = []
        self.open_rows: list[OpenBlock] = []
        self.changed = False  # a block completed since the last redraw
        # Redrawn when something changes, not on a timer (no thread); cleared at the end,
        # where the full report is printed.
        self.live: Live = Live(console=self.out, auto_refresh=False, transient=True,
                               redirect_stdout=False, redirect_stderr=False)
        self.live.start()

    def block(self, result: BlockResult) -> None:
        self.results.append(result)
        self.changed = True

    def writing(self, open_blocks: list[OpenBlock]) -> None:
        if self.changed or open_blocks != self.open_rows:
            self.open_rows = open_blocks
            self.changed = False
            self._draw()

    def _draw(self) -> None:
        """The last rows that fit on the screen (the whole table is printed at the end):
        a redraw costs a screenful, not the whole response."""
        from .text_report import blocks_table, status_row

        rows = [status_row(b.index, "writing", b.file, b.format) for b in self.open_rows]
        fits = max(1, self.out.height - _TABLE_FRAME_LINES - len(rows))
        self.live.update(blocks_table(self.out, self.results[-fits:], rows), refresh=True)

    def finish(self, end: _Finish) -> None:
        from .text_report import print_run_text, status_row

        self.close()
        runner = end.outcome.runner
        rows = [status_row(b.index, "pending", b.file, b.format, end.open_reason(b))
                for b in end.open_blocks]
        print_run_text(end.run, end.summaries, show_diff=end.show_diff, applied=end.applied,
                       write_errors=runner.write_errors, unwritten=frozenset(runner.unwritten),
                       extra_rows=rows)

    def close(self) -> None:
        self.live.stop()


def block_line(result: BlockResult) -> str:
    """``block 2 failed: src/app.py (edit-v2) — <reason> — closest line 57``."""
    where = shown_path(result.file)
    placed = result.status not in ("skipped", "failed")
    if result.line is not None and placed:
        where += f":{result.line + 1}"
    detail = ", ".join(part for part in (result.format, result.match) if part)
    line = f"block {result.index + 1} {result.status}: {where} ({detail})"
    if result.reason:
        line += " — " + _one_line(result.reason)
    if result.status == "failed" and result.line is not None and result.match is None:
        line += f" — closest line {result.line + 1}"  # not placed: the estimate
    return line


def _one_line(text: str) -> str:
    return shown(" ".join(text.split("\n")))


def _echo(line: str) -> None:
    click.echo(line)
    sys.stdout.flush()  # a reader of the pipe acts on each block as it completes


# ------------------------------------------------------------------------------- run


def run_stream(response: str, roots: tuple[Path, ...], *, matching: str,
               formats: set[str] | None, dry_run: bool, limits: dict[str, int],
               as_json: bool, show_diff: bool, feedback_file: Path | None,
               stage: bool = False) -> int:
    """``check --stream`` / ``apply --stream``: runs and reports; the exit code."""
    options = StreamOptions(workspace_roots(roots), run_options(
        matching=matching, atomic=False, formats=formats, limits=limits), dry_run)
    report = _output(as_json)
    try:
        outcome = stream_blocks(response, options, report)
        run = Run(outcome.result(), options.roots, dry_run, looked_for(formats))
        runner = outcome.runner
        summaries = summarise(run.result.changes, runner.old_text_for_diff)
        applied = None if dry_run else bool(run.result.changes)
        report.finish(_Finish(run, summaries, outcome, show_diff, applied))
    finally:
        report.close()
    if stage and applied:
        _stage(run, runner.unwritten)
    write_feedback_file(feedback_file, run, atomic=False)
    return _exit_code(outcome, run)


def _output(as_json: bool) -> Any:
    if as_json:
        return JsonLines()
    from .text_report import console

    return LiveTable() if console().is_terminal else PlainLines()


def _stage(run: Run, unwritten: set[Path]) -> None:
    from .git_stage import paths_to_stage, stage_in_git

    for problem in stage_in_git(*paths_to_stage(run.result, unwritten)):
        click.echo(f"llm-edits: {problem}", err=True)


def _exit_code(outcome: StreamOutcome, run: Run) -> int:
    if outcome.signum is not None:
        name = signal.Signals(outcome.signum).name
        click.echo(f"llm-edits: interrupted by {name}; the blocks written before it stay "
                   "written", err=True)
        return 128 + outcome.signum  # the shell's convention for a process ended by a signal
    if outcome.stopped is not None:
        click.echo(f"llm-edits: {outcome.stopped}", err=True)
        return EXIT_USAGE
    if outcome.runner.write_errors:
        return EXIT_FAILED
    return exit_code(run.result)


__all__ = ["JsonLines", "LiveTable", "PlainLines", "run_stream"]
