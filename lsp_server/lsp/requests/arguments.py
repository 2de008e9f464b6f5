"""Command arguments and options, validated: what the user gets told when a call is wrong.

Options of a command are merged over the ``initializationOptions`` defaults; a wrong type or
an unknown value is refused with a message for the user (:class:`CommandError` for a
command, ``ValueError`` where ``initialize`` reports it as a warning instead).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..block_selection import selected_blocks
from ..formats import FORMAT_NAMES
from ..limits import (
    DEFAULT_MAX_BLOCK_LINES,
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_RESPONSE_BYTES,
)

# An editor answers workspace/applyEdit in milliseconds, or after asking the user (VS Code
# asks before a refactoring that touches many files): generous, but not for ever.
DEFAULT_APPLY_EDIT_TIMEOUT = 30.0


class CommandError(Exception):
    """A command was called wrongly (bad arguments, unknown run): an InvalidParams error."""


@dataclass
class EditOptions:
    """Options of the edit commands, merged over the ``initializationOptions`` defaults."""

    matching: str = "exact"
    atomic: bool = False
    formats: set[str] | None = None  # None: every format
    include_text: bool = False
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_blocks: int = DEFAULT_MAX_BLOCKS
    max_block_lines: int = DEFAULT_MAX_BLOCK_LINES
    # Seconds llmEdits.apply/applyFix wait for the editor's answer to workspace/applyEdit.
    apply_edit_timeout: float = DEFAULT_APPLY_EDIT_TIMEOUT
    # The blocks to run (0-based, validated by block_selection); None: every block.
    blocks: tuple[int, ...] | None = None
    # Change annotations ask the editor to confirm each block (needsConfirmation).
    confirm: bool = False
    # Response documents: each block that completes and validates is applied at once.
    apply_while_streaming: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The options as a command would send them (for the run store and feedback)."""
        return {
            "matching": self.matching,
            "atomic": self.atomic,
            "formats": sorted(self.formats) if self.formats is not None else None,
            "includeText": self.include_text,
        }


_FLAGS = (("atomic", "atomic"), ("includeText", "include_text"), ("confirm", "confirm"),
          ("applyWhileStreaming", "apply_while_streaming"))
_LIMITS = (("maxResponseBytes", "max_response_bytes"), ("maxFileBytes", "max_file_bytes"),
           ("maxBlocks", "max_blocks"), ("maxBlockLines", "max_block_lines"))


def _merged(options: Any, defaults: Any) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for name, source in (("initializationOptions", defaults), ("options", options)):
        if source is None:
            continue
        if not isinstance(source, dict):
            raise ValueError(f"{name} must be an object, got {type(source).__name__}")
        merged.update({k: v for k, v in source.items() if v is not None})
    return merged


def _formats(formats: Any) -> set[str] | None:
    if formats is None:
        return None
    if not isinstance(formats, list) or not all(isinstance(f, str) for f in formats):
        raise ValueError("options.formats must be a list of format names")
    unknown = sorted(set(formats) - set(FORMAT_NAMES))
    if unknown:
        raise ValueError(
            f"unknown format(s) {', '.join(unknown)}; known formats: {', '.join(FORMAT_NAMES)}")
    # An empty list (a client forwarding an unset setting) means every format.
    return set(formats) or None


def parse_options(options: Any, defaults: Any = None) -> EditOptions:
    """Validate ``options`` (a command's) over ``defaults`` (``initializationOptions``).

    Raises ``ValueError`` with a message for the user on a wrong type or unknown value.
    """
    merged = _merged(options, defaults)
    result = EditOptions()
    matching = merged.get("matching", "exact")
    if matching not in ("exact", "whitespace"):
        raise ValueError(f"options.matching must be 'exact' or 'whitespace', got {matching!r}")
    result.matching = matching
    for key, attr in _FLAGS:
        value = merged.get(key, False)
        if not isinstance(value, bool):
            raise ValueError(f"options.{key} must be true or false, got {value!r}")
        setattr(result, attr, value)
    result.formats = _formats(merged.get("formats"))
    for key, attr in _LIMITS:
        limit = merged.get(key, getattr(result, attr))
        if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
            raise ValueError(f"{key} must be a positive integer, got {limit!r}")
        setattr(result, attr, limit)
    timeout = merged.get("applyEditTimeout", result.apply_edit_timeout)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not (
            0 < timeout < float("inf")):
        raise ValueError(f"applyEditTimeout must be a positive number of seconds, "
                         f"got {timeout!r}")
    result.apply_edit_timeout = float(timeout)
    return result


def check_response_size(text: str, limit: int) -> None:
    """Refuse a response larger than ``limit`` UTF-8 bytes with a message saying so."""
    # Cheap bound first: a code point is at most 4 UTF-8 bytes.
    if len(text) * 4 <= limit:
        return
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise ValueError(
            f"the response is {size} bytes, more than maxResponseBytes ({limit}); "
            "split it or raise maxResponseBytes in initializationOptions"
        )


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
        options.blocks = selected_blocks(argument.get("options"))
    except ValueError as exc:
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
