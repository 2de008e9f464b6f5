"""A run: a response's text and options, and a file reader -> parse -> limits -> block
selection -> plan -> the result JSON and the retry feedback.

The server, the CLI and the agents' face each hand it what they read files from (open
buffers or the disk) and the workspace roots; they decide what is done with the plan
(edits sent to the editor, files written, a tool's answer). Steps the server interleaves
with its own work (parsing in a worker thread, planning off the event loop, progress) are
public on their own: :func:`parse_within_limits`, :func:`select`, :func:`planning_options`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ..feedback import ReadLines, build_feedback
from ..model import FileSnapshot, ParseResult, PlanResult, text_to_lines
from ..parsing import parse_response
from ..planning import plan_edits
from ..results import JsonObject, UriFor, result_dict
from ..workspace import resolve_path
from .options import EditOptions, OptionsError, check_response_size
from .selection import check_in_range, with_excluded

ReadFile = Callable[[Path], FileSnapshot]
Planner = Callable[..., PlanResult]  # plan_edits' signature (a front end may wrap it)


class RunRefused(OptionsError):
    """The response is refused whole (too large, too many blocks, a block selection or a
    target it cannot have): nothing is planned, the message says why. ``key``: the option
    that refused it (``maxResponseBytes``, ``maxBlocks``, ``blocks``, ``target``)."""

    def __init__(self, message: str, key: str) -> None:
        super().__init__(message)
        self.key = key


def too_many_blocks(count: int, options: EditOptions) -> str | None:
    """The max-blocks limit (the one check of it): what to tell the user when a response
    with ``count`` blocks is over it, else None."""
    if count <= options.max_blocks:
        return None
    limit = options.vocabulary.limit("maxBlocks", options.max_blocks)
    return f"the response has {count} blocks, more than {limit}"


def resolved_target(options: EditOptions, roots: list[Path]) -> str | None:
    """``options.target`` as the parser takes it (a path relative to its workspace folder),
    refused outside the workspace like any path; None without a target."""
    target = options.target
    if target is None:
        return None
    file = target
    if target.startswith("file:"):
        # imported here: urllib.request loads http.client, email and ssl (115M instructions,
        # a fifth of a small `llm-edits apply`), for a file: URI only
        from urllib.request import url2pathname

        file = url2pathname(unquote(urlparse(target).path))
    path, why = resolve_path(file, roots)
    if path is None:
        raise RunRefused(f"{options.vocabulary.name('target')}: {why}", "target")
    inside = [r for r in roots if path.is_relative_to(r)]
    root = max(inside, key=lambda r: len(r.parts)) if inside else None
    return Path(os.path.relpath(path, root)).as_posix() if root else str(path)


def parse_within_limits(text: str, options: EditOptions,
                        roots: list[Path] | None = None) -> ParseResult:
    """The response parsed, or :class:`RunRefused` when it is larger than
    ``maxResponseBytes`` or has more blocks than ``maxBlocks``. ``roots`` resolve
    ``options.target`` (without them a target is not read)."""
    try:
        check_response_size(text, options)
    except OptionsError as exc:
        raise RunRefused(str(exc), "maxResponseBytes") from None
    extra: dict[str, Any] = {}
    target = resolved_target(options, roots) if roots is not None else None
    if target is not None:  # only then: the parser reads unnamed fences for it
        extra["target"] = target
    parsed = parse_response(text, options.formats, max_block_lines=options.max_block_lines,
                            **extra)
    too_many = too_many_blocks(len(parsed.blocks), options)
    if too_many is not None:
        raise RunRefused(too_many + options.vocabulary.raise_hint("maxBlocks"), "maxBlocks")
    return parsed


def select(options: EditOptions, parsed: ParseResult,
           planning: dict[str, Any]) -> tuple[int, ...] | None:
    """Plan only the blocks ``options.blocks`` names (sets ``planning["only"]``); the
    selection, or None when every block runs. A fix plans the one block it names (``only``
    given already), whatever the run selected. :class:`RunRefused` for a block the response
    does not have."""
    blocks = options.blocks
    if blocks is None or "only" in planning:
        return None
    try:
        check_in_range(blocks, len(parsed.blocks), options.vocabulary)
    except OptionsError as exc:
        raise RunRefused(str(exc), "blocks") from None
    planning["only"] = set(blocks)
    return blocks


def planning_options(options: EditOptions, planning: dict[str, Any]) -> dict[str, Any]:
    """``planning`` (keywords of ``plan_edits``) with the options' defaults filled in."""
    planning.setdefault("matching", options.matching)
    planning.setdefault("atomic", options.atomic)
    planning.setdefault("max_block_lines", options.max_block_lines)
    return planning


def report_selection(plan: PlanResult, parsed: ParseResult,
                     selection: tuple[int, ...] | None) -> PlanResult:
    """The plan with the blocks left out reported ``excluded`` (as is without a
    selection)."""
    return plan if selection is None else with_excluded(plan, parsed, selection)


def lines_of(read_file: ReadFile) -> ReadLines:
    """A file's lines as ``read_file`` gives it (None for a file it cannot give as text)."""

    def read_lines(path: Path) -> list[str] | None:
        snapshot = read_file(path)
        if snapshot.text is None or snapshot.binary or snapshot.error:
            return None
        return text_to_lines(snapshot.text.removeprefix("\ufeff"))

    return read_lines


@dataclass
class RunOutcome:
    """What a run found: the parse, the plan (each block's result and the changes), and
    what a front end reports from them."""

    options: EditOptions
    parsed: ParseResult
    plan: PlanResult
    read_file: ReadFile = field(repr=False)

    def result_json(self, uri_for: UriFor = Path.as_uri) -> JsonObject:
        """The result JSON of the protocol's edit commands (no ``edit``: nothing is sent)."""
        return result_dict(self.plan, None, uri_for)

    def feedback_with(self, read_lines: ReadLines) -> str:
        """The retry feedback for the model, quoting the lines ``read_lines`` gives."""
        return build_feedback(self.plan, read_lines, atomic=self.options.atomic)

    @property
    def feedback(self) -> str:
        """The retry feedback, quoting the files as the run's reader gives them now."""
        return self.feedback_with(lines_of(self.read_file))


def run_response(text: str, options: EditOptions, read_file: ReadFile, roots: list[Path], *,
                 dry_run: bool = True, planner: Planner | None = None,
                 **planning: Any) -> RunOutcome:
    """Parse ``text`` within the limits, select its blocks and plan them against the files
    ``read_file`` gives under ``roots``. Writes nothing: ``dry_run=False`` only changes what
    the statuses say (``applied`` rather than ``validated``) for a caller that writes the
    plan's changes. ``planner``: ``plan_edits`` unless given (the server's refuses blocks its
    client cannot take). :class:`RunRefused` (an :class:`OptionsError`) when the response is
    refused whole."""
    parsed = parse_within_limits(text, options, roots)
    selection = select(options, parsed, planning)
    plan = (planner or plan_edits)(parsed, read_file, roots, dry_run=dry_run,
                                   **planning_options(options, planning))
    return RunOutcome(options, parsed, report_selection(plan, parsed, selection), read_file)


__all__ = ["Planner", "ReadFile", "RunOutcome", "RunRefused", "lines_of",
           "parse_within_limits", "planning_options", "report_selection", "resolved_target",
           "run_response", "select", "too_many_blocks"]
