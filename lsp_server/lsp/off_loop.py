"""What a command does on the event loop, and what it hands to a worker thread.

The event loop reads every message of the connection: while it works on one command, the
others (and didChange) wait. Work that is small for sure is done on it (handing it to a
thread and back costs more: about 1 ms of CPU for a 5-block preview on a busy machine);
anything that can take long goes to a worker thread: parsing a response over
:data:`INLINE_MAX_CHARS`, planning unless the response, its blocks and the files they name
are all small, converting a plan of many blocks or changes into the edit, the diagnostics
and the result, and encoding such a result as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ..model import FileEdit, ParseResult, PlanResult
from ..results import JsonObject
from .file_reader import FileReader
from .protocol.pygls_hooks import EncodedJson

# Small enough to plan on the event loop: at most this much response text, this many
# blocks, and this much text in the files the blocks name (planning reads and indexes each
# file: ~30 ms per MB on a busy machine).
INLINE_MAX_CHARS = 64 * 1024
INLINE_MAX_BLOCKS = 10
INLINE_MAX_FILE_CHARS = 1024 * 1024
# and at most this many hunks in all: a 64 KiB response holds thousands of tiny hunks in one
# block, each a search of its file (3,000 bare "@@" hunks on a 1 MiB file: seconds).
INLINE_MAX_HUNKS = 200
# Small enough to convert and encode on the event loop: a plan of at most this many blocks
# and changes, with at most this many text edits, on files of at most INLINE_MAX_FILE_CHARS.
INLINE_MAX_CHANGES = 10
INLINE_MAX_EDITS = 200

T = TypeVar("T")


def _named_paths(parsed: ParseResult, roots: list[Path]) -> set[Path]:
    """Where the blocks' paths may lead (as written, under each folder): an estimate."""
    names = {name for block in parsed.blocks for name in (block.file, block.move_to) if name}
    paths: set[Path] = set()
    for name in names:
        if os.path.isabs(name):
            paths.add(Path(name))
        else:
            paths.update(root / name for root in roots)
    return paths


def _file_chars(path: Path, reader: FileReader) -> int:
    try:
        buffer = reader.buffer(path)
        return len(buffer.text) if buffer is not None else os.stat(path).st_size
    except (OSError, ValueError):  # missing, or not a path the system takes: nothing read
        return 0


def plans_inline(text: str, parsed: ParseResult, reader: FileReader, roots: list[Path],
                 read_before: Callable[[Path], bool] | None = None) -> bool:
    """Whether planning this response is small for sure (see the limits above).
    ``read_before(path)``: the planner holds that file already (read and indexed by an
    earlier part of the plan: it costs nothing more, and is not looked up again)."""
    if len(text) > INLINE_MAX_CHARS or len(parsed.blocks) > INLINE_MAX_BLOCKS:
        return False
    if sum(len(block.hunks) for block in parsed.blocks if block.hunks) > INLINE_MAX_HUNKS:
        return False
    total = 0
    for path in _named_paths(parsed, roots):
        if read_before is not None and read_before(path):
            continue
        total += _file_chars(path, reader)
        if total > INLINE_MAX_FILE_CHARS:
            return False
    return True


def converts_inline(plan: PlanResult, reader: FileReader) -> bool:
    """Whether turning ``plan`` into its edit, diagnostics and result is small for sure (it
    reads the lines of the files the run read, ``reader``'s)."""
    if len(plan.blocks) > INLINE_MAX_BLOCKS or len(plan.changes) > INLINE_MAX_CHANGES:
        return False
    if reader.chars_read > INLINE_MAX_FILE_CHARS:
        return False
    edits = sum(len(c.edits) for c in plan.changes if isinstance(c, FileEdit))
    return edits <= INLINE_MAX_EDITS


async def off_loop(inline: bool, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)``, here or (``inline`` false) in a worker thread."""
    if inline:
        return function(*args, **kwargs)
    return await asyncio.to_thread(function, *args, **kwargs)


async def encoded(result: JsonObject, inline: bool) -> JsonObject | EncodedJson:
    """A command's result as the server sends it: a big one encoded in a worker thread
    (its JSON can be megabytes: ~100 ms to encode on the event loop)."""
    if inline:
        return result
    return EncodedJson(await asyncio.to_thread(json.dumps, result))
