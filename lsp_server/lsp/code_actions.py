"""Quick fixes offered on the server's own diagnostics (``textDocument/codeAction``).

Each fix is a command (``llmEdits.applyFix``, ``llmEdits.copyFeedback``) naming the run and
block that the diagnostic's ``data`` carries; the run must still be kept (:mod:`.run_store`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote

from lsprotocol import types

from .diagnostics import CODE_FAILED, SOURCE, Diagnostics
from .options import CommandError
from .positions import ranges_overlap
from .run_store import RunStore


def _action(title: str, diagnostic: types.Diagnostic, command: str, argument: dict[str, Any],
            preferred: bool | None = None) -> types.CodeAction:
    return types.CodeAction(
        title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
        is_preferred=preferred,
        command=types.Command(title=title, command=command, arguments=[argument]))


def fix_code_actions(
    diagnostic: types.Diagnostic, fixes: dict[str, Any]
) -> list[types.CodeAction]:
    """Quick fixes offered on one of our diagnostics (``fixes`` from its block result)."""
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    run_id, index = data.get("runId"), data.get("index")
    actions: list[types.CodeAction] = []
    if run_id is None or index is None:
        return actions
    block = {"runId": run_id, "index": index}
    if fixes.get("matching") == "whitespace":
        actions.append(_action("Apply with whitespace tolerance", diagnostic,
                               "llmEdits.applyFix", {**block, "fix": "whitespace"},
                               preferred=True))
    closest = fixes.get("closest_line", fixes.get("closestLine"))
    if isinstance(closest, int):
        # Editors number lines from 1 for people; the result's fields stay 0-based.
        actions.append(_action(f"Apply at closest match (line {closest + 1})", diagnostic,
                               "llmEdits.applyFix", {**block, "fix": "closest"}))
    if diagnostic.code == CODE_FAILED:
        actions.append(_action("Copy retry feedback for the model", diagnostic,
                               "llmEdits.copyFeedback", block))
    return actions


def _wants_quick_fixes(only: Iterable[Any] | None) -> bool:
    return not only or any(str(kind).startswith(types.CodeActionKind.QuickFix) for kind in only)


def code_actions(params: types.CodeActionParams, published: Diagnostics,
                 runs: RunStore) -> list[types.CodeAction]:
    """Quick fixes for our diagnostics under the requested range (published by us, or sent
    back by the client in the request's context)."""
    if not _wants_quick_fixes(params.context.only):
        return []
    key = unquote(params.text_document.uri)
    ours = [d for uri, items in published.items() if unquote(uri) == key for d in items]
    candidates = [d for d in ours if ranges_overlap(d.range, params.range)]
    candidates += [d for d in params.context.diagnostics
                   if d.source == SOURCE and isinstance(d.data, dict)]
    actions: list[types.CodeAction] = []
    seen: set[tuple[Any, Any, Any]] = set()
    for diagnostic in candidates:
        data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
        ident = (data.get("runId"), data.get("index"), diagnostic.code)
        run = runs.find(data.get("runId"))
        if ident in seen or run is None or not isinstance(data.get("index"), int):
            continue
        seen.add(ident)
        try:
            block = run.block(data["index"])
        except CommandError:
            continue
        actions += fix_code_actions(diagnostic, block.fixes or {})
    return actions
