"""A run's results as diagnostics, and the diagnostics currently published.

- a failed block: Error on its target file at its estimated line, ``code`` "failed", with
  ``relatedInformation`` pointing at the block in the response document when the response
  came from one (and the client shows related information); a block whose path was refused
  has no target file and is reported on the response document instead;
- a block that matched only tolerantly: Warning at its line, ``code`` "whitespace-match";
- a block already applied (its new text is in the file): Information at its line, ``code``
  "already-applied";
- a parse warning (malformed, unclosed, no path, ...): Warning on the response document,
  ``code`` "malformed-block".

Every diagnostic carries ``data: {"runId", "index"}`` (index null for parse warnings): code
actions and fixes find their run and block from it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

from ...matching import TOLERANT_LEVELS, level_named
from ...model import BlockResult, ParseWarning, PlanResult
from ...results import UriFor
from .client_features import ClientFeatures
from .positions import TextLines, line_range
from .workspace_edit import OK_STATUSES

SOURCE = "llm-edits"
CODE_FAILED = "failed"
CODE_WHITESPACE = "whitespace-match"
CODE_MALFORMED = "malformed-block"
CODE_ALREADY_APPLIED = "already-applied"
# Match kinds that found the text only by tolerating differences.
TOLERANT_MATCHES = TOLERANT_LEVELS

Diagnostics = dict[str, list[types.Diagnostic]]  # by document URI


def diagnostic_message(block: BlockResult) -> str:
    """A failed block's reason followed by its hint (how to fix, did you mean)."""
    message = block.reason or "failed"
    if block.hint:
        message += "\n" + block.hint
    return message


def _tolerance_words(match: str | None) -> str:
    return level_named(match).tolerates if match in TOLERANT_LEVELS else "differences"


class _RunDiagnostics:
    """Builds one run's diagnostics; each file's text is split into lines once."""

    def __init__(self, run_id: str, features: ClientFeatures, uri_for: UriFor,
                 text_for: Callable[[Path], str | None], response_uri: str | None,
                 response_text: str | None) -> None:
        self.run_id = run_id
        self.features = features
        self.encoding = features.encoding
        self.uri_for = uri_for
        self.text_for = text_for
        self.response_uri = response_uri
        self.response_lines = TextLines(response_text) if response_text is not None else None
        self.texts: dict[Path, TextLines | None] = {}
        self.out: Diagnostics = {}

    def file_lines(self, path: Path) -> TextLines | None:
        if path not in self.texts:
            text = self.text_for(path)
            self.texts[path] = TextLines(text) if text is not None else None
        return self.texts[path]

    def response_location(self, response_line: int) -> types.Location | None:
        if self.response_uri is None:
            return None
        return types.Location(uri=self.response_uri, range=line_range(
            self.response_lines, response_line, self.encoding))

    def add(self, uri: str, diagnostic: types.Diagnostic) -> None:
        self.out.setdefault(uri, []).append(diagnostic)

    def failed(self, block: BlockResult, data: dict[str, Any]) -> None:
        location = self.response_location(block.response_line)
        if block.path is not None:
            related = None
            if location is not None and self.features.related_information:
                related = [types.DiagnosticRelatedInformation(
                    location=location,
                    message=f"block {block.index + 1} of the response ({block.format})")]
            self.add(self.uri_for(block.path), types.Diagnostic(
                range=line_range(self.file_lines(block.path), block.line or 0, self.encoding),
                message=diagnostic_message(block), severity=types.DiagnosticSeverity.Error,
                code=CODE_FAILED, source=SOURCE, related_information=related, data=data))
        elif location is not None:
            self.add(location.uri, types.Diagnostic(
                range=location.range, message=f"{block.file}: {diagnostic_message(block)}",
                severity=types.DiagnosticSeverity.Error, code=CODE_FAILED, source=SOURCE,
                data=data))

    def tolerant(self, block: BlockResult, path: Path, line: int, data: dict[str, Any]) -> None:
        self.add(self.uri_for(path), types.Diagnostic(
            range=line_range(self.file_lines(path), line, self.encoding),
            message=(f"block {block.index + 1} matched only by ignoring "
                     f"{_tolerance_words(block.match)}; check the result"),
            severity=types.DiagnosticSeverity.Warning, code=CODE_WHITESPACE, source=SOURCE,
            data=data))

    def already_applied(self, block: BlockResult, path: Path, line: int,
                        data: dict[str, Any]) -> None:
        self.add(self.uri_for(path), types.Diagnostic(
            range=line_range(self.file_lines(path), line, self.encoding),
            message=(f"block {block.index + 1} is already applied: its new text is here; "
                     "nothing to do"),
            severity=types.DiagnosticSeverity.Information, code=CODE_ALREADY_APPLIED,
            source=SOURCE, data=data))

    def block(self, block: BlockResult) -> None:
        data = {"runId": self.run_id, "index": block.index}
        if block.status == "failed":
            self.failed(block, data)
        elif block.status == "already-applied" and block.path is not None:
            self.already_applied(block, block.path, block.line or 0, data)
        elif (block.status in OK_STATUSES and block.match in TOLERANT_MATCHES
              and block.path is not None and block.line is not None):
            self.tolerant(block, block.path, block.line, data)


