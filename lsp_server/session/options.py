"""The options of a run, with their one validation (server, CLI and agents' face alike).

A front end hands :func:`parse_options` the options as the protocol names them (camelCase
keys, JSON values: the server's ``options`` and ``initializationOptions``, the CLI's flags
translated by :mod:`lsp_server.cli.commands`) and gets an :class:`EditOptions`, or an
:class:`OptionsError` whose message the user reads. :class:`Vocabulary` says how the front
end names options and numbers blocks in the messages the session writes for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..formats import FORMAT_NAMES
from ..limits import (
    DEFAULT_MAX_BLOCK_LINES,
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_RESPONSE_BYTES,
)
from ..matching import MATCHING_OPTIONS

# An editor answers workspace/applyEdit in milliseconds, or after asking the user (VS Code
# asks before a refactoring that touches many files): generous, but not for ever.
DEFAULT_APPLY_EDIT_TIMEOUT = 30.0


class OptionsError(ValueError):
    """An option of the wrong type or with an unknown value: the message says which."""


@dataclass(frozen=True)
class Vocabulary:
    """How a front end names its options and numbers blocks, in the session's messages."""

    block_base: int  # the first block's number: 0 in the protocol, 1 in the CLI's table
    flags: dict[str, str] = field(default_factory=dict)  # option key -> the CLI's flag

    def limit(self, key: str, value: int) -> str:
        """A limit as this front end names it: ``maxBlocks (3)`` or ``3 (--max-blocks)``."""
        flag = self.flags.get(key)
        return f"{key} ({value})" if flag is None else f"{value} ({flag})"

    def raise_hint(self, key: str) -> str:
        """What to do about a limit refusing a response (the CLI's flag says it itself)."""
        if key in self.flags:
            return ""
        return f"; split it or raise {key} in initializationOptions"

    def name(self, key: str) -> str:
        """An option as this front end spells it: ``options.blocks`` or ``--blocks``."""
        return self.flags.get(key, f"options.{key}")


PROTOCOL = Vocabulary(block_base=0)
CLI = Vocabulary(block_base=1, flags={
    "maxResponseBytes": "--max-response-bytes", "maxBlocks": "--max-blocks",
    "maxFileBytes": "--max-file-bytes", "maxBlockLines": "--max-block-lines",
    "blocks": "--blocks", "target": "--target"})


@dataclass
class EditOptions:
    """Options of a run, merged over the front end's defaults."""

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
    # The blocks to run (0-based, see .selection); None: every block.
    blocks: tuple[int, ...] | None = None
    # Change annotations ask the editor to confirm each block (needsConfirmation).
    confirm: bool = False
    # Response documents: each block that completes and validates is applied at once.
    apply_while_streaming: bool = False
    # The file every unnamed code fence is for: a workspace-relative path or a file: URI,
    # resolved (and refused outside the workspace) like any path when a run starts.
    target: str | None = None
    vocabulary: Vocabulary = PROTOCOL


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
            raise OptionsError(f"{name} must be an object, got {type(source).__name__}")
        merged.update({k: v for k, v in source.items() if v is not None})
    return merged


def format_set(names: Iterable[str]) -> set[str] | None:
    """Format names checked against the registry; an empty list means every format (a client
    forwarding an unset setting), None."""
    names = list(names)
    unknown = sorted(set(names) - set(FORMAT_NAMES))
    if unknown:
        raise OptionsError(
            f"unknown format(s) {', '.join(unknown)}; known formats: {', '.join(FORMAT_NAMES)}")
    return set(names) or None


def _formats(formats: Any) -> set[str] | None:
    if formats is None:
        return None
    if not isinstance(formats, list) or not all(isinstance(f, str) for f in formats):
        raise OptionsError("options.formats must be a list of format names")
    return format_set(formats)


def _matching(merged: dict[str, Any]) -> str:
    matching = merged.get("matching", "exact")
    if not isinstance(matching, str) or matching not in MATCHING_OPTIONS:
        allowed = " or ".join(repr(m) for m in MATCHING_OPTIONS)
        raise OptionsError(f"options.matching must be {allowed}, got {matching!r}")
    return matching


def _flag(merged: dict[str, Any], key: str) -> bool:
    value = merged.get(key, False)
    if not isinstance(value, bool):
        raise OptionsError(f"options.{key} must be true or false, got {value!r}")
    return value


def _limit(merged: dict[str, Any], key: str, default: int) -> int:
    limit = merged.get(key, default)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
        raise OptionsError(f"{key} must be a positive integer, got {limit!r}")
    return limit


def _timeout(merged: dict[str, Any]) -> float:
    timeout = merged.get("applyEditTimeout", DEFAULT_APPLY_EDIT_TIMEOUT)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not (
            0 < timeout < float("inf")):
        raise OptionsError(f"applyEditTimeout must be a positive number of seconds, "
                           f"got {timeout!r}")
    return float(timeout)


def _target(merged: dict[str, Any]) -> str | None:
    target = merged.get("target")
    if target is None:
        return None
    if not isinstance(target, str) or not target.strip():
        raise OptionsError(f"options.target must be a workspace path or a file: URI, "
                           f"got {target!r}")
    return target


def checked_block_list(value: Any) -> tuple[int, ...]:
    """``options.blocks``: a list of distinct non-negative integers (0-based block indices);
    ``OptionsError`` naming the first bad entry otherwise. Their range is checked against the
    response later (:func:`check_in_range`)."""
    if not isinstance(value, list):
        raise OptionsError(f"options.blocks must be a list of block indices, got "
                         f"{type(value).__name__}")
    seen: set[int] = set()
    for position, entry in enumerate(value):
        if not isinstance(entry, int) or isinstance(entry, bool):
            raise OptionsError(f"options.blocks[{position}] must be an integer block index, "
                             f"got {entry!r}")
        if entry < 0:
            raise OptionsError(f"options.blocks[{position}] is negative ({entry}); block "
                             "indices start at 0")
        if entry in seen:
            raise OptionsError(f"options.blocks[{position}] repeats block index {entry}")
        seen.add(entry)
    return tuple(value)


def parse_options(options: Any, defaults: Any = None, *,
                  vocabulary: Vocabulary = PROTOCOL) -> EditOptions:
    """Validate ``options`` (a run's own) over ``defaults`` (the front end's: the server's
    ``initializationOptions`` and settings). ``blocks`` and ``target`` are read from
    ``options`` only: they name blocks and files of one response.

    Raises :class:`OptionsError` with a message for the user on a wrong type or value.
    """
    merged = _merged(options, defaults)
    own = options if isinstance(options, dict) else {}
    result = EditOptions(matching=_matching(merged), formats=_formats(merged.get("formats")),
                         apply_edit_timeout=_timeout(merged), target=_target(own),
                         vocabulary=vocabulary)
    for key, attr in _FLAGS:
        setattr(result, attr, _flag(merged, key))
    for key, attr in _LIMITS:
        setattr(result, attr, _limit(merged, key, getattr(result, attr)))
    blocks = own.get("blocks")
    result.blocks = None if blocks is None else checked_block_list(blocks)
    return result


def check_response_size(text: str, options: EditOptions) -> None:
    """Refuse a response larger than ``maxResponseBytes`` UTF-8 bytes, saying so."""
    limit = options.max_response_bytes
    # Cheap bound first: a code point is at most 4 UTF-8 bytes.
    if len(text) * 4 <= limit:
        return
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        words = options.vocabulary
        raise OptionsError(f"the response is {size} bytes, more than "
                           f"{words.limit('maxResponseBytes', limit)}"
                           f"{words.raise_hint('maxResponseBytes')}")
