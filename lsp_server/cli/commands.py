"""The ``llm-edits`` commands and their options (click).

Start-up is what a shell command run once per response pays every time: this module imports
click and nothing heavy. Each command imports the engine (via :mod:`.run`) and the report it
prints (:mod:`.json_report` or :mod:`.text_report`, which loads Rich) when it runs, so
``--version``, ``--help`` and ``instructions`` load neither.
"""

from __future__ import annotations

import errno
import gc
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from .. import __version__
from ..formats import DEFAULT_FORMAT_NAMES, FORMAT_NAMES, FORMATS
from ..limits import (
    DEFAULT_MAX_BLOCK_LINES,
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_RESPONSE_BYTES,
)
from ..matching import MATCHING_OPTIONS
from .blocks import blocks_option
from .exit_codes import EXIT_FAILED, EXIT_INTERNAL, exit_code

if TYPE_CHECKING:
    from .changes import FileSummary
    from .run import Run


class _Group(click.Group):
    """Turns an unexpected exception into a one-line error (exit 3) instead of a traceback;
    ``LLM_EDITS_DEBUG=1`` lets it through for bug reports."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except OSError as exc:
            if exc.errno == errno.EPIPE:  # `llm-edits ... | head`: click handles it
                raise
            self._internal(exc)
        except Exception as exc:
            self._internal(exc)

    @staticmethod
    def _internal(exc: Exception) -> NoReturn:
        if os.environ.get("LLM_EDITS_DEBUG"):
            raise exc
        from .output import shown_path  # the message may name a path from the response

        err = click.ClickException(
            f"internal error: {type(exc).__name__}: {shown_path(str(exc))} "
            "(set LLM_EDITS_DEBUG=1 to see the traceback)"
        )
        err.exit_code = EXIT_INTERNAL
        raise err from exc


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Exit codes: 0 every block matched/applied, 1 a block failed or was skipped, "
           "2 usage error, 3 internal error.",
)
@click.version_option(__version__, prog_name="llm-edits")
def cli() -> None:
    """Check and apply the edit blocks of an LLM response to files on disk.

    RESPONSE is a file holding the model's answer, or - to read it from stdin. Nothing is
    written except by `apply`; shell commands the response suggests are only printed.
    """


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (``llm-edits``)."""
    # The same collector setting as the server's main (see there): the library never touches gc,
    # and a large apply makes ~1M short-lived objects the default threshold walks over and over.
    gc.set_threshold(50_000, 20, 100)
    cli.main(args=argv, prog_name="llm-edits")


# ------------------------------------------------------------------------------ options


