"""``--json``: the server's result shape (lsp_server.results) without ``edit``, plus what only
the CLI knows: the files it changes (``files``), ``ok``, ``dryRun``, ``applied`` and
``writeErrors``. docs/cli.md describes every key."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model import ParseResult
from ..parsing import block_text_fields
from ..results import block_dict, warning_dict
from ..shell_display import shell_command_dict
from ..workspace import display_path
from .changes import FileSummary, diff_lines, line_counts
from .exit_codes import EXIT_OK, exit_code
from .output import echo_json

if TYPE_CHECKING:
    from .run import Run


def print_run_json(run: Run, summaries: list[FileSummary], *, with_diff: bool,
                   applied: bool | None, write_errors: list[str],
                   unwritten: frozenset[Path] = frozenset()) -> None:
    """The result of ``check``/``apply`` (``applied`` is None for a dry run); an apply
    answers each apply_patch_call of the response (``applyPatchCallOutputs``)."""
    data = {"blocks": [block_dict(b, Path.as_uri) for b in run.result.blocks],
            **run_summary_dict(run, summaries, with_diff=with_diff, applied=applied,
                               write_errors=write_errors)}
    if not run.dry_run:
        from .call_outputs import call_outputs

        outputs = call_outputs(run.result, unwritten)
        if outputs:
            data["applyPatchCallOutputs"] = outputs
    echo_json(data)


def run_summary_dict(run: Run, summaries: list[FileSummary], *, with_diff: bool,
                     applied: bool | None, write_errors: list[str]) -> dict[str, Any]:
    """Everything of the result but its ``blocks``: ``--stream``'s last JSON line (its
    blocks were the lines before)."""
    result = run.result
    data: dict[str, Any] = {
        "shellSuggestions": list(result.shell_suggestions),
        "shellCommands": [shell_command_dict(c) for c in result.shell_suggestions],
        "warnings": [warning_dict(w) for w in result.warnings],
        "files": [_file_json(s, run.roots, with_diff) for s in summaries],
        "ok": exit_code(result) == EXIT_OK and not write_errors,
        "dryRun": run.dry_run,
    }
    if applied is not None:
        data["applied"] = applied
    if write_errors:
        data["writeErrors"] = list(write_errors)
    return data


def _file_json(summary: FileSummary, roots: list[Path], with_diff: bool) -> dict[str, Any]:
    added, removed = line_counts(summary)
    out: dict[str, Any] = {
        "path": display_path(summary.path, roots),
        "uri": summary.path.as_uri(),
        "kind": summary.kind,
        "linesAdded": added,
        "linesRemoved": removed,
    }
    if summary.new_path is not None:
        out["newPath"] = display_path(summary.new_path, roots)
        out["newUri"] = summary.new_path.as_uri()
    if with_diff:
        out["diff"] = "".join(line + "\n" for line in diff_lines(summary, roots))
    return out


def print_parse_json(parsed: ParseResult) -> None:
    """The result of ``parse``: the blocks as found, reading no file."""
    echo_json({
        "blocks": [block_text_fields(b) for b in parsed.blocks],
        "warnings": [warning_dict(w) for w in parsed.warnings],
        "shellSuggestions": list(parsed.shell_suggestions),
    })


__all__ = ["print_parse_json", "print_run_json", "run_summary_dict"]
