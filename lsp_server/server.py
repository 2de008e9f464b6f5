"""The language server: LSP glue around the engine (docs/protocol.md, docs/server.md).

Handlers are a few lines each and delegate: commands to :mod:`lsp_server.lsp.commands`,
buffers to :mod:`lsp_server.lsp.buffers`, quick fixes to :mod:`lsp_server.lsp.code_actions`.
What lives here is the session one editor connection needs (open buffers, recent runs,
published diagnostics, what the client can take) and the few LSP calls a run makes. Every
use of pygls internals is in :mod:`lsp_server.lsp.pygls_hooks`.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import logging
import os
import sys
import traceback
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from . import __version__
from .limits import DEFAULT_MAX_FILE_BYTES
from .lsp import commands
from .lsp.buffers import OpenBuffers
from .lsp.client_features import ClientFeatures, client_features
from .lsp.code_actions import code_actions
from .lsp.code_lens import code_lens_json
from .lsp.diagnostics import Diagnostics, PublishedDiagnostics
from .lsp.file_reader import FileReader
from .lsp.options import CommandError, EditOptions, parse_options
from .lsp.planning_hold import HELD, RELEASE, PlanningHold
from .lsp.pygls_hooks import EncodedJson, LlmEditsProtocol, NoAnswer, UnreadableAnswer
from .lsp.response_documents import ResponseDocuments
from .lsp.response_views import (
    ResponseView,
    answer,
    hover_json,
    links_json,
    response_view,
    symbols_json,
)
from .lsp.run_store import RunStore
from .lsp.shown import shown
from .lsp.transports import serve_stdio, serve_tcp
from .results import JsonObject

log = logging.getLogger(__name__)


class LlmEditsServer(LanguageServer):
    """One editor connection: its open buffers, recent runs and published diagnostics."""

    def __init__(self) -> None:
        super().__init__("llm-edits", __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=LlmEditsProtocol)
        self.buffers = OpenBuffers()
        self.runs = RunStore()
        self.diagnostics = PublishedDiagnostics(self._publish)
        self.default_options: dict[str, Any] = {}
        self.startup_warning: str | None = None
        self.planning_hold = PlanningHold()
        self.responses = ResponseDocuments(self)
        # Run ids: a per-session prefix (an id from an earlier server is unknown, not another
        # run) and a counter.
        self._run_prefix = uuid.uuid4().hex[:6]
        self._run_numbers = itertools.count(1)
        # Worked out once and reused while their inputs stay the same (see the properties).
        self._features: tuple[Any, Any, ClientFeatures] | None = None
        self._roots: tuple[tuple[str, ...], list[Path]] | None = None
        # Whether the client speaks of workspace folders (listed some at initialize, or
        # changed them since): then its folders are the workspace, and no folder is none;
        # else the initialize-time rootUri is.
        self.uses_folders = False

    # -- session facts

    @property
    def features(self) -> ClientFeatures:
        """What this client can take: read from its capabilities once (they are fixed at
        initialize; reading them costs more than converting a small run's edits)."""
        capabilities = self.client_capabilities
        encoding = self.workspace.position_encoding
        cached = self._features
        if cached is None or cached[0] is not capabilities or cached[1] != encoding:
            cached = self._features = (
                capabilities, encoding, client_features(capabilities, encoding))
        return cached[2]

    def roots(self) -> list[Path]:
        """The workspace folders as paths (worked out again when the folders change)."""
        uris = tuple(f.uri for f in self.workspace.folders.values())
        if not uris and not self.uses_folders and self.workspace.root_uri:
            uris = (self.workspace.root_uri,)
        if self._roots is None or self._roots[0] != uris:
            paths = [to_fs_path(uri) for uri in uris]
            # As the client spells them (not symlink-resolved): URIs of files read from disk
            # must be the ones the editor uses. Confinement resolves symlinks itself.
            self._roots = (uris, [Path(os.path.abspath(p)) for p in paths if p])
        return list(self._roots[1])

    def new_run_id(self) -> str:
        return f"{self._run_prefix}{next(self._run_numbers):06x}"

    @property
    def tracing(self) -> bool:
        """Whether the client asked for a trace (``trace`` at initialize or ``$/setTrace``:
        "messages" or "verbose"): then every command logs a one-line summary.

        Without one only errors and warnings are logged: a notification per command costs a
        small preview about a tenth of its time, and the client as much to read it.
        """
        return self.protocol.trace in (types.TraceValue.Messages, types.TraceValue.Verbose)

    def reader(self, options: EditOptions | None = None) -> FileReader:
        """The files a run starting now sees (a snapshot of the open buffers, else disk)."""
        limit = options.max_file_bytes if options is not None else DEFAULT_MAX_FILE_BYTES
        return FileReader(self.buffers.by_written_path(), limit)

    # -- what a run sends

    def log_message(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def _publish(self, uri: str, items: list[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items))

    def encode_publications(self, diagnostics: Diagnostics) -> dict[str, str]:
        """The ``textDocument/publishDiagnostics`` notifications of ``diagnostics`` encoded
        as JSON, by URI (done in a worker thread for a big run: ~0.1 ms per document)."""
        return {uri: self.protocol.encoded_notification(
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items))
            for uri, items in diagnostics.items()}

    def publish_encoded(self, encoded: dict[str, str]) -> Callable[[str, list], None]:
        """A ``send`` for :class:`PublishedDiagnostics` writing the notifications
        :meth:`encode_publications` made (any other document's the usual way)."""

        def send(uri: str, items: list[types.Diagnostic]) -> None:
            body = encoded.get(uri)
            if body is None:
                self._publish(uri, items)
            else:
                self.protocol.send_encoded(body)

        return send

    def refresh_code_lenses(self) -> None:
        """``workspace/codeLens/refresh`` (not waited for: the client asks for lenses)."""
        answer = self.protocol.send_request(types.WORKSPACE_CODE_LENS_REFRESH, None)
        answer.add_done_callback(lambda done: done.cancelled() or done.exception())

    def notify_planning_held(self) -> None:
        self.protocol.notify(HELD, {})

    async def begin_progress(self, title: str, message: str) -> str | None:
        """Show work-done progress; its token, or None if the client refused."""
        token = f"llm-edits-{uuid.uuid4().hex}"
        try:
            await self.work_done_progress.create_async(token)
        except Exception as exc:  # the client refused: work without a progress bar
            log.info("work done progress refused: %s", exc)
            return None
        self.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=title, message=message, cancellable=False))
        return token

    def end_progress(self, token: str) -> None:
        self.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))

    async def send_edit(self, edit: JsonObject, label: str,
                        timeout: float) -> tuple[bool, str | None]:
        """``workspace/applyEdit`` of an edit's JSON, waiting ``timeout`` seconds for the
        answer; returns (applied, failure reason)."""
        if not self.features.apply_edit:
            return False, "the client does not support workspace/applyEdit"
        try:
            # Sent as JSON (see pygls_hooks, _serialize_message): the same object as the
            # result's `edit`, not rebuilt as lsprotocol objects.
            answer = await self.protocol.send_request_within(
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
        return _apply_edit_outcome(answer)


def _apply_edit_outcome(answer: Any) -> tuple[bool, str | None]:
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


server = LlmEditsServer()

# ------------------------------------------------------------------ handlers


def _internal_error(ls: LlmEditsServer, name: str, exc: Exception) -> JsonRpcInternalError:
    trace = traceback.format_exc()
    log.error("%s failed:\n%s", name, trace)
    ls.log_message(f"{name} failed: {type(exc).__name__}: {exc}\n{trace}",
                   types.MessageType.Error)
    return JsonRpcInternalError(message=f"{name}: internal error: {type(exc).__name__}: {exc}",
                                data={"traceback": trace})


def command(name: str) -> Callable[[Callable[..., Awaitable[Any]]], Callable[..., Any]]:
    """Register an async command handler taking the single object argument.

    Any exception becomes an LSP error response (InvalidParams for a wrong call, InternalError
    otherwise) and a ``window/logMessage``; the server keeps serving.
    """

    def register(handler: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
        async def run(ls: LlmEditsServer, *args: Any) -> Any:
            try:
                return await handler(ls, args[0] if args else None)
            except CommandError as exc:
                ls.log_message(f"{name}: {exc}", types.MessageType.Error)
                raise JsonRpcInvalidParams(message=f"{name}: {exc}") from exc
            except JsonRpcException as exc:
                ls.log_message(f"{name}: {exc.message}", types.MessageType.Error)
                raise
            except Exception as exc:
                raise _internal_error(ls, name, exc) from exc

        run.__name__ = handler.__name__
        server.command(name)(run)
        return handler

    return register


@server.feature(types.INITIALIZE)
def initialize(ls: LlmEditsServer, params: types.InitializeParams) -> None:
    if params.trace is not None:  # pygls itself follows only $/setTrace
        ls.protocol.trace = params.trace
    ls.uses_folders = bool(params.workspace_folders)
    options = params.initialization_options
    try:
        parse_options(None, options)
        ls.default_options = dict(options or {})
    except ValueError as exc:
        ls.default_options = {}
        ls.startup_warning = f"initializationOptions ignored: {exc}"
        log.warning("%s", ls.startup_warning)


@server.feature(types.INITIALIZED)
def initialized(ls: LlmEditsServer, params: types.InitializedParams) -> None:
    ls.log_message(f"llm-edits {__version__}: position encoding {ls.features.encoding}, "
                   f"workspace {', '.join(shown(str(r)) for r in ls.roots()) or '(none)'}")
    if ls.startup_warning:
        ls.log_message(ls.startup_warning, types.MessageType.Warning)


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def did_change_workspace_folders(ls: LlmEditsServer,
                                 params: types.DidChangeWorkspaceFoldersParams) -> None:
    # pygls has updated ls.workspace.folders; with the last one removed there is no
    # workspace left (not the rootUri of initialize).
    ls.uses_folders = True


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: LlmEditsServer,
                             params: types.DidChangeConfigurationParams) -> None:
    warning = commands.change_configuration(ls, params.settings)
    if warning:
        ls.log_message(warning, types.MessageType.Warning)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LlmEditsServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.buffers.open(params.text_document)
    ls.responses.opened(params.text_document)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LlmEditsServer, params: types.DidChangeTextDocumentParams) -> None:
    start = ls.responses.change_start(params, ls.features.encoding)
    ls.buffers.change(params, ls.features.encoding)
    ls.responses.changed(params.text_document.uri, start)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: LlmEditsServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.buffers.close(params.text_document.uri)
    ls.responses.closed(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
async def code_lens(ls: LlmEditsServer, params: types.CodeLensParams) -> EncodedJson:
    live = await ls.responses.current(params.text_document.uri)
    return EncodedJson("[]" if live is None else code_lens_json(live))


async def _response_view(ls: LlmEditsServer, uri: str) -> ResponseView | None:
    live = await ls.responses.current(uri)
    return None if live is None else response_view(live, ls.features.encoding)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbol(ls: LlmEditsServer, params: types.DocumentSymbolParams) -> EncodedJson:
    view = await _response_view(ls, params.text_document.uri)
    return await answer(view, symbols_json, default="[]")


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def block_hover(ls: LlmEditsServer, params: types.HoverParams) -> EncodedJson:
    view = await _response_view(ls, params.text_document.uri)
    # Its diff plans the block's file again (a file may have many blocks): off the loop.
    return await answer(view, hover_json, params.position, default="null", inline=False)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK,
                types.DocumentLinkOptions(resolve_provider=False))