def plan_diagnostics(
    plan: PlanResult,
    run_id: str,
    features: ClientFeatures,
    uri_for: UriFor,
    text_for: Callable[[Path], str | None],
    response_uri: str | None = None,
    response_text: str | None = None,
) -> Diagnostics:
    """Diagnostics for one run, by URI (see the module's docstring for which).

    ``text_for(path)`` gives the file's text as the client shows it (for whole-line ranges).
    """
    run = _RunDiagnostics(run_id, features, uri_for, text_for, response_uri, response_text)
    for block in plan.blocks:
        run.block(block)
    if response_uri is not None:
        for warning in plan.warnings:
            run.add(response_uri, warning_diagnostic(
                warning, run_id, run.response_lines, features.encoding))
    return run.out


def response_block_diagnostics(
    blocks: list[BlockResult], run_id: str, response_lines: TextLines, encoding: str,
) -> list[types.Diagnostic]:
    """Failed blocks on the response document itself, at each block's first line (a
    response document shows where each failure comes from). A block whose path was refused
    is reported there by :func:`plan_diagnostics` already."""
    return [types.Diagnostic(
        range=line_range(response_lines, block.response_line, encoding),
        message=f"block {block.index + 1} ({block.file}): {diagnostic_message(block)}",
        severity=types.DiagnosticSeverity.Error, code=CODE_FAILED, source=SOURCE,
        data={"runId": run_id, "index": block.index})
        for block in blocks if block.status == "failed" and block.path is not None]


def warning_diagnostic(
    warning: ParseWarning, run_id: str | None, response_text: str | TextLines | None,
    encoding: str,
) -> types.Diagnostic:
    """A parse warning as a diagnostic on the response document.

    For several warnings of one response, pass its :class:`TextLines` (split once).
    """
    return types.Diagnostic(
        range=line_range(response_text, warning.response_line, encoding),
        message=warning.message,
        severity=types.DiagnosticSeverity.Warning,
        code=CODE_MALFORMED,
        source=SOURCE,
        data={"runId": run_id, "index": None},
    )


def _of_block(diagnostic: types.Diagnostic, run_id: str, index: int) -> bool:
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    return data.get("runId") == run_id and data.get("index") == index


class PublishedDiagnostics:
    """The diagnostics the client shows now, by URI (only non-empty lists are kept).

    Two layers: the last run's (``by_uri``: a new run replaces them) and each response
    document's live validation (:meth:`publish_live`, replaced by its next validation). A
    document is sent both together. ``send(uri, items)`` publishes one document's list
    (``textDocument/publishDiagnostics``).
    """

    def __init__(self, send: Callable[[str, list[types.Diagnostic]], None]) -> None:
        self._send = send
        self.by_uri: Diagnostics = {}
        self._live: dict[str, Diagnostics] = {}  # by response document, then by URI

    def _live_items(self, uri: str) -> list[types.Diagnostic]:
        return [d for layer in self._live.values() for d in layer.get(uri, ())]

    def _send_both(self, uri: str, items: list[types.Diagnostic]) -> None:
        self._send(uri, items + self._live_items(uri) if self._live else items)

    def shown(self) -> Diagnostics:
        """Every diagnostic shown now, both layers, by URI."""
        if not self._live:
            return self.by_uri
        out = {uri: list(items) for uri, items in self.by_uri.items()}
        for layer in self._live.values():
            for uri, items in layer.items():
                out.setdefault(uri, []).extend(items)
        return out

    def live_layer(self, owner: str) -> Diagnostics | None:
        """A response document's live diagnostics as published (None: it has none now);
        the same object until they are published again or cleared."""
        return self._live.get(owner)

    def publish_live(self, owner: str, diagnostics: Diagnostics) -> bool:
        """A response document's live diagnostics (``{}``: it has none now); only the
        documents whose list changed are sent. Whether any changed."""
        before = self._live.pop(owner, {})
        now = {uri: items for uri, items in diagnostics.items() if items}
        if now:
            self._live[owner] = now
        changed = False
        for uri in set(before) | set(now):
            if before.get(uri) != now.get(uri):
                self._send_both(uri, self.by_uri.get(uri, []))
                changed = True
        return changed

    def publish_run(self, diagnostics: Diagnostics,
                    send: Callable[[str, list[types.Diagnostic]], None] | None = None) -> None:
        """A new run's diagnostics; URIs published before and not now are emptied.
        ``send`` instead of the usual one (a big run's, encoded in advance)."""
        send = send or self._send
        for uri in set(self.by_uri) - set(diagnostics):
            self._send_both(uri, [])
        for uri, items in diagnostics.items():
            if self._live and self._live_items(uri):
                self._send_both(uri, items)
            else:
                send(uri, items)
        self.by_uri = {uri: items for uri, items in diagnostics.items() if items}

    def publish_uri(self, uri: str, items: list[types.Diagnostic]) -> None:
        """Replace the (run's) diagnostics of one document only."""
        self._send_both(uri, items)
        if items:
            self.by_uri[uri] = items
        else:
            self.by_uri.pop(uri, None)

    def replace_block(self, run_id: str, index: int, new: Diagnostics) -> None:
        """Replace one block's diagnostics (after a fix), leaving the rest of its run's."""
        touched = set(new)
        for uri, items in self.by_uri.items():
            if any(_of_block(d, run_id, index) for d in items):
                touched.add(uri)
        for uri in touched:
            kept = [d for d in self.by_uri.get(uri, []) if not _of_block(d, run_id, index)]
            kept += [d for d in new.get(uri, []) if _of_block(d, run_id, index)]
            self.publish_uri(uri, kept)

    def clear(self) -> None:
        """Clear both layers (a response document's come back with its next validation)."""
        for owner in list(self._live):
            self.publish_live(owner, {})
        for uri in list(self.by_uri):
            self.publish_uri(uri, [])
