"""One CLI run: the session's run of the response against the files on disk
(:func:`lsp_server.session.run.run_response`), and the retry feedback for the model."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import click

from ..feedback import build_feedback
from ..formats import DEFAULT_FORMAT_NAMES, FORMAT_NAMES
from ..model import PlanResult
from ..session.options import CLI, EditOptions, OptionsError, parse_options
from ..session.run import RunRefused, lines_of, run_response
from ..workspace import read_disk_file
from .exit_codes import EXIT_USAGE
from .output import shown_path
from .response import read_response


@dataclass
class Run:
    result: PlanResult
    roots: list[Path]
    dry_run: bool
    formats: tuple[str, ...] = ()  # the formats looked for, for "No edit blocks found"


def run_options(*, matching: str, atomic: bool, formats: set[str] | None,
                limits: dict[str, int], blocks: tuple[int, ...] | None = None,
                target: str | None = None) -> EditOptions:
    """The command line's options as the session's (validated there, as the server's are).
    ``limits`` holds the ``--max-*`` options by their keyword names; ``target`` is a path as
    the shell gives it (relative to the current directory)."""
    given = {
        "matching": matching, "atomic": atomic,
        "formats": sorted(formats) if formats is not None else None,
        "maxResponseBytes": limits["max_response_bytes"], "maxBlocks": limits["max_blocks"],
        "maxFileBytes": limits["max_file_bytes"], "maxBlockLines": limits["max_block_lines"],
        "blocks": list(blocks) if blocks is not None else None,
        "target": os.path.abspath(target) if target is not None else None,
    }
    try:
        return parse_options(given, vocabulary=CLI)
    except OptionsError as exc:
        raise click.UsageError(str(exc)) from None


def plan_run(response: str, roots: tuple[Path, ...], *, matching: str, atomic: bool,
             formats: set[str] | None, dry_run: bool, limits: dict[str, int],
             blocks: tuple[int, ...] | None = None, target: str | None = None) -> Run:
    """Read the response and plan its blocks against the files under ``roots`` (default: the
    current directory). ``blocks`` (``--blocks``, 0-based) runs only those blocks, the others
    are excluded; ``target`` (``--target``) is the file of unnamed code fences."""
    options = run_options(matching=matching, atomic=atomic, formats=formats, limits=limits,
                          blocks=blocks, target=target)
    text = read_response(response, options.max_response_bytes)
    root_list = workspace_roots(roots)
    max_file_bytes = options.max_file_bytes
    try:
        outcome = run_response(text, options, lambda path: read_disk_file(path, max_file_bytes),
                               root_list, dry_run=dry_run)
    except RunRefused as refused:
        refuse(refused)
    return Run(outcome.plan, root_list, dry_run, looked_for(formats))


def refuse(refused: RunRefused) -> NoReturn:
    """A refused response as the command line reports it: a wrong ``--blocks`` in one line,
    a response over a limit as a bad RESPONSE, a bad ``--target`` as a usage error."""
    if refused.key == "blocks":
        click.echo(f"llm-edits: {refused}", err=True)
        raise click.exceptions.Exit(EXIT_USAGE)
    if refused.key == "target":
        raise click.UsageError(str(refused))
    raise click.BadParameter(str(refused), param_hint="RESPONSE")


def looked_for(formats: set[str] | None) -> tuple[str, ...]:
    """The formats a run detects, in the registry's order (for "No edit blocks found")."""
    if formats is None:
        return DEFAULT_FORMAT_NAMES
    return tuple(name for name in FORMAT_NAMES if name in formats)


def workspace_roots(roots: tuple[Path, ...]) -> list[Path]:
    """``--root`` as given, or the current directory."""
    return list(roots) or [_cwd_root()]


def _cwd_root() -> Path:
    try:
        root = Path.cwd().resolve()
    except OSError as exc:
        raise click.UsageError(f"cannot use the current directory as root: {exc}") from None
    if not os.access(root, os.R_OK | os.X_OK):
        raise click.UsageError(f"the current directory {root} is not readable; pass --root")
    return root


def feedback_text(run: Run, atomic: bool) -> str:
    """The retry feedback for the model, quoting the files' lines as they are on disk now."""
    return build_feedback(run.result, lines_of(read_disk_file), atomic=atomic)


def write_feedback_file(path: Path | None, run: Run, atomic: bool) -> None:
    """``--feedback-file``: a failure to write it is reported on stderr, not fatal."""
    if path is None:
        return
    try:
        path.write_text(feedback_text(run, atomic), encoding="utf-8")
    except OSError as exc:
        click.echo(f"llm-edits: cannot write feedback to {shown_path(str(path))}: "
                   f"{exc.strerror or exc}", err=True)


__all__ = ["Run", "feedback_text", "looked_for", "plan_run", "refuse", "run_options",
           "workspace_roots", "write_feedback_file"]
