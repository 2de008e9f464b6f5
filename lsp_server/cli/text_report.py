"""The report for people: Rich tables of the blocks, each failure with the file's real lines,
warnings, suggested shell commands, the diff and a closing summary line."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from ..model import Block, BlockResult, ParseResult, ParseWarning, PlanResult
from ..shell_display import command_parts, display_text
from ..workspace import display_path
from .changes import FileSummary, diff_lines
from .output import shown, shown_path
from .text_table import Column, render_table

if TYPE_CHECKING:
    from .run import Run

_STATUS_STYLE = {
    "applied": "green",
    "validated": "green",
    "already-applied": "cyan",
    "failed": "bold red",
    "skipped": "yellow",
    "excluded": "dim",
    "writing": "magenta",
    "pending": "yellow",
}
_DIFF_STYLES = (  # first prefix that matches wins
    (("+++", "---", "rename "), "bold"),
    (("@@",), "cyan"),
    (("+",), "green"),
    (("-",), "red"),
)


def console() -> Console:
    out = Console(highlight=False, soft_wrap=False)
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out.width = 120  # pipes and logs: avoid wrapping at rich's 80-column default
    return out


def print_run_text(run: Run, summaries: list[FileSummary], *, show_diff: bool,
                   applied: bool | None, write_errors: list[str],
                   unwritten: frozenset[Path] = frozenset(),
                   extra_rows: list[list[Text]] | None = None) -> None:
    """The report of ``check``/``apply`` (``applied`` is None for a dry run; ``unwritten``:
    the paths apply could not write; ``extra_rows``: rows after the blocks', such as
    ``--stream``'s block left open at the end)."""
    out = console()
    if run.result.blocks or extra_rows:
        out.print(blocks_table(out, run.result.blocks, extra_rows or []), soft_wrap=True)
    else:  # exit 1: a script must be able to tell
        out.print(f"No edit blocks found (looked for: {', '.join(run.formats)}).")
    print_run_tail(out, run, summaries, show_diff=show_diff, applied=applied,
                   write_errors=write_errors, unwritten=unwritten)


def print_run_tail(out: Console, run: Run, summaries: list[FileSummary], *, show_diff: bool,
                   applied: bool | None, write_errors: list[str],
                   unwritten: frozenset[Path] = frozenset()) -> None:
    """What the report prints under the table: failure details, warnings, suggestions, the
    diff, write errors, the summary line and hints."""
    result = run.result
    _print_failure_details(out, result.blocks)
    print_warnings_and_suggestions(out, result.warnings, result.shell_suggestions)
    if show_diff and summaries:
        out.print()
        for summary in summaries:
            _print_diff(out, diff_lines(summary, run.roots))
    if write_errors:
        out.print()
        for message in write_errors:
            out.print(Text(f"Could not write {shown_path(message)}", style="bold red"))
    out.print()
    written = [s for s in summaries if not {s.path, s.new_path} & unwritten]
    out.print(_summary_line(result, written, run, applied), soft_wrap=True)
    _print_hints(out, run)


def _print_hints(out: Console, run: Run) -> None:
    """What to try next: ``--matching whitespace``, and retry feedback for the model."""
    blocks = run.result.blocks
    fixes = _fix_suggestions(blocks)
    if fixes:
        out.print(Text(fixes, style="cyan"), soft_wrap=True)
    if any(b.status in ("failed", "skipped") for b in blocks):
        command = "apply --feedback-file PATH" if not run.dry_run else "feedback RESPONSE"
        out.print(Text(f"For the model: `llm-edits {command}` writes retry feedback "
                       "(reasons, the real lines, what not to re-send).", style="dim"),
                  soft_wrap=True)


_BLOCK_COLUMNS = [Column("#", right=True), Column("status"), Column("file", fold=True),
                  Column("format"), Column("line", right=True), Column("match"),
                  Column("reason", fold=True)]


def blocks_table(out: Console, blocks: list[BlockResult],
                 extra_rows: list[list[Text]] | None = None) -> Text:
    """The table of blocks, then ``extra_rows`` (cells as :func:`status_row` makes them)."""
    rows = [block_row(b) for b in blocks]
    return render_table(out, _BLOCK_COLUMNS, rows + (extra_rows or []))


def block_row(b: BlockResult) -> list[Text]:
    match = (b.match or "") + (f" ({b.offset:+d} lines)" if b.offset else "")
    return [
        Text(str(b.index + 1)),
        Text(b.status, style=_STATUS_STYLE.get(b.status, "")),
        Text(shown_path(b.file)),
        Text(b.format),
        Text(str(b.line + 1) if b.line is not None else ""),
        Text(match),
        _reason_cell(b),
    ]


def status_row(index: int, status: str, file: str | None, format_name: str | None,
               reason: str = "") -> list[Text]:
    """A row for what is not (yet) a block: ``--stream``'s block being written, or left
    open when the response ended."""
    return [Text(str(index + 1)), Text(status, style=_STATUS_STYLE.get(status, "")),
            Text(shown_path(file or "")), Text(format_name or ""), Text(""), Text(""),
            Text(shown(reason))]


def _reason_cell(block: BlockResult) -> Text:
    reason = Text(shown(block.reason or ""))
    if block.hint and block.status != "failed":  # a failure's hint is in the details below
        if block.reason:
            reason.append("\n")
        reason.append(shown(block.hint), style="cyan")
    return reason


def _print_failure_details(out: Console, blocks: list[BlockResult]) -> None:
    """Under the table, each failure's hint and the real file lines around its estimated
    line (the engine's ``context``), the estimated line marked."""
    for b in blocks:
        if b.status != "failed" or not (b.hint or b.context):
            continue
        out.print()
        head = Text(f"Block {b.index + 1} failed: ", style="bold red")
        head.append(f"{shown_path(b.file)} ({b.format}, response line {b.response_line + 1})")
        out.print(head)
        if b.reason:
            out.print(Text(f"  {shown(b.reason)}"), soft_wrap=True)
        if b.hint:
            out.print(Text(f"  {shown(b.hint)}", style="cyan"), soft_wrap=True)
        _print_context(out, b)


def _print_context(out: Console, block: BlockResult) -> None:
    if not block.context:
        return
    width = len(str(max(n for n, _ in block.context) + 1))
    for n, text in block.context:
        marked = n == block.line
        line = Text(f"  {'>' if marked else ' '} {n + 1:>{width}} | {shown(text)}",
                    style="bold" if marked else "dim")
        out.print(line, soft_wrap=True)


def print_warnings_and_suggestions(out: Console, warnings: Iterable[ParseWarning],
                                   suggestions: Iterable[str]) -> None:
    warnings, suggestions = list(warnings), list(suggestions)
    if warnings:
        out.print()
        out.print(Text("Warnings (not blocks):", style="bold yellow"))
        for w in warnings:
            out.print(Text(f"  response line {w.response_line + 1}: {shown(w.message)}"))
    if suggestions:
        out.print()
        out.print(Text("Suggested shell commands (not run; review and run them yourself):",
                       style="bold"))
        for command in suggestions:  # escaped, and split where a shell runs another command
            for part in command_parts(command):
                out.print(Text(f"  $ {display_text(part)}"))


def _print_diff(out: Console, lines: list[str]) -> None:
    for line in lines:
        style = next((s for prefixes, s in _DIFF_STYLES if line.startswith(prefixes)), "")
        out.print(Text(shown(line), style=style), soft_wrap=True)


def _summary_line(result: PlanResult, summaries: list[FileSummary], run: Run,
                  applied: bool | None) -> Text:
    counts = Counter(b.status for b in result.blocks)  # in order of first appearance
    text = Text(", ".join(f"{n} {status}" for status, n in counts.items()) or "0 blocks",
                style="bold")
    files = ", ".join(_file_label(s, run.roots) for s in summaries)
    if run.dry_run:
        text.append(" — dry run, nothing written")
        if files:
            text.append("\nWould change: " + files, style="")
    elif applied:
        text.append("\nWritten: " + files, style="")
    else:
        text.append(" — nothing written")
    return text


def _file_label(summary: FileSummary, roots: list[Path]) -> str:
    label = shown_path(display_path(summary.path, roots))
    if summary.new_path:
        label += f" → {shown_path(display_path(summary.new_path, roots))}"
    return label + ("" if summary.kind == "edit" else f" ({summary.kind})")


def _fix_suggestions(blocks: list[BlockResult]) -> str:
    tolerant = [b.index + 1 for b in blocks if b.fixes.get("matching") == "whitespace"]
    if not tolerant:
        return ""
    numbers = ", ".join(str(n) for n in tolerant)
    return (f"Block(s) {numbers} would apply with --matching whitespace "
            "(they differ from the file only in indentation or trailing spaces).")


def print_parse_table(parsed: ParseResult) -> None:
    """The report of ``parse``: one row per block found."""
    out = console()
    if parsed.blocks:
        out.print(Text(f"{len(parsed.blocks)} block(s) found", style="italic"))
        rows = []
        for b in parsed.blocks:
            target = b.file + (f" → {b.move_to}" if b.move_to else "")
            removed, added = _block_line_changes(b)
            rows.append([Text(str(b.index + 1)), Text(b.format), Text(b.op),
                         Text(shown_path(target)), Text(str(b.response_line + 1)),
                         Text(f"-{removed} +{added}")])
        out.print(render_table(out, _PARSE_COLUMNS, rows), soft_wrap=True)
    else:
        out.print("No edit blocks found.")
    print_warnings_and_suggestions(out, parsed.warnings, parsed.shell_suggestions)


_PARSE_COLUMNS = [Column(name, fold=True)
                  for name in ("#", "format", "op", "file", "response line", "lines -/+")]


def _block_line_changes(block: Block) -> tuple[int, int]:
    """Lines the block removes and adds, as written in the response."""
    if block.hunks is None:
        return len(block.old), len(block.new)
    kinds = [kind for hunk in block.hunks for kind, _ in hunk.lines]
    return kinds.count("-"), kinds.count("+")


__all__ = ["block_row", "blocks_table", "console", "print_parse_table", "print_run_tail",
           "print_run_text", "print_warnings_and_suggestions", "status_row"]
