"""One CLI run: the engine's plan of the response against the files on disk, and the retry
feedback for the model."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import click

from ..block_selection import with_excluded
from ..feedback import build_feedback
from ..formats import DEFAULT_FORMAT_NAMES, FORMAT_NAMES
from ..model import PlanResult, text_to_lines
from ..parsing import parse_response
from ..planning import plan_edits
from ..workspace import read_disk_file, resolve_path
from .blocks import check_blocks_in_range
from .output import shown_path
from .response import read_response


@dataclass
class Run:
    result: PlanResult
    roots: list[Path]
    dry_run: bool
    formats: tuple[str, ...] = ()  # the formats looked for, for "No edit blocks found"


def plan_run(response: str, roots: tuple[Path, ...], *, matching: str, atomic: bool,
             formats: set[str] | None, dry_run: bool, limits: dict[str, int],
             blocks: tuple[int, ...] | None = None, target: str | None = None) -> Run:
    """Read the response and plan its blocks against the files under ``roots`` (default: the
    current directory). ``limits`` holds the ``--max-*`` options by their keyword names;
    ``blocks`` (``--blocks``, 0-based) runs only those blocks, the others are excluded;
    ``target`` (``--target``, a path as the shell gives it) is the file of unnamed fences."""
    text = read_response(response, limits["max_response_bytes"])
    root_list = workspace_roots(roots)
    parsed = parse_response(text, formats, max_block_lines=limits["max_block_lines"],
                            target=target_in_workspace(target, root_list))
    if len(parsed.blocks) > limits["max_blocks"]:
        raise click.BadParameter(
            f"the response has {len(parsed.blocks)} blocks, more than {limits['max_blocks']} "
            "(--max-blocks)", param_hint="RESPONSE")
    check_blocks_in_range(blocks, len(parsed.blocks))
    max_file_bytes = limits["max_file_bytes"]
    result = plan_edits(parsed, lambda path: read_disk_file(path, max_file_bytes), root_list,
                        matching=matching, atomic=atomic, dry_run=dry_run,
                        only=set(blocks) if blocks is not None else None,
                        max_block_lines=limits["max_block_lines"])
    if blocks is not None:
        result = with_excluded(result, parsed, blocks)
    return Run(result, root_list, dry_run, looked_for(formats))


def target_in_workspace(target: str | None, roots: list[Path]) -> str | None:
    """``--target`` (relative to the current directory, as a shell path is) as a path
    relative to its workspace root; a usage error outside every root."""
    if target is None:
        return None
    path, why = resolve_path(os.path.abspath(target), roots)
    if path is None:
        raise click.BadParameter(f"{target}: {why}", param_hint="--target")
    root = max((r for r in roots if path.is_relative_to(r)), key=lambda r: len(r.parts))
    return path.relative_to(root).as_posix()


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
    return build_feedback(run.result, _disk_lines, atomic=atomic)


def _disk_lines(path: Path) -> list[str] | None:
    snapshot = read_disk_file(path)
    if snapshot.text is None or snapshot.binary or snapshot.error:
        return None
    return text_to_lines(snapshot.text.removeprefix("\ufeff"))


def write_feedback_file(path: Path | None, run: Run, atomic: bool) -> None:
    """``--feedback-file``: a failure to write it is reported on stderr, not fatal."""
    if path is None:
        return
    try:
        path.write_text(feedback_text(run, atomic), encoding="utf-8")
    except OSError as exc:
        click.echo(f"llm-edits: cannot write feedback to {shown_path(str(path))}: "
                   f"{exc.strerror or exc}", err=True)


__all__ = ["Run", "feedback_text", "looked_for", "plan_run", "workspace_roots",
           "write_feedback_file"]
