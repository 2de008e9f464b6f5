"""The LSP calls the server makes to the editor, over one pygls connection.

What the client can take (:class:`ClientFeatures`, read from its capabilities once), the
workspace folders as paths, and the messages a run sends: ``workspace/applyEdit``,
``textDocument/publishDiagnostics`` (also encoded in advance for big runs), work-done
progress, ``window/logMessage``, ``workspace/codeLens/refresh`` and the planning-hold test
notification. The rest of ``lsp/`` reaches the editor only through this class (held by
:class:`lsp_server.lsp.editor.Editor`), never through the server object.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from ...results import JsonObject
from .client_features import ClientFeatures, client_features
from .planning_hold import HELD
from .pygls_hooks import LlmEditsProtocol, NoAnswer, UnreadableAnswer

log = logging.getLogger(__name__)


class LspClient:
    """The editor at the other end of one connection, as the server's parts talk to it."""

    def __init__(self, server: LanguageServer) -> None:
        self._server = server
        # Worked out once and reused while their inputs stay the same (see the properties).
        self._features: tuple[Any, Any, ClientFeatures] | None = None
        self._roots: tuple[tuple[str, ...], list[Path]] | None = None
        # Whether the client speaks of workspace folders (listed some at initialize, or
        # changed them since): then its folders are the workspace, and no folder is none;
        # else the initialize-time rootUri is.
        self.uses_folders = False

    @property
    def _protocol(self) -> LlmEditsProtocol:
        protocol = self._server.protocol
        assert isinstance(protocol, LlmEditsProtocol)
        return protocol

    # -- what the client is

    @property
    def features(self) -> ClientFeatures:
        """What this client can take: read from its capabilities once (they are fixed at
        initialize; reading them costs more than converting a small run's edits)."""
        capabilities = self._server.client_capabilities
        encoding = self._server.workspace.position_encoding
        cached = self._features
        if cached is None or cached[0] is not capabilities or cached[1] != encoding:
            cached = self._features = (
                capabilities, encoding, client_features(capabilities, encoding))
        return cached[2]

    def roots(self) -> list[Path]:
        """The workspace folders as paths (worked out again when the folders change)."""
        workspace = self._server.workspace
        uris = tuple(f.uri for f in workspace.folders.values())
        if not uris and not self.uses_folders and workspace.root_uri:
            uris = (workspace.root_uri,)
        if self._roots is None or self._roots[0] != uris:
            paths = [to_fs_path(uri) for uri in uris]
            # As the client spells them (not symlink-resolved): URIs of files read from disk
            # must be the ones the editor uses. Confinement resolves symlinks itself.
            self._roots = (uris, [Path(os.path.abspath(p)) for p in paths if p])
        return list(self._roots[1])

    @property
    def tracing(self) -> bool:
        """Whether the client asked for a trace (``trace`` at initialize or ``$/setTrace``:
        "messages" or "verbose"): then every command logs a one-line summary.

        Without one only errors and warnings are logged: a notification per command costs a
        small preview about a tenth of its time, and the client as much to read it.
        """
        return self._protocol.trace in (types.TraceValue.Messages, types.TraceValue.Verbose)

    # -- what a run sends

    def log_message(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self._server.window_log_message(types.LogMessageParams(type=kind, message=message))

    def publish(self, uri: str, items: list[types.Diagnostic]) -> None:
        self._server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items))

    def encode_publications(self, diagnostics: dict[str, list[types.Diagnostic]]
                            ) -> dict[str, str]:
        """The ``textDocument/publishDiagnostics`` notifications of ``diagnostics`` encoded
        as JSON, by URI (done in a worker thread for a big run: ~0.1 ms per document)."""
        return {uri: self._protocol.encoded_notification(
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items))
            for uri, items in diagnostics.items()}

    def publish_encoded(self, encoded: dict[str, str]) -> Callable[[str, list], None]:
        """A ``send`` for ``PublishedDiagnostics`` writing the notifications
        :meth:`encode_publications` made (any other document's the usual way)."""

        def send(uri: str, items: list[types.Diagnostic]) -> None:
            body = encoded.get(uri)
            if body is None:
                self.publish(uri, items)
            else:
                self._protocol.send_encoded(body)

        return send

    def refresh_code_lenses(self) -> None:
        """``workspace/codeLens/refresh`` (not waited for: the client asks for lenses)."""
        answer = self._protocol.send_request(types.WORKSPACE_CODE_LENS_REFRESH, None)
        answer.add_done_callback(lambda done: done.cancelled() or done.exception())

    def notify_planning_held(self) -> None:
        self._protocol.notify(HELD, {})

    async def begin_progress(self, title: str, message: str) -> str | None:
        """Show work-done progress; its token, or None if the client refused."""
        token = f"llm-edits-{uuid.uuid4().hex}"
        progress = self._server.work_done_progress
        try:
            await progress.create_async(token)
        except Exception as exc:  # the client refused: work without a progress bar
            log.info("work done progress refused: %s", exc)
            return None
        progress.begin(token, types.WorkDoneProgressBegin(
            title=title, message=message, cancellable=False))
        return token

    def end_progress(self, token: str) -> None:
        self._server.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))

    async def send_edit(self, edit: JsonObject, label: str,
                        timeout: float) -> tuple[bool, str | None]:
        """``workspace/applyEdit`` of an edit's JSON, waiting ``timeout`` seconds for the
        answer; returns (applied, failure reason)."""
        if not self.features.apply_edit:
            return False, "the client does not support workspace/applyEdit"
        try:
            # Sent as JSON (see pygls_hooks, _serialize_message): the same object as the
            # result's `edit`, not rebuilt as lsprotocol objects.
            answer = await self._protocol.send_request_within(
                types.WORKSPACE_APPLY_EDIT, {"edit": edit, "label": label}, timeout)
        except NoAnswer:
            return False, (f"the editor did not answer workspace/applyEdit within {timeout:g} s "
                           "(applyEditTimeout); it may still apply the edit: check the files "
                           "before running again")
        except UnreadableAnswer as exc:
            return False, (f"the editor's answer to workspace/applyEdit could not be read "
                           f"({exc}); whether it applied the edit is unknown: check the files "
                           "before running again")
        except JsonRpcException as exc:
            return False, f"the editor answered workspace/applyEdit with an error: {exc.message}"
        return apply_edit_outcome(answer)


def apply_edit_outcome(answer: Any) -> tuple[bool, str | None]:
    """(applied, failure reason) from the editor's answer to workspace/applyEdit, as JSON
    (``{"applied": bool, "failureReason"?: string}``; anything else is not an answer)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("applied"), bool):
        shown = json.dumps(answer)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        return False, (f"the editor's answer to workspace/applyEdit could not be read "
                       f"({shown}); whether it applied the edit is unknown: check the files "
                       "before running again")
    if answer["applied"]:
        return True, None
    reason = answer.get("failureReason")
    return False, reason if isinstance(reason, str) and reason else (
        "the editor refused the edit (a file changed since it was computed?)")