async def document_link(ls: LlmEditsServer, params: types.DocumentLinkParams) -> EncodedJson:
    view = await _response_view(ls, params.text_document.uri)
    return await answer(view, links_json, default="[]")


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
def code_action(ls: LlmEditsServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    return code_actions(params, ls.diagnostics.shown(), ls.runs)


@command("llmEdits.parse")
async def parse(ls: LlmEditsServer, argument: Any) -> JsonObject | EncodedJson:
    return await commands.parse_command(ls, argument)


@command("llmEdits.preview")
async def preview(ls: LlmEditsServer, argument: Any) -> JsonObject | EncodedJson:
    return await commands.run_edits(ls, argument, apply=False)


@command("llmEdits.apply")
async def apply(ls: LlmEditsServer, argument: Any) -> JsonObject | EncodedJson:
    return await commands.run_edits(ls, argument, apply=True)


@command("llmEdits.applyFix")
async def apply_fix(ls: LlmEditsServer, argument: Any) -> JsonObject | EncodedJson:
    return await commands.apply_fix(ls, argument)


@command("llmEdits.feedback")
async def feedback(ls: LlmEditsServer, argument: Any) -> JsonObject:
    return await commands.feedback(ls, argument)


@command("llmEdits.copyFeedback")
async def copy_feedback(ls: LlmEditsServer, argument: Any) -> JsonObject:
    return await commands.copy_feedback(ls, argument)


@command("llmEdits.instructions")
async def instructions(ls: LlmEditsServer, argument: Any) -> JsonObject:
    return commands.instructions(argument)


@command("llmEdits.watch")
async def watch(ls: LlmEditsServer, argument: Any) -> JsonObject:
    return ls.responses.watch(commands.document_uri(argument, "llmEdits.watch"))


@command("llmEdits.unwatch")
async def unwatch(ls: LlmEditsServer, argument: Any) -> JsonObject:
    return ls.responses.unwatch(commands.document_uri(argument, "llmEdits.unwatch"))


@command("llmEdits.clear")
async def clear(ls: LlmEditsServer, argument: Any) -> None:
    ls.diagnostics.clear()
    if ls.tracing:
        ls.log_message("llmEdits.clear: diagnostics cleared")


if server.planning_hold.enabled:  # a test hook (lsp/planning_hold.py)

    @server.feature(RELEASE)
    def release_planning(ls: LlmEditsServer, params: Any) -> None:
        ls.planning_hold.release()


# ------------------------------------------------------------------ entry point


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m lsp_server",
        description="LLM Edits language server (stdio by default).")
    parser.add_argument("--version", action="version", version=f"llm-edits {__version__}")
    parser.add_argument("--stdio", action="store_true", help="speak LSP over stdio (default)")
    parser.add_argument("--tcp", action="store_true", help="listen on TCP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (default 2087)")
    parser.add_argument("--log-file", help="write the server's log to this file")
    parser.add_argument("--log-level", default="INFO",
                        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="log level for --log-file (stderr gets warnings only)")
    args = parser.parse_args(argv)
    if args.log_file:
        logging.basicConfig(filename=args.log_file, filemode="a", level=args.log_level,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    else:
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                            format="%(levelname)s %(name)s: %(message)s")
    # What the imports made lives as long as the server: keep it out of every garbage
    # collection (a full one walked ~55,000 such objects: 50 ms on a busy machine).
    gc.freeze()
    # A plan makes ~1M short-lived objects with almost no cycles; at the default young-generation
    # threshold (700) the collector walks them hundreds of times per large preview. The library
    # never touches gc: this process-wide setting is the server's (1,000 blocks over 200 x 5,000
    # lines, parse + plan CPU: 215 ms at the default, 162 ms at 50,000, 164 ms with gc disabled).
    gc.set_threshold(50_000, 20, 100)
    if args.tcp:
        serve_tcp(server, args.host, args.port)
    else:
        serve_stdio(server)
