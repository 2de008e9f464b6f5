"""The language server: LSP glue around the engine (docs/protocol.md, docs/server.md).

Handlers are a few lines each and delegate: requests to :mod:`lsp_server.lsp.requests`
(one module per command family), response documents to :mod:`lsp_server.lsp.live`, open
buffers to :mod:`lsp_server.lsp.buffers`. They hand those parts the narrow
:class:`~lsp_server.lsp.editor.Editor` (buffers, runs, diagnostics, the client's features,
roots and the LSP calls a run makes), never this server object: nothing under ``lsp/``
imports this module. Every use of pygls internals is in
:mod:`lsp_server.lsp.protocol.pygls_hooks`.
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
import traceback
from collections.abc import Awaitable, Callable
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from . import __version__
from .lsp.agents import AgentEndpoint
from .lsp.editor import Editor
from .lsp.errors import CommandError
from .lsp.live.documents import ResponseDocuments
from .lsp.live.lens_resolve import resolve_lens_command
from .lsp.live.target_lens import LastEditor, set_last_editor, target_lenses, with_target_lenses
from .lsp.live.views import ResponseView, answer, hover_json, links_json, symbols_json
from .lsp.protocol.client import LspClient
from .lsp.protocol.planning_hold import RELEASE
from .lsp.protocol.pygls_hooks import EncodedJson, LlmEditsProtocol
from .lsp.protocol.shown import shown
from .lsp.protocol.transports import serve_stdio, serve_tcp
from .lsp.requests import configuration, edits, fixes
from .lsp.requests import feedback as feedback_requests
from .lsp.requests.code_actions import code_actions
from .results import JsonObject
from .session.options import OptionsError, parse_options

log = logging.getLogger(__name__)


class LlmEditsServer(LanguageServer):
    """One editor connection: the pygls server, the :class:`Editor` its requests take (open
    buffers, recent runs, published diagnostics, the client) and its response documents."""

    def __init__(self) -> None:
        super().__init__("llm-edits", __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=LlmEditsProtocol)
        self.editor = Editor(LspClient(self))
        self.responses = ResponseDocuments(self.editor)
        self.agents = AgentEndpoint(self.editor)  # MCP for agents, while the setting is on
        self.last_editor = LastEditor()  # llmEdits.lastEditor: the target of fence lenses
        self.startup_warning: str | None = None


server = LlmEditsServer()

# ------------------------------------------------------------------ handlers


def _internal_error(ls: LlmEditsServer, name: str, exc: Exception) -> JsonRpcInternalError:
    trace = traceback.format_exc()
    log.error("%s failed:\n%s", name, trace)
    ls.editor.log_message(f"{name} failed: {type(exc).__name__}: {exc}\n{trace}",
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
                ls.editor.log_message(f"{name}: {exc}", types.MessageType.Error)
                raise JsonRpcInvalidParams(message=f"{name}: {exc}") from exc
            except JsonRpcException as exc:
                ls.editor.log_message(f"{name}: {exc.message}", types.MessageType.Error)
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
    ls.editor.client.uses_folders = bool(params.workspace_folders)
    options = params.initialization_options
    try:
        parse_options(None, options)
        ls.editor.default_options = dict(options or {})
    except OptionsError as exc:
        ls.editor.default_options = {}
        ls.startup_warning = f"initializationOptions ignored: {exc}"
        log.warning("%s", ls.startup_warning)


@server.feature(types.INITIALIZED)
def initialized(ls: LlmEditsServer, params: types.InitializedParams) -> None:
    editor = ls.editor
    editor.log_message(f"llm-edits {__version__}: position encoding {editor.features.encoding}, "
                       f"workspace {', '.join(shown(str(r)) for r in editor.roots()) or '(none)'}")
    if ls.startup_warning:
        editor.log_message(ls.startup_warning, types.MessageType.Warning)
    ls.agents.settings_changed()


@server.feature(types.SHUTDOWN)
async def shutdown(ls: LlmEditsServer, params: Any) -> None:
    await ls.agents.stop()  # the agents' endpoint closes before the process ends


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def did_change_workspace_folders(ls: LlmEditsServer,
                                 params: types.DidChangeWorkspaceFoldersParams) -> None:
    # pygls has updated ls.workspace.folders; with the last one removed there is no
    # workspace left (not the rootUri of initialize).
    ls.editor.client.uses_folders = True


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: LlmEditsServer,
                             params: types.DidChangeConfigurationParams) -> None:
    warning = configuration.change_configuration(ls.editor, ls.responses, params.settings)
    if warning:
        ls.editor.log_message(warning, types.MessageType.Warning)
    ls.agents.settings_changed()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LlmEditsServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.editor.buffers.open(params.text_document)
    ls.responses.opened(params.text_document)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LlmEditsServer, params: types.DidChangeTextDocumentParams) -> None:
    encoding = ls.editor.features.encoding
    start = ls.responses.change_start(params, encoding)
    ls.editor.buffers.change(params, encoding)
    ls.responses.changed(params.text_document.uri, start)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: LlmEditsServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.editor.buffers.close(params.text_document.uri)
    ls.responses.closed(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
async def code_lens(ls: LlmEditsServer, params: types.CodeLensParams) -> EncodedJson:
    live = await ls.responses.current(params.text_document.uri)
    if live is None:
        return EncodedJson("[]")
    fences = target_lenses(live.uri, live.text, live.parsed, ls.last_editor)
    return EncodedJson(with_target_lenses(live.lenses_json(), fences))


@server.feature(types.CODE_LENS_RESOLVE)
async def code_lens_resolve(ls: LlmEditsServer, params: types.CodeLens) -> types.CodeLens:
    command = await resolve_lens_command(ls.responses, params.data)
    if command is not None:
        params.command = types.Command(title=command["title"], command=command["command"],
                                       arguments=command.get("arguments"))
    return params


async def _response_view(ls: LlmEditsServer, uri: str) -> ResponseView | None:
    live = await ls.responses.current(uri)
    return None if live is None else live.view(ls.editor.features.encoding)


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
    return code_actions(params, ls.editor.diagnostics.shown(), ls.editor.runs)


@command("llmEdits.parse")
async def parse(ls: LlmEditsServer, argument: Any) -> JsonObject | EncodedJson:
    return await edits.parse_command(ls.editor, argument)


@command("llmEdits.preview")
async def preview(ls: LlmEditsServer, argument: Any) -> JsonObject | EncodedJson:
    return await edits.run_edits(ls.editor, ls.responses, argument, apply=False)


@command("llmEdits.apply")
async def apply(ls: LlmEditsServer, argument: Any) -> JsonObject | EncodedJson:
    return await edits.run_edits(ls.editor, ls.responses, argument, apply=True)


@command("llmEdits.applyFix")
async def apply_fix(ls: LlmEditsServer, argument: Any) -> JsonObject | EncodedJson:
    return await fixes.apply_fix(ls.editor, argument)


@command("llmEdits.feedback")
async def feedback(ls: LlmEditsServer, argument: Any) -> JsonObject:
    return await feedback_requests.feedback(ls.editor, argument)


@command("llmEdits.copyFeedback")
async def copy_feedback(ls: LlmEditsServer, argument: Any) -> JsonObject:
    return await feedback_requests.copy_feedback(ls.editor, argument)


@command("llmEdits.instructions")
async def instructions(ls: LlmEditsServer, argument: Any) -> JsonObject:
    return configuration.instructions(argument)


@command("llmEdits.watch")
async def watch(ls: LlmEditsServer, argument: Any) -> JsonObject:
    return ls.responses.watch(configuration.document_uri(argument, "llmEdits.watch"))


@command("llmEdits.unwatch")
async def unwatch(ls: LlmEditsServer, argument: Any) -> JsonObject:
    return ls.responses.unwatch(configuration.document_uri(argument, "llmEdits.unwatch"))


@command("llmEdits.mcpEndpoint")
async def mcp_endpoint(ls: LlmEditsServer, argument: Any) -> JsonObject:
    return await ls.agents.endpoint_command(argument)


@command("llmEdits.lastEditor")
async def last_editor(ls: LlmEditsServer, argument: Any) -> None:
    changed = set_last_editor(ls.last_editor, argument, ls.editor.roots(),
                              lambda uri: ls.responses.state(uri) is not None)
    if changed and ls.editor.features.code_lens_refresh and any(ls.responses):
        ls.editor.client.refresh_code_lenses()  # the fences' "Apply to" lenses name it


@command("llmEdits.clear")
async def clear(ls: LlmEditsServer, argument: Any) -> None:
    ls.editor.diagnostics.clear()
    if ls.editor.tracing:
        ls.editor.log_message("llmEdits.clear: diagnostics cleared")


if server.editor.planning_hold.enabled:  # a test hook (lsp/planning_hold.py)

    @server.feature(RELEASE)
    def release_planning(ls: LlmEditsServer, params: Any) -> None:
        ls.editor.planning_hold.release()


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
