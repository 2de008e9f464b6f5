"""``codeLens/resolve`` of a response document's block lenses (:mod:`.code_lens`).

A block's lens arrives unresolved: ``data`` is ``[document id, block key, kind]`` (the
document's run id, :func:`~.code_lens.lens_block_key`, status or Preview). Resolving it
finds the block by its key in the document's current validation and gives the lens its
title and command. A lens whose block is gone or changed since the list was sent (the
editor resolves a lens of an older list) gets ``⋯ changed`` with no command: the editor
asks for the new list (a refresh follows every change of the lenses).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Any

from ...model import Block
from ...results import JsonObject
from .code_lens import PREVIEW_LENS, STATUS, block_lens_command, lens_block_key

if TYPE_CHECKING:
    from .documents import ResponseDocuments

CHANGED = "⋯ changed"


def lens_reference(data: Any) -> tuple[str, str, int] | None:
    """``(document id, block key, kind)`` of a block lens's ``data``; None if it is not."""
    if not (isinstance(data, list) and len(data) == 3):
        return None
    document_id, key, kind = data
    if not (isinstance(document_id, str) and isinstance(key, str)
            and kind in (STATUS, PREVIEW_LENS) and not isinstance(kind, bool)):
        return None
    return document_id, key, kind


def find_block(blocks: list[Block], key: str) -> Block | None:
    """The block whose lens key is ``key`` (blocks stand in response order)."""
    line = key.split("-", 1)[0]
    if not line.isdigit():
        return None
    at = bisect_left(blocks, int(line), key=lambda block: block.response_line)
    for block in blocks[at:at + 2]:  # blocks starting on one line: rare, next to it
        if lens_block_key(block) == key:
            return block
    return None


async def resolve_lens_command(documents: ResponseDocuments, data: Any) -> JsonObject | None:
    """The command of the lens ``data`` names (the document's current validation), or
    None when ``data`` names no block lens (the lens is returned as it came)."""
    reference = lens_reference(data)
    if reference is None:
        return None
    document_id, key, kind = reference
    live = documents.by_run_id(document_id)
    if live is not None:
        live = await documents.current(live.uri)
    if live is None:
        return {"title": CHANGED, "command": ""}
    blocks = live.validated_parse.blocks[:len(live.results)]
    block = find_block(blocks, key)
    if block is None:
        return {"title": CHANGED, "command": ""}
    return block_lens_command(live.uri, block, live.results[block.index], kind)
