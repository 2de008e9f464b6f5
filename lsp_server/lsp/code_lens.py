"""Code lenses of a response document: each block's state where it starts, "Apply all" at
the top (docs/protocol.md, "Response documents").

Per block, at its first response line: its status as the title, whose command applies that
block alone, and "Preview" (the same block, previewed). A block still being written has one
lens, ``⋯ writing``, with no command (``command: ""``: nothing to apply yet). At line 0:
"Apply all N ready blocks" (N: the validated ones), applying the whole response.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..model import BlockResult, ParseResult, ParseWarning
from .shown import shown

if TYPE_CHECKING:
    from .response_documents import LiveResponse


def pending_warnings(parsed: ParseResult) -> list[ParseWarning]:
    """The warnings of blocks started but not closed at the end of the text: blocks being
    written, in a response document."""
    return [w for w in parsed.warnings if w.pending]

APPLY, PREVIEW = "llmEdits.apply", "llmEdits.preview"
REASON_CHARS = 80  # a failure's reason is cut to this many characters in its title


def _where(result: BlockResult) -> str:
    file = shown(result.file)
    return file if result.line is None else f"{file}:{result.line + 1}"


def _reason(result: BlockResult) -> str:
    reason = (result.reason or "failed").split("\n", 1)[0]
    return reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS - 1] + "…"


def status_title(result: BlockResult) -> str:
    """A block's lens title: ``✓ src/app.py:42``, ``✗ <reason> — closest line 57``,
    ``⊘ skipped``, ``= already applied``, ``✓ applied src/app.py:42`` (lines 1-based)."""
    status = result.status
    if status == "validated":
        return f"✓ {_where(result)}"
    if status == "applied":
        return f"✓ applied {_where(result)}"
    if status == "failed":
        closest = (result.fixes or {}).get("closestLine", (result.fixes or {}).get(
            "closest_line"))
        tail = f" — closest line {closest + 1}" if isinstance(closest, int) else ""
        return f"✗ {_reason(result)}{tail}"
    if status == "already-applied":
        return "= already applied"
    if status == "skipped":
        return "⊘ skipped"
    return status


WRITING = "⋯ writing"


def _lens(line: int, title: str, command: str, arguments: list | None) -> types.CodeLens:
    position = types.Position(line=line, character=0)
    return types.CodeLens(range=types.Range(start=position, end=position),
                          command=types.Command(title=title, command=command,
                                                arguments=arguments))


def lens_titles(live: LiveResponse) -> tuple[tuple[int, str], ...]:
    """The lenses' lines and titles (what a refresh is sent for when it changes)."""
    return tuple((lens.range.start.line, lens.command.title) for lens in code_lenses(live)
                 if lens.command is not None)


def code_lenses(live: LiveResponse) -> list[types.CodeLens]:
    """The lenses of a validated response document."""
    uri = live.uri
    results = live.results
    blocks = live.validated_parse.blocks
    lenses: list[types.CodeLens] = []
    ready = 0
    for block, result in zip(blocks, results, strict=False):
        ready += result.status == "validated"
        argument = [{"responseUri": uri, "options": {"blocks": [block.index]}}]
        lenses.append(_lens(block.response_line, status_title(result), APPLY, argument))
        lenses.append(_lens(block.response_line, "Preview", PREVIEW, argument))
    for warning in pending_warnings(live.validated_parse):
        lenses.append(_lens(warning.response_line, WRITING, "", None))
    if lenses:
        lenses.insert(0, _lens(0, f"Apply all {ready} ready blocks", APPLY,
                               [{"responseUri": uri}]))
    return lenses
