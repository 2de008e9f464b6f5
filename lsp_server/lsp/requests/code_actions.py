"""Quick fixes offered on the server's own diagnostics (``textDocument/codeAction``).

Each fix is a command (``llmEdits.applyFix``, ``llmEdits.copyFeedback``) naming the run and
block that the diagnostic's ``data`` carries; the run must still be kept (:mod:`.run_store`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote

from lsprotocol import types

from ...ambiguity import candidate_lines
from ..protocol.diagnostics import CODE_FAILED, SOURCE, Diagnostics
from ..protocol.positions import ranges_overlap
from ..run_store import RunStore
from .arguments import CommandError


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
    ref = block_ref(diagnostic)
    actions: list[types.CodeAction] = []
    if ref is None:
        return actions
    block = {"runId": ref[0], "index": ref[1]}
    if fixes.get("matching") == "whitespace":
        actions.append(_action("Apply with whitespace tolerance", diagnostic,
                               "llmEdits.applyFix", {**block, "fix": "whitespace"},
                               preferred=True))
    closest = fixes.get("closest_line", fixes.get("closestLine"))
    if isinstance(closest, int):
        # Editors number lines from 1 for people; the result's fields stay 0-based.
        actions.append(_action(f"Apply at closest match (line {closest + 1})", diagnostic,
                               "llmEdits.applyFix", {**block, "fix": "closest"}))
    for line in candidate_lines(fixes):  # an ambiguous block: one fix per place it matches
        actions.append(_action(f"Apply block {ref[1] + 1} at line {line + 1}", diagnostic,
                               "llmEdits.applyFix", {**block, "fix": "at", "line": line + 1}))
    if diagnostic.code == CODE_FAILED:
        actions.append(_action("Copy retry feedback for the model", diagnostic,
                               "llmEdits.copyFeedback", block))
    return actions


def block_ref(diagnostic: types.Diagnostic) -> tuple[str, int] | None:
    """The run and block one of our diagnostics names in its ``data`` (None: it names none).

    Diagnostics come back in the client's requests, so ``data`` may hold anything: only a
    string run id and an integer index (not a bool) name a block.
    """
    data = diagnostic.data
    if not isinstance(data, dict):
        return None
    run_id, index = data.get("runId"), data.get("index")
    if not isinstance(run_id, str) or not isinstance(index, int) or isinstance(index, bool):
        return None
    return run_id, index


def _wants_quick_fixes(only: Iterable[Any] | None) -> bool:
    return not only or any(str(kind).startswith(types.CodeActionKind.QuickFix) for kind in only)


def _candidates(params: types.CodeActionParams,
                published: Diagnostics) -> list[types.Diagnostic]:
    """Ours under the requested range, and ours the client sends back in the context."""
    key = unquote(params.text_document.uri)
    ours = [d for uri, items in published.items() if unquote(uri) == key for d in items]
    candidates = [d for d in ours if ranges_overlap(d.range, params.range)]
    return candidates + [d for d in params.context.diagnostics
                         if d.source == SOURCE and isinstance(d.data, dict)]


def _block_fixes(ref: tuple[str, int], runs: RunStore) -> dict[str, Any] | None:
    """The fixes of the block a diagnostic names (None: its run or block is gone)."""
    run_id, index = ref
    run = runs.find(run_id)
    if run is None:
        return None
    try:
        return run.block(index).fixes or {}
    except CommandError:
        return None


def code_actions(params: types.CodeActionParams, published: Diagnostics,
                 runs: RunStore) -> list[types.CodeAction]:
    """Quick fixes for our diagnostics under the requested range (published by us, or sent
    back by the client in the request's context), once per run, block and code."""
    if not _wants_quick_fixes(params.context.only):
        return []
    actions: list[types.CodeAction] = []
    seen: set[tuple[str, int, Any]] = set()
    for diagnostic in _candidates(params, published):
        ref = block_ref(diagnostic)
        if ref is None:
            continue
        ident = (*ref, diagnostic.code)
        fixes = None if ident in seen else _block_fixes(ref, runs)
        if fixes is not None:
            seen.add(ident)
            actions += fix_code_actions(diagnostic, fixes)
    return actions
