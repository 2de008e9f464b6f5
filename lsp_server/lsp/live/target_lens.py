"""The lens **Apply to `<file>`** on each code fence of a response document that names no file
(docs/protocol.md, "Response documents"): the fence applied to the file of the editor the user
was last in, which the client tells the server with ``llmEdits.lastEditor``.

The lens runs ``llmEdits.apply`` with ``responseUri``, ``options.target`` (that file) and
``options.blocks``: the index the fence has in the parse *with* a target. With any target,
every unnamed code fence outside other blocks is a block, so that index is the number of
blocks of the parse without target that start above the fence plus the unnamed fences above
it; no second parse is needed. A lens names its file in its title and argument: clicked after
the user moved to another editor, it still applies to the file it says.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pygls.uris import to_fs_path

from ...model import Block, ParseResult
from ...parsing import normalize_response
from ...parsing.code_block import unnamed_fence_lines
from ...parsing.marker_scan import scan_markers
from ...results import JsonObject
from ...workspace import resolve_path
from ..errors import CommandError
from ..protocol.shown import shown

if TYPE_CHECKING:
    from .state import ResponseDocument

APPLY = "llmEdits.apply"


@dataclass
class LastEditor:
    """The file (its URI) of the editor the user was last in, as the client said, and how
    it is shown in a lens title (workspace-relative)."""

    uri: str | None = None
    name: str = ""


def fence_block_indexes(text: str, parsed: ParseResult) -> list[tuple[int, int]]:
    """``(fence line, block index with a target)`` of each unnamed code fence of ``text``
    (the response as ``parsed`` was read from it) outside ``parsed``'s blocks."""
    text = normalize_response(text)
    lines = text.split("\n")
    fences = unnamed_fence_lines(text, lines, scan_markers(text))
    if not fences:
        return []
    blocks = parsed.blocks
    starts = [block.response_line for block in blocks]
    out: list[tuple[int, int]] = []
    for line in fences:
        if _inside_a_block(blocks, starts, line):
            continue  # another format's text (its old or new lines): that block's
        out.append((line, bisect_left(starts, line) + len(out)))
    return out


def _inside_a_block(blocks: list[Block], starts: list[int], line: int) -> bool:
    i = bisect_right(starts, line) - 1
    return i >= 0 and blocks[i].response_line <= line < blocks[i].end_line


def target_lenses(uri: str, text: str, parsed: ParseResult, last: LastEditor) -> list[JsonObject]:
    """The **Apply to `<file>`** lenses of a response document (none without a last
    editor)."""
    if last.uri is None:
        return []
    title = f"Apply to {shown(last.name)}"
    return [_lens(line, title, [{"responseUri": uri,
                                 "options": {"target": last.uri, "blocks": [index]}}])
            for line, index in fence_block_indexes(text, parsed)]


def _lens(line: int, title: str, arguments: list) -> JsonObject:
    position = {"line": line, "character": 0}
    return {"range": {"start": position, "end": position},
            "command": {"title": title, "command": APPLY, "arguments": arguments}}


def with_target_lenses(lenses_json: str, lenses: list[JsonObject]) -> str:
    """A codeLens answer (JSON text of a list) with ``lenses`` added."""
    if not lenses:
        return lenses_json
    extra = json.dumps(lenses)[1:-1]
    return f"[{extra}]" if lenses_json.strip() == "[]" else f"{lenses_json[:-1]},{extra}]"


def set_last_editor(last: LastEditor, argument: object, roots: list[Path],
                    is_response: Callable[[str], bool]) -> bool:
    """``llmEdits.lastEditor``'s argument ``{"uri": U}`` (or ``{"uri": null}``: none) into
    ``last``; whether it changed. A response document is never a target (ignored); a
    file outside the workspace gives no lens (the run would refuse it)."""
    uri = argument.get("uri") if isinstance(argument, dict) else None
    if uri is not None and not isinstance(uri, str):
        raise CommandError(f'expected {{"uri": "file:///..."}} or {{"uri": null}}, got '
                           f"{argument!r}")
    name = _workspace_name(uri, roots) if uri and not is_response(uri) else None
    new = LastEditor(uri if name else None, name or "")
    if new == last:
        return False
    last.uri, last.name = new.uri, new.name
    return True


def _workspace_name(uri: str, roots: list[Path]) -> str | None:
    """The workspace-relative path of a ``file:`` URI (None outside every root)."""
    fs_path = to_fs_path(uri) if uri.startswith("file:") else None
    if not fs_path:
        return None
    path, _ = resolve_path(fs_path, roots)
    if path is None:
        return None
    inside = [root for root in roots if path.is_relative_to(root)]
    return path.relative_to(max(inside, key=lambda r: len(r.parts))).as_posix() if inside else None


def response_document_target(target: str | None, roots: list[Path],
                             documents: Iterable[ResponseDocument]) -> str | None:
    """The URI of the response document ``options.target`` names, if it names one: an answer
    is never applied to a response (its text would be merged into the answer itself)."""
    if not target:
        return None
    fs_path = to_fs_path(target) if target.startswith("file:") else target
    path, _ = resolve_path(fs_path, roots) if fs_path else (None, None)
    if path is None:
        return None
    for live in documents:
        document = to_fs_path(live.uri) if live.uri.startswith("file:") else None
        if document and Path(document).resolve() == path.resolve():
            return live.uri
    return None
