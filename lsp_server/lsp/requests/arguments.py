"""Command arguments, validated: what the user gets told when a call is wrong.

A command's ``options`` are validated by the session (:mod:`lsp_server.session.options`),
merged over the ``initializationOptions`` defaults; a wrong call is a
:class:`~lsp_server.lsp.errors.CommandError` (an InvalidParams error for the client).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...session.options import EditOptions, OptionsError, parse_options
from ..errors import CommandError


@dataclass
class EditArgument:
    """A validated argument of an edit command: where the response is, and the options."""

    response: str | None  # the response text, if sent
    response_uri: str | None  # the document holding it (also names the diagnostics' document)
    options: EditOptions


def parse_edit_argument(argument: Any, defaults: Any) -> EditArgument:
    """``{response | responseUri, options}`` of parse/preview/apply/feedback, validated."""
    if argument is None:
        argument = {}
    if not isinstance(argument, dict):
        raise CommandError("the command takes one object argument: {response | responseUri, "
                           "options}")
    try:
        options = parse_options(argument.get("options"), defaults)
    except OptionsError as exc:
        raise CommandError(str(exc)) from None
    text, uri = argument.get("response"), argument.get("responseUri")
    if text is None and uri is None:
        raise CommandError("give the response text as `response`, or `responseUri`")
    if text is not None and not isinstance(text, str):
        raise CommandError("`response` must be a string")
    if uri is not None and not isinstance(uri, str):  # also beside `response`: it names
        raise CommandError("`responseUri` must be a string")  # the diagnostics' document
    return EditArgument(text, uri, options)


@dataclass
class FixRequest:
    """A validated ``llmEdits.applyFix`` argument."""

    run_id: str
    index: int
    fix: str  # "whitespace" | "closest" | "at"
    line: int | None = None  # "at": the 1-based line to apply the block at


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_fix_request(argument: Any) -> FixRequest:
    """``{runId, index, fix}`` of ``llmEdits.applyFix``; ``ValueError`` when wrong."""
    if not isinstance(argument, dict):
        raise ValueError("llmEdits.applyFix takes an object {runId, index, fix}")
    run_id, index, fix = argument.get("runId"), argument.get("index"), argument.get("fix")
    if not isinstance(run_id, str):
        raise ValueError("applyFix: runId must be a string")
    if not _is_int(index):
        raise ValueError("applyFix: index must be an integer")
    if fix not in ("whitespace", "closest", "at"):
        raise ValueError(f"applyFix: fix must be 'whitespace', 'closest' or 'at', got {fix!r}")
    line = argument.get("line")
    if fix == "at" and (not _is_int(line) or line < 1):
        raise ValueError(f"applyFix: fix 'at' needs line, a 1-based line number, got {line!r}")
    return FixRequest(run_id, index, fix, line if fix == "at" else None)


def parse_feedback_request(argument: Any) -> tuple[str, int | None]:
    """``{runId, index?}`` of ``llmEdits.copyFeedback``."""
    if not isinstance(argument, dict) or not isinstance(argument.get("runId"), str):
        raise CommandError("llmEdits.copyFeedback takes {runId, index?}")
    index = argument.get("index")
    if index is not None and not _is_int(index):
        raise CommandError("index must be an integer")
    return argument["runId"], index


def parse_instructions_request(argument: Any) -> str | None:
    """``{format?}`` of ``llmEdits.instructions``: the format asked for, if any."""
    argument = argument or {}
    if not isinstance(argument, dict):
        raise CommandError("llmEdits.instructions takes {format?}")
    return argument.get("format")