def _parse_formats(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> set[str] | None:
    if value is None:
        return None
    from ..session.options import OptionsError, format_set  # checked as the server's are

    names = [name.strip() for name in value.split(",") if name.strip()]
    try:
        if not names:
            raise OptionsError(f"unknown format(s) (none given); known formats: "
                               f"{', '.join(FORMAT_NAMES)}")
        return format_set(names)
    except OptionsError as exc:
        raise click.BadParameter(str(exc)) from None


_response_argument = click.argument(
    "response", type=click.Path(dir_okay=True, allow_dash=True), metavar="RESPONSE"
)
_formats_option = click.option(
    "--formats", callback=_parse_formats, metavar="LIST",
    help=(f"Comma-separated formats to detect (default: {', '.join(DEFAULT_FORMAT_NAMES)}; "
          f"{', '.join(sorted(set(FORMAT_NAMES) - set(DEFAULT_FORMAT_NAMES)))} only when named)."),
)
_json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
_limit_options = [
    click.option("--max-response-bytes", type=click.IntRange(min=1),
                 default=DEFAULT_MAX_RESPONSE_BYTES, show_default=True,
                 help="Refuse a larger response."),
    click.option("--max-blocks", type=click.IntRange(min=1), default=DEFAULT_MAX_BLOCKS,
                 show_default=True, help="Refuse a response with more blocks."),
    click.option("--max-file-bytes", type=click.IntRange(min=1),
                 default=DEFAULT_MAX_FILE_BYTES, show_default=True,
                 help="Fail blocks whose file is larger."),
    click.option("--max-block-lines", type=click.IntRange(min=1),
                 default=DEFAULT_MAX_BLOCK_LINES, show_default=True,
                 help="Fail blocks with more lines (old and new)."),
]


def _limits_decorator(func: Callable) -> Callable:
    for option in reversed(_limit_options):
        func = option(func)
    return func


def _plan_options(func: Callable) -> Callable:
    """The options of every command that plans against files (check, apply, feedback)."""
    options = [
        _response_argument,
        click.option(
            "--root", "roots", multiple=True, metavar="DIR",
            type=click.Path(exists=True, file_okay=False, readable=True, resolve_path=True,
                            path_type=Path),
            help="Workspace root; paths in the response are relative to it and may not leave "
                 "it. Repeat for several roots. Default: the current directory.",
        ),
        click.option(
            "--matching", type=click.Choice(list(MATCHING_OPTIONS)), default="exact",
            show_default=True,
            help="whitespace: also accept a unique match that ignores leading/trailing "
                 "whitespace (re-indenting the new lines).",
        ),
        click.option("--atomic", is_flag=True,
                     help="All or nothing: if any block fails, change nothing."),
        click.option(
            "--target", metavar="PATH",
            help="The file every code block that names no file is for (a plain ``` fence "
                 "from a chat answer); inside the workspace. Blocks naming their file are "
                 "unaffected."),
        _formats_option,
        _json_option,
        *_limit_options,
    ]
    for option in reversed(options):
        func = option(func)
    return func


_diff_option = click.option(
    "--diff", "show_diff", is_flag=True, help="Show a coloured unified diff of the changes."
)
_stream_option = click.option(
    "--stream", is_flag=True,
    help="Read RESPONSE as it arrives (e.g. `llm ... | llm-edits apply --stream -`) and "
         "report each block the moment it is complete (apply: write it then). Not with "
         "--atomic or --blocks.")


def _refuse_with_stream(atomic: bool, blocks: tuple[int, ...] | None,
                        target: str | None) -> None:
    """Options that need the whole response before anything is done."""
    if target is not None:
        raise click.UsageError("--target cannot be used with --stream: apply a finished "
                               "answer to a file")
    if atomic:
        raise click.UsageError("--atomic cannot be used with --stream: each block is done as "
                               "it completes, before the later ones are known")
    if blocks is not None:
        raise click.UsageError("--blocks cannot be used with --stream: choose blocks from a "
                               "finished response (`check` shows their numbers)")


_feedback_file_option = click.option(
    "--feedback-file", type=click.Path(dir_okay=False, writable=True, path_type=Path),
    metavar="PATH", help="Also write the retry feedback for the model to PATH.",
)


# ----------------------------------------------------------------------------- commands


@cli.command(short_help="Dry run: validate every block against the files.")
@_plan_options
@_diff_option
@_feedback_file_option
@blocks_option
@_stream_option
def check(response: str, roots: tuple[Path, ...], matching: str, atomic: bool,
          target: str | None, formats: set[str] | None, as_json: bool, show_diff: bool,
          feedback_file: Path | None, blocks: tuple[int, ...] | None, stream: bool,
          **limits: int) -> None:
    """Validate every block against the files (dry run); exit 1 if any fails."""
    if stream:
        from .stream_report import run_stream

        _refuse_with_stream(atomic, blocks, target)
        sys.exit(run_stream(response, roots, matching=matching, formats=formats, dry_run=True,
                            limits=limits, as_json=as_json, show_diff=show_diff,
                            feedback_file=feedback_file))
    from .changes import summarise
    from .run import plan_run, write_feedback_file

    run = plan_run(response, roots, matching=matching, atomic=atomic, formats=formats,
                   dry_run=True, limits=limits, blocks=blocks, target=target)
    _report(run, summarise(run.result.changes), as_json=as_json, show_diff=show_diff,
            applied=None, write_errors=[])
    write_feedback_file(feedback_file, run, atomic)
    sys.exit(exit_code(run.result))


@cli.command(short_help="Write the blocks that match to the files.")
@_plan_options
@_diff_option
@_feedback_file_option
@blocks_option
@click.option("--stage/--no-stage", default=False, envvar="LLM_EDITS_STAGE", show_envvar=True,
              help="After writing, stage in git the files the apply changed (what is on "
                   "disk: added, or removed from the index when deleted or renamed away).")
@click.option("--openai-output", is_flag=True,
              help="Print only an apply_patch_call_output item (JSON) per apply_patch_call "
                   "of the response, to hand the results back to the Responses API.")
@_stream_option
def apply(response: str, roots: tuple[Path, ...], matching: str, atomic: bool,
          target: str | None, formats: set[str] | None, as_json: bool, show_diff: bool,
          feedback_file: Path | None, blocks: tuple[int, ...] | None, stage: bool,
          openai_output: bool, stream: bool, **limits: int) -> None:
    """Apply the blocks that match and write the files; exit 1 if any block fails."""
    if stream and openai_output:
        raise click.UsageError("--openai-output cannot be used with --stream")
    if stream:
        from .stream_report import run_stream

        _refuse_with_stream(atomic, blocks, target)
        sys.exit(run_stream(response, roots, matching=matching, formats=formats,
                            dry_run=False, limits=limits, as_json=as_json,
                            show_diff=show_diff, feedback_file=feedback_file, stage=stage))
    from .changes import summarise
    from .run import plan_run, write_feedback_file
    from .writes import Interrupted, write_changes

    run = plan_run(response, roots, matching=matching, atomic=atomic, formats=formats,
                   dry_run=False, limits=limits, blocks=blocks, target=target)
    summaries = summarise(run.result.changes)  # before writing: the diff needs the old text
    try:
        outcome = write_changes(run.result, atomic=atomic,
                                max_file_bytes=limits["max_file_bytes"])
    except Interrupted as stop:
        click.echo(f"llm-edits: {stop}", err=True)
        sys.exit(128 + stop.signum)  # the shell's convention for a process ended by a signal
    written = bool(run.result.changes) and not (atomic and outcome.errors)
    if stage and written:
        from .git_stage import paths_to_stage, stage_in_git

        for problem in stage_in_git(*paths_to_stage(run.result, outcome.failed)):
            click.echo(f"llm-edits: {problem}", err=True)
    if openai_output:
        from .call_outputs import print_call_outputs

        print_call_outputs(run.result, outcome.failed)
    else:
        _report(run, summaries, as_json=as_json, show_diff=show_diff, applied=written,
                write_errors=outcome.errors, unwritten=frozenset(outcome.failed))
    write_feedback_file(feedback_file, run, atomic)
    sys.exit(EXIT_FAILED if outcome.errors else exit_code(run.result))


def _report(run: Run, summaries: list[FileSummary], *, as_json: bool, show_diff: bool,
            applied: bool | None, write_errors: list[str],
            unwritten: frozenset[Path] = frozenset()) -> None:
    if as_json:
        from .json_report import print_run_json

        print_run_json(run, summaries, with_diff=show_diff, applied=applied,
                       write_errors=write_errors, unwritten=unwritten)
    else:
        from .text_report import print_run_text

        print_run_text(run, summaries, show_diff=show_diff, applied=applied,
                       write_errors=write_errors, unwritten=unwritten)


@cli.command(short_help="List the blocks found, reading no file.")
@_response_argument
@_formats_option
@_json_option
def parse(response: str, formats: set[str] | None, as_json: bool) -> None:
    """List the blocks found in RESPONSE without reading any file."""
    from ..parsing import parse_response
    from .response import read_response

    parsed = parse_response(read_response(response), formats)
    if as_json:
        from .json_report import print_parse_json

        print_parse_json(parsed)
    else:
        from .text_report import print_parse_table

        print_parse_table(parsed)


@cli.command(short_help="Print retry feedback for the model.")
@_plan_options
def feedback(response: str, roots: tuple[Path, ...], matching: str, atomic: bool,
             target: str | None, formats: set[str] | None, as_json: bool,
             **limits: int) -> None:
    """Print the retry feedback for the model: failed blocks with the file's real lines.

    Runs as a dry run against the files as they are now. After `apply`, use
    `apply --feedback-file PATH` instead (the applied blocks no longer match).
    """
    from .output import echo_json, echo_text
    from .run import feedback_text, plan_run

    run = plan_run(response, roots, matching=matching, atomic=atomic, formats=formats,
                   dry_run=True, limits=limits, target=target)
    text = feedback_text(run, atomic)
    if as_json:
        echo_json({"text": text})
    else:
        echo_text(text)
    sys.exit(exit_code(run.result))


@cli.command(short_help="Print system-prompt text teaching a format.")
@click.argument("format_name", metavar="[FORMAT]", required=False,
                type=click.Choice([f.name for f in FORMATS if f.instructions]))
@_json_option
def instructions(format_name: str | None, as_json: bool) -> None:
    """Print system-prompt text teaching a model FORMAT (all formats when omitted; agents'
    tool-call formats have none: their tools define them)."""
    from ..instructions import TAUGHT_FORMAT_NAMES, format_instructions
    from .output import echo_json

    text = format_instructions(format_name)
    if as_json:
        echo_json({"text": text,
                   "formats": [format_name] if format_name else list(TAUGHT_FORMAT_NAMES)})
    else:
        click.echo(text, nl=False)


@cli.command(short_help="Serve the tools to an agent over MCP (stdio).")
@click.option("--root", type=click.Path(exists=True, file_okay=False, resolve_path=True,
                                        path_type=Path), metavar="DIR",
              help="Workspace root; paths may not leave it. Default: the current directory.")
@_limits_decorator
def mcp(root: Path | None, **limits: int) -> None:
    """A Model Context Protocol server on stdin/stdout: apply_edits, check_edits, edit_file,
    format_instructions, on the files under --root (docs/agents.md)."""
    from ..mcp.calls import Limits
    from ..mcp.stdio import serve_stdio
    from .run import workspace_roots

    serve_stdio(workspace_roots((root,) if root else ()), Limits(**limits))


__all__ = ["cli", "main"]
