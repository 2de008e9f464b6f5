"""The language server: LSP glue around the engine (CONTRACT.md, docs/commands.md, docs/server.md).

Handlers stay short and delegate: parsing and planning to the engine (``parsing``,
``planning``), conversions to and from LSP objects to :mod:`lsp_server.lsp_convert`, retry
text to :mod:`lsp_server.feedback`, format instructions to :mod:`lsp_server.instructions`.
What lives here is the state one editor session needs: open buffers, the recent runs (for
code actions and feedback), and the diagnostics currently published.

Open buffers are tracked by the server itself from didOpen/didChange/didClose, applying
changes with LSP's line rules (pygls's own copy splits lines like ``str.splitlines``, which
also breaks at form feeds and U+2028, rewrites didChange params while doing so, and its
``get_text_document`` silently reads disk for a URI that is not open; see
:class:`LlmEditsProtocol`). Files that are not open are read from disk.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import gc
import itertools
import logging
import os
import stat
import sys
import threading
import traceback
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import (
    JsonRPCResponseMessage,
    RPCNotification,
    RPCRequest,
    RPCResponse,
)
from pygls.protocol.language_server import lsp_method
from pygls.uris import from_fs_path, to_fs_path

from . import __version__
from . import lsp_convert as conv
from .feedback import build_feedback
from .instructions import FORMAT_NAMES, format_instructions
from .model import FileEdit, FileSnapshot, ParseResult, PlanResult, text_to_lines
from .parsing import block_text_fields, parse_response
from .planning import plan_edits
from .textdoc import PreparedText
from .workspace import DEFAULT_MAX_FILE_BYTES, read_disk_file

log = logging.getLogger(__name__)

# Work-done progress is shown for runs at least this big (small runs finish in milliseconds).
PROGRESS_MIN_BLOCKS = 20
PROGRESS_MIN_CHARS = 512 * 1024
RUNS_KEPT = 32  # recent runs remembered for code actions, applyFix and copyFeedback
RUNS_MAX_CHARS = 64 * 1024 * 1024  # and at most this much response text among them
BINARY_SNIFF_CHARS = 8192
# Runs this small are parsed and planned on the event loop: handing them to a worker thread
# and back costs more than the work (about 1 ms CPU of a 5-block preview on a busy machine).
# Bigger runs go to a thread so the server keeps reading messages meanwhile.
INLINE_MAX_CHARS = 64 * 1024
INLINE_MAX_BLOCKS = 10


class CommandError(Exception):
    """A command was called wrongly (bad arguments, unknown run): an InvalidParams error."""


# ------------------------------------------------------------------ open buffers


@dataclass
class Buffer:
    uri: str  # as the client sent it (edits for this document reuse it)
    text: str
    version: int | None
    # This text's parse and line index, reused by every run while the buffer is unchanged
    # (built lazily by the planner; dropped on didChange/didClose and past the memory cap).
    prepared: PreparedText | None = None
    # The file path as written in the URI (None for untitled: and other non-file documents),
    # worked out once at didOpen: every run looks buffers up by path.
    path: Path | None = None
    # conv.line_count(text), counted when an edit of this text is first converted (dropped
    # with the text): converting positions needs it, and counting costs more than the rest.
    line_count: int | None = None


# Text of open buffers whose parse is kept between runs, in characters: the parse (lines,
# joined copy, offsets) costs about 2-3x the text; least recently used parses go first.
PREPARED_MAX_CHARS = 64 * 1024 * 1024


class OpenBuffers:
    """Text and version of every open document, kept from didOpen/didChange/didClose.

    Also the parses of buffer texts that runs made (:meth:`keep_parses`), for later runs,
    within ``prepared_max_chars`` of text.
    """

    def __init__(self, prepared_max_chars: int = PREPARED_MAX_CHARS) -> None:
        self._docs: dict[str, Buffer] = {}
        self._prepared_max_chars = prepared_max_chars
        self._prepared: OrderedDict[str, int] = OrderedDict()  # key -> text length, LRU first
        self._prepared_chars = 0
        self._prepared_used: dict[str, int] = {}  # key -> the last run that used its parse
        self._runs_kept = itertools.count(1)

    def _drop_prepared(self, key: str) -> None:
        size = self._prepared.pop(key, None)
        if size is not None:
            self._prepared_chars -= size
        self._prepared_used.pop(key, None)
        buffer = self._docs.get(key)
        if buffer is not None:
            buffer.prepared = None

    def keep_parses(self, read: Iterable[Buffer]) -> None:
        """After a run: keep the parses of the buffer texts it read, for the next runs.

        ``read`` are the run's snapshot copies (:attr:`FileReader.read_buffers`); a parse is
        kept only while its buffer still holds that very text. Past the cap, parses that
        this run did not use go first (least recently used first); those it used stay and a
        new one is then not kept. So a run reading more text than the cap re-parses the same
        part each time instead of evicting, in turn, every parse it is about to need.
        """
        run = next(self._runs_kept)
        made: list[tuple[str, Buffer, PreparedText]] = []
        for snapshot in read:
            key = self._key(snapshot.uri)
            live = self._docs.get(key)
            if snapshot.prepared is None or live is None or live.text is not snapshot.text:
                continue  # closed or changed since the run started
            if live.prepared is snapshot.prepared:
                self._prepared.move_to_end(key)
                self._prepared_used[key] = run
            elif live.prepared is None:
                made.append((key, live, snapshot.prepared))
        for key, live, prepared in made:
            size = len(live.text)
            while self._prepared and self._prepared_chars + size > self._prepared_max_chars:
                oldest = next(iter(self._prepared))
                if self._prepared_used.get(oldest) == run:
                    break
                self._drop_prepared(oldest)
            if self._prepared_chars + size > self._prepared_max_chars:
                continue  # this run's alone
            live.prepared = prepared
            self._prepared[key] = size
            self._prepared_chars += size
            self._prepared_used[key] = run

    @staticmethod
    def _key(uri: str) -> str:
        return unquote(uri)  # clients differ in what they percent-encode

    def open(self, item: types.TextDocumentItem) -> None:
        key = self._key(item.uri)
        self._drop_prepared(key)
        fs_path = to_fs_path(item.uri)
        self._docs[key] = Buffer(item.uri, item.text, item.version,
                                 path=Path(fs_path) if fs_path is not None else None)

    def change(self, params: types.DidChangeTextDocumentParams, encoding: str) -> None:
        buffer = self._docs.get(self._key(params.text_document.uri))
        if buffer is None:
            log.warning("didChange for a document that is not open: %s", params.text_document.uri)
            return
        self._drop_prepared(self._key(params.text_document.uri))  # describes the old text
        buffer.line_count = None
        for change in params.content_changes:
            buffer.text = conv.apply_content_change(buffer.text, change, encoding)
        buffer.version = params.text_document.version

    def close(self, uri: str) -> None:
        self._drop_prepared(self._key(uri))
        self._docs.pop(self._key(uri), None)

    def get(self, uri: str) -> Buffer | None:
        return self._docs.get(self._key(uri))

    def text_lines(self, uri: str, text: str) -> conv.TextLines:
        """``text``'s LSP lines; if it is the open buffer's very text (not merely equal:
        the buffer may have changed meanwhile), with the line count kept for that text."""
        buffer = self._docs.get(self._key(uri))
        if buffer is None or buffer.text is not text:
            return conv.TextLines(text)
        if buffer.line_count is None:
            buffer.line_count = conv.line_count(text)
        return conv.TextLines(text, buffer.line_count)

    def by_written_path(self) -> dict[Path, Buffer]:
        """A snapshot of the open file buffers by path as written in the URI
        (:class:`FileReader` resolves symlinks only when a lookup misses).

        Copies, not the live buffers: the planner reads them in a worker thread while
        didChange goes on, and reading a live buffer could pair an old text with a newer
        version (an edit the editor would then apply to other text)."""
        out: dict[Path, Buffer] = {}
        for buffer in self._docs.values():
            if buffer.path is None:
                continue  # untitled: and other non-file documents hold no workspace file
            # The copy carries the parse kept for its own text, if any (the planner also
            # checks that the parse's text is this very string before using it).
            out[buffer.path] = Buffer(buffer.uri, buffer.text, buffer.version,
                                      buffer.prepared, buffer.path)
        return out

    def by_path(self) -> dict[Path, Buffer]:
        """Open file buffers by path (as written in the URI and with symlinks resolved)."""
        out = self.by_written_path()
        for path, buffer in list(out.items()):
            out.setdefault(Path(os.path.realpath(path)), buffer)
        return out


class FileReader:
    """The files one run sees: buffers as they were when the command started, else disk.

    A buffer is found by its path as written, else with symlinks resolved on both sides
    (resolved only when a lookup misses: ``realpath`` of every buffer costs more than a
    small run). Called by the planner (possibly in a worker thread: it only reads its own
    snapshot).
    """

    def __init__(self, buffers: dict[Path, Buffer],
                 max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self._buffers = buffers
        self.max_file_bytes = max_file_bytes
        self._resolved: dict[Path, Buffer] | None = None  # by symlink-resolved path
        self._misses: dict[Path, Buffer | None] = {}
        self._cache: dict[Path, FileSnapshot] = {}
        self._uris: dict[Path, str] = {}
        # The buffers this run read as text (by identity), each with the parse the planner
        # uses: the one kept for its text, else one made now (OpenBuffers.keep_parses).
        self._read: dict[int, Buffer] = {}

    def buffer(self, path: Path) -> Buffer | None:
        found = self._buffers.get(path)
        if found is not None:
            return found
        if path not in self._misses:
            if self._resolved is None:
                self._resolved = {}
                for buffer_path, buffer in self._buffers.items():
                    self._resolved.setdefault(Path(os.path.realpath(buffer_path)), buffer)
            self._misses[path] = self._resolved.get(Path(os.path.realpath(path)))
        return self._misses[path]

    def __call__(self, path: Path) -> FileSnapshot:
        snapshot = self._cache.get(path)
        if snapshot is None:
            buffer = self.buffer(path)
            if buffer is not None:
                binary = "\x00" in buffer.text[:BINARY_SNIFF_CHARS]
                size = _utf8_size_over(buffer.text, self.max_file_bytes)
                if size is not None:
                    snapshot = FileSnapshot(text=None, version=buffer.version, error=(
                        f"the open buffer is {size} bytes, over the {self.max_file_bytes}-byte "
                        "limit (maxFileBytes); not edited"))
                elif binary:
                    snapshot = FileSnapshot(text=buffer.text, version=buffer.version,
                                            binary=True)
                else:
                    if buffer.prepared is None:  # the snapshot copy: this run's own
                        buffer.prepared = PreparedText(buffer.text)
                    self._read[id(buffer)] = buffer  # several paths may name one buffer
                    snapshot = FileSnapshot(text=buffer.text, version=buffer.version,
                                            prepared=buffer.prepared)
            else:
                snapshot = read_disk_file(path, self.max_file_bytes)
            self._cache[path] = snapshot
        return snapshot

    @property
    def read_buffers(self) -> list[Buffer]:
        """The snapshot copies of the buffers read as text so far, with their parses."""
        return list(self._read.values())

    def client_text(self, path: Path) -> str | None:
        """The text as the editor shows it: a buffer verbatim, a disk file without its BOM."""
        text = self(path).text
        if text is not None and self.buffer(path) is None and text.startswith(conv.BOM):
            text = text[1:]
        return text

    def lines(self, path: Path) -> list[str] | None:
        text = self.client_text(path)
        return None if text is None else text_to_lines(text.removeprefix(conv.BOM))

    def uri_for(self, path: Path) -> str:
        uri = self._uris.get(path)
        if uri is None:  # asked several times per file and run (edit, blocks, diagnostics)
            buffer = self.buffer(path)
            uri = self._uris[path] = (buffer.uri if buffer is not None
                                      else from_fs_path(str(path)))
        return uri

    def bom_buffers(self) -> set[Path]:
        """Paths (as written and resolved) of buffers whose text starts with U+FEFF."""
        paths = {path for path, b in self._buffers.items() if b.text.startswith(conv.BOM)}
        return paths | {Path(os.path.realpath(path)) for path in paths}


# ------------------------------------------------------------------ runs


@dataclass
class EditRequest:
    text: str
    response_uri: str | None
    options: conv.EditOptions

    @property
    def source_name(self) -> str:
        """How the label names the response: its file name, or "response"."""
        if self.response_uri:
            name = unquote(self.response_uri.rstrip("/").rsplit("/", 1)[-1])
            return name or "response"
        return "response"


@dataclass
class Run:
    """One preview/apply, kept so fixes and feedback re-plan the same response."""

    run_id: str
    request: EditRequest
    plan: PlanResult

    def block(self, index: int) -> Any:
        for block in self.plan.blocks:
            if block.index == index:
                return block
        raise CommandError(f"run {self.run_id} has no block {index}")


class RunStore:
    """The most recent runs, oldest dropped first.

    Bounded by count and by the size of the responses held (each may be up to
    maxResponseBytes); the newest run is always kept.
    """

    def __init__(self, limit: int = RUNS_KEPT, max_chars: int = RUNS_MAX_CHARS) -> None:
        self._runs: OrderedDict[str, Run] = OrderedDict()
        self._limit = limit
        self._max_chars = max_chars
        self._held_chars = 0  # response text held by the kept runs

    def add(self, run: Run) -> None:
        replaced = self._runs.pop(run.run_id, None)
        if replaced is not None:
            self._held_chars -= len(replaced.request.text)
        self._runs[run.run_id] = run
        self._held_chars += len(run.request.text)
        while len(self._runs) > 1 and (len(self._runs) > self._limit
                                       or self._held_chars > self._max_chars):
            _, dropped = self._runs.popitem(last=False)
            self._held_chars -= len(dropped.request.text)

    def get(self, run_id: str) -> Run:
        run = self._runs.get(run_id)
        if run is None:
            raise CommandError(
                f"unknown runId {run_id!r} (only the last {self._limit} runs are kept); "
                "run llmEdits.preview again")
        return run

    def find(self, run_id: Any) -> Run | None:
        return self._runs.get(run_id) if isinstance(run_id, str) else None


# ------------------------------------------------------------------ the server


class LlmEditsProtocol(LanguageServerProtocol):
    """pygls's protocol, minus its own copy of the open documents.

    pygls applies didChange to its copy before calling our handler, splitting lines like
    ``str.splitlines`` (a form feed or U+2028 starts a new line for it, not for an editor),
    and while converting a column past the end of what it thinks is the line it *rewrites the
    incoming params* in place, so our handler would receive a corrupted range. The server
    keeps the buffers itself (:class:`OpenBuffers`); these builtins only pass the
    notifications on.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The tasks of the commands running now ($/cancelRequest leaves them be).
        self._started_commands: set[asyncio.Task[Any]] = set()

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    async def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams) -> Any:
        """Call a command's handler with the arguments as sent.

        Every command handler takes them as they come (``run(ls, *args)``, see
        :func:`command`); pygls's own preparation would read the handler's signature and type
        hints on every call (a tenth of a small preview's CPU). A coroutine rather than
        pygls's generator builtin: one task per command, without the generator's second
        handler call, its future and callbacks (5% of a small preview's CPU).
        """
        handler = self.fm.commands.get(params.command)
        if handler is None:
            raise JsonRpcInvalidParams.of(
                ValueError(f"Command name {params.command!r} is not defined"))
        task = asyncio.current_task()
        self._started_commands.add(task)
        try:
            return await handler(*(params.arguments or ()))
        finally:
            self._started_commands.discard(task)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        """``$/cancelRequest``: a command that has not started is cancelled; one that has
        runs to its end and answers as usual.

        Stopping a command midway could leave an edit applied by the editor and not
        recorded as a run (an apply awaits the editor's answer to workspace/applyEdit).
        """
        if self._request_futures.get(msg_id) in self._started_commands:
            log.info("cancel of request %s ignored: the command is already running", msg_id)
            return
        super()._handle_cancel_notification(msg_id)

    def handle_message(self, message: Any) -> None:
        """pygls's dispatch, telling requests from notifications and responses once per
        message class rather than per message.

        pygls asks ``isinstance`` of its runtime-checkable protocols (``RPCRequest`` ...),
        which looks every attribute up again each time: more than parsing the message did.
        The message classes are attrs classes whose instances always carry all their fields,
        so the answer holds for the class. Anything else goes to pygls as it is.
        """
        kind = _MESSAGE_KINDS.get(type(message))
        if kind is None:
            if not hasattr(type(message), "__attrs_attrs__"):
                super().handle_message(message)
                return
            kind = _MESSAGE_KINDS[type(message)] = _message_kind(message)
        if (kind != "request" or message.jsonrpc != self.VERSION
                or (self._shutdown and message.method != types.EXIT)):
            super().handle_message(message)  # pygls's own checks, logging and dispatch
            return
        contextvars.copy_context().run(
            self._handle_request, message.id, message.method, message.params)

    def _serialize_message(self, data: Any) -> Any:
        """pygls's ``json.dumps`` hook, minus cattrs' walk of a command's result.

        A command's result is a JSON-ready dict (:func:`lsp_convert.result_dict`), yet
        cattrs would copy it element by element before encoding (on a big preview as costly
        as planning, and a second copy of the result in memory). Anything ``json`` cannot
        encode itself still comes back here and goes to the converter.
        """
        if type(data) is JsonRPCResponseMessage and isinstance(data.result, dict):
            return {"id": data.id, "result": data.result, "jsonrpc": data.jsonrpc}
        # workspace/applyEdit with the edit's JSON (the very object the result carries).
        if type(data) is types.ApplyWorkspaceEditRequest and isinstance(data.params, dict):
            return {"id": data.id, "params": data.params, "method": data.method,
                    "jsonrpc": data.jsonrpc}
        return super()._serialize_message(data)


# Message class -> which of pygls's message kinds it is (LlmEditsProtocol.handle_message).
_MESSAGE_KINDS: dict[type, str] = {}


def _message_kind(message: Any) -> str:
    """As pygls's ``handle_message`` tells them apart, in the same order."""
    if isinstance(message, RPCRequest):
        return "request"
    if isinstance(message, RPCNotification):
        return "notification"
    return "response" if isinstance(message, RPCResponse) else "error"


class LlmEditsServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("llm-edits", __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=LlmEditsProtocol)
        self.buffers = OpenBuffers()
        self.runs = RunStore()
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.default_options: dict[str, Any] = {}
        self.startup_warning: str | None = None
        # Run ids: a per-session prefix (an id from an earlier server is unknown, not another
        # run) and a counter.
        self._run_prefix = uuid.uuid4().hex[:6]
        self._run_numbers = itertools.count(1)
        # Worked out once and reused while their inputs stay the same (see the properties).
        self._features: tuple[Any, Any, conv.ClientFeatures] | None = None
        self._roots: tuple[tuple[str, ...], list[Path]] | None = None

    # -- session facts

    @property
    def features(self) -> conv.ClientFeatures:
        """What this client can take: read from its capabilities once (they are fixed at
        initialize; reading them costs more than converting a small run's edits)."""
        capabilities = self.client_capabilities
        encoding = self.workspace.position_encoding
        cached = self._features
        if cached is None or cached[0] is not capabilities or cached[1] != encoding:
            cached = self._features = (
                capabilities, encoding, conv.client_features(capabilities, encoding))
        return cached[2]

    def roots(self) -> list[Path]:
        """The workspace folders as paths (worked out again when the folders change)."""
        uris = tuple(f.uri for f in self.workspace.folders.values())
        if not uris and self.workspace.root_uri:
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

    def reader(self, options: conv.EditOptions | None = None) -> FileReader:
        limit = options.max_file_bytes if options is not None else DEFAULT_MAX_FILE_BYTES
        return FileReader(self.buffers.by_written_path(), limit)

    def log_message(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    # -- requests

    def edit_request(self, argument: Any) -> EditRequest:
        """Validate an edit command's argument and fetch the response text."""
        if argument is None:
            argument = {}
        if not isinstance(argument, dict):
            raise CommandError("the command takes one object argument: {response | responseUri, "
                               "options}")
        try:
            options = conv.parse_options(argument.get("options"), self.default_options)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        text, uri = argument.get("response"), argument.get("responseUri")
        if text is None and uri is None:
            raise CommandError("give the response text as `response`, or `responseUri`")
        if text is not None and not isinstance(text, str):
            raise CommandError("`response` must be a string")
        if uri is not None and not isinstance(uri, str):  # also beside `response`: it names
            raise CommandError("`responseUri` must be a string")  # the diagnostics' document
        if text is None:
            text = self.response_document_text(uri)
        try:
            conv.check_response_size(text, options.max_response_bytes)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        return EditRequest(text.removeprefix(conv.BOM), uri, options)

    def response_document_text(self, uri: str) -> str:
        buffer = self.buffers.get(uri)
        if buffer is not None:
            return buffer.text
        fs_path = to_fs_path(uri)
        snapshot = read_disk_file(Path(fs_path)) if fs_path else None
        if snapshot is None or snapshot.text is None:
            raise CommandError(f"responseUri {uri} is not an open document (nor a readable file)")
        return snapshot.text

    async def parse(self, request: EditRequest) -> ParseResult:
        if len(request.text) <= INLINE_MAX_CHARS:
            parsed = parse_response(request.text, request.options.formats)
        else:
            parsed = await asyncio.to_thread(
                parse_response, request.text, request.options.formats)
        limit = request.options.max_blocks
        if len(parsed.blocks) > limit:
            raise CommandError(
                f"the response has {len(parsed.blocks)} blocks, more than maxBlocks ({limit}); "
                "split it or raise maxBlocks in initializationOptions")
        return parsed

    async def plan(
        self, request: EditRequest, reader: FileReader, title: str, **planning: Any
    ) -> PlanResult:
        """Parse and plan in a worker thread, with work-done progress for long runs."""
        parsed = await self.parse(request)
        token = None
        if self.features.work_done_progress and (
            len(parsed.blocks) >= PROGRESS_MIN_BLOCKS or len(request.text) >= PROGRESS_MIN_CHARS
        ):
            token = await self.begin_progress(title, f"checking {len(parsed.blocks)} blocks")
        try:
            planning.setdefault("matching", request.options.matching)
            planning.setdefault("atomic", request.options.atomic)
            planning.setdefault("max_block_lines", request.options.max_block_lines)
            if len(request.text) <= INLINE_MAX_CHARS and len(parsed.blocks) <= INLINE_MAX_BLOCKS:
                plan = plan_edits(parsed, reader, self.roots(), dry_run=True, **planning)
            else:
                plan = await asyncio.to_thread(
                    plan_edits, parsed, reader, self.roots(), dry_run=True, **planning)
            self.buffers.keep_parses(reader.read_buffers)
            return plan
        finally:
            if token is not None:
                self.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))

    async def begin_progress(self, title: str, message: str) -> str | None:
        token = f"llm-edits-{uuid.uuid4().hex}"
        try:
            await self.work_done_progress.create_async(token)
        except Exception as exc:  # the client refused: work without a progress bar
            log.info("work done progress refused: %s", exc)
            return None
        self.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=title, message=message, cancellable=False))
        return token

    async def send_edit(self, edit: conv.JsonObject, label: str) -> tuple[bool, str | None]:
        """``workspace/applyEdit`` of an edit's JSON; returns (applied, failure reason)."""
        if not self.features.apply_edit:
            return False, "the client does not support workspace/applyEdit"
        try:
            # Sent as JSON (see LlmEditsProtocol._serialize_message): the same object as the
            # result's `edit`, not rebuilt as lsprotocol objects.
            answer = await self.protocol.send_request_async(
                types.WORKSPACE_APPLY_EDIT, {"edit": edit, "label": label})
        except JsonRpcException as exc:
            return False, f"the editor answered workspace/applyEdit with an error: {exc.message}"
        if answer is None:
            return False, "the editor gave no answer to workspace/applyEdit"
        if answer.applied:
            return True, None
        return False, answer.failure_reason or (
            "the editor refused the edit (a file changed since it was computed?)")

    async def run_edits(self, argument: Any, *, apply: bool) -> dict[str, Any]:
        """``llmEdits.preview`` / ``llmEdits.apply``."""
        command = "llmEdits.apply" if apply else "llmEdits.preview"
        request = self.edit_request(argument)
        reader = self.reader(request.options)
        plan = await self.plan(request, reader, "LLM edits: " + ("apply" if apply else "preview"))
        result, _ = await self.finish_run(command, request, reader, plan, apply=apply)
        return result

    async def finish_run(
        self, command: str, request: EditRequest, reader: FileReader, plan: PlanResult,
        *, apply: bool, run_id: str | None = None, label: str | None = None,
    ) -> tuple[dict[str, Any], dict[str, list[types.Diagnostic]]]:
        """Convert, send (apply), publish diagnostics, remember the run, build the result.

        A new run's diagnostics replace everything published before; for a fix of an existing
        run (``run_id`` given) they are returned for the caller to merge.
        """
        features = self.features
        roots = self.roots()

        def lines_for(path: Path, text: str) -> conv.TextLines:
            return self.buffers.text_lines(reader.uri_for(path), text)

        edit, extra_warnings = conv.workspace_edit_json(
            plan, features, reader.uri_for, reader.bom_buffers(),
            root=roots[0] if roots else None, lines_for=lines_for)
        applied, failure = False, None
        if apply and edit is not None:
            label = label or (f"LLM edits: {_count(plan.blocks, 'block')} from "
                              f"{request.source_name}")
            failure = self.changed_since(plan, reader)
            if failure is None:
                applied, failure = await self.send_edit(edit, label)
            if applied:
                conv.mark_applied(plan)
        new_run = run_id is None
        run_id = run_id or self.new_run_id()
        text_for = _texts_after(plan, reader) if applied else reader.client_text
        diagnostics = conv.plan_diagnostics(
            plan, run_id, features, reader.uri_for, text_for, request.response_uri, request.text)
        if new_run:
            self.runs.add(Run(run_id, request, plan))
            self.publish(diagnostics)
        files = None
        if request.options.include_text:
            files = conv.changed_files(plan, reader.uri_for, reader.client_text)
        # `edit` is the very JSON workspace/applyEdit carried.
        result = conv.result_dict(plan, edit, reader.uri_for, run_id=run_id,
                                  extra_warnings=extra_warnings, files=files)
        if apply:
            result["applied"] = applied
            if failure is not None:
                result["failureReason"] = failure
        if self.tracing:
            self.log_message(f"{command}: {conv.summary(plan)}"
                             + (f"; applied={applied}" if apply else "")
                             + (f" ({failure})" if failure else "") + f"; run {run_id}")
        if failure:
            self.log_message(f"{command}: edit not applied: {failure}", types.MessageType.Warning)
        return result, diagnostics

    def changed_since(self, plan: PlanResult, reader: FileReader) -> str | None:
        """Why the plan's text edits no longer fit the open buffers (None: they fit).

        A run plans against a snapshot; didChange may arrive while it plans (large runs plan
        in a worker thread). Such an edit must not be sent: a client without versioned edits
        (``changes``) would apply it to the newer text, and a file read from disk and opened
        since carries no version for any editor to check.
        """
        for change in plan.changes:
            if not isinstance(change, FileEdit):
                continue
            uri = reader.uri_for(change.path)
            live = self.buffers.get(uri)
            if live is None:
                continue
            if change.version is not None and live.version != change.version:
                return (f"{uri} changed while the edit was computed (version "
                        f"{change.version} → {live.version}); nothing was applied, run again")
            if change.version is None and live.text.removeprefix(conv.BOM) != change.original:
                return (f"{uri} was opened and changed while the edit was computed; nothing "
                        "was applied, run again")
        return None

    async def apply_fix(self, argument: Any) -> dict[str, Any]:
        """``llmEdits.applyFix``: one block of a recent run, re-planned against current buffers."""
        try:
            fix = conv.parse_fix_request(argument)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        run = self.runs.get(fix.run_id)
        block = run.block(fix.index)
        planning: dict[str, Any] = {"only": {fix.index}, "atomic": False}
        if fix.fix == "whitespace":
            planning["matching"] = "whitespace"
        else:
            fixes = block.fixes or {}
            closest = fixes.get("closestLine", fixes.get("closest_line"))
            if not isinstance(closest, int):
                raise CommandError(f"block {fix.index} of run {fix.run_id} has no closest match")
            planning["force_at"] = {fix.index: closest}
        reader = self.reader(run.request.options)
        plan = await self.plan(run.request, reader, "LLM edits: fix", **planning)
        label = f"LLM edits: fix block {fix.index + 1} from {run.request.source_name}"
        result, diagnostics = await self.finish_run(
            "llmEdits.applyFix", run.request, reader, plan, apply=True, run_id=run.run_id,
            label=label)
        # The fixed block's diagnostics are replaced; the rest of the run's stay.
        fixed = [b for b in plan.blocks if b.index == fix.index]
        run.plan.blocks = [fixed[0] if b.index == fix.index and fixed else b
                           for b in run.plan.blocks]
        # The user chose the tolerance: only a renewed failure is worth a diagnostic.
        failures = {uri: [d for d in items if d.code == conv.CODE_FAILED]
                    for uri, items in diagnostics.items()}
        self.replace_block_diagnostics(run.run_id, fix.index, failures)
        return result

    def feedback_text(self, run_plan: PlanResult, reader: FileReader, *, index: int | None,
                      atomic: bool) -> str:
        return build_feedback(run_plan, reader.lines, index=index, atomic=atomic)

    # -- diagnostics

    def publish(self, diagnostics: dict[str, list[types.Diagnostic]]) -> None:
        """Publish a run's diagnostics; URIs published before and not now are emptied."""
        for uri in set(self.published) - set(diagnostics):
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        for uri, items in diagnostics.items():
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=items))
        self.published = {uri: items for uri, items in diagnostics.items() if items}

    def publish_uri(self, uri: str, items: list[types.Diagnostic]) -> None:
        """Replace the diagnostics of one document only."""
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items))
        if items:
            self.published[uri] = items
        else:
            self.published.pop(uri, None)

    def replace_block_diagnostics(
        self, run_id: str, index: int, new: dict[str, list[types.Diagnostic]]
    ) -> None:
        def of_block(d: types.Diagnostic) -> bool:
            data = d.data if isinstance(d.data, dict) else {}
            return data.get("runId") == run_id and data.get("index") == index

        touched = set(new)
        for uri, items in self.published.items():
            if any(of_block(d) for d in items):
                touched.add(uri)
        for uri in touched:
            kept = [d for d in self.published.get(uri, []) if not of_block(d)]
            kept += [d for d in new.get(uri, []) if of_block(d)]
            self.publish_uri(uri, kept)

    def clear_diagnostics(self) -> None:
        for uri in list(self.published):
            self.publish_uri(uri, [])

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        """Quick fixes for our diagnostics under the requested range."""
        if params.context.only and not any(
            str(kind).startswith(types.CodeActionKind.QuickFix) for kind in params.context.only
        ):
            return []
        key = unquote(params.text_document.uri)
        ours = [d for uri, items in self.published.items() if unquote(uri) == key for d in items]
        candidates = [d for d in ours if conv.ranges_overlap(d.range, params.range)]
        candidates += [d for d in params.context.diagnostics
                       if d.source == conv.SOURCE and isinstance(d.data, dict)]
        actions: list[types.CodeAction] = []
        seen: set[tuple[Any, Any, Any]] = set()
        for diagnostic in candidates:
            data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
            ident = (data.get("runId"), data.get("index"), diagnostic.code)
            run = self.runs.find(data.get("runId"))
            if ident in seen or run is None or not isinstance(data.get("index"), int):
                continue
            seen.add(ident)
            try:
                block = run.block(data["index"])
            except CommandError:
                continue
            actions += conv.fix_code_actions(diagnostic, block.fixes or {})
        return actions


def _utf8_size_over(text: str, limit: int) -> int | None:
    """The UTF-8 size of ``text`` if it exceeds ``limit`` (None otherwise; cheap when small)."""
    if len(text) * 4 <= limit:  # a code point is at most 4 bytes
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    return size if size > limit else None


def _count(items: list, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def _texts_after(plan: PlanResult, reader: FileReader) -> Callable[[Path], str | None]:
    """The editor's texts once the plan's edit is applied (for diagnostic ranges)."""
    edited = {c.path: c.new_text for c in plan.changes if isinstance(c, FileEdit)}
    boms = reader.bom_buffers()

    def text_for(path: Path) -> str | None:
        if path in edited:
            return (conv.BOM if path in boms else "") + edited[path]
        return reader.client_text(path)

    return text_for


server = LlmEditsServer()

# ------------------------------------------------------------------ handlers


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
                trace = traceback.format_exc()
                log.error("%s failed:\n%s", name, trace)
                ls.log_message(f"{name} failed: {type(exc).__name__}: {exc}\n{trace}",
                               types.MessageType.Error)
                raise JsonRpcInternalError(
                    message=f"{name}: internal error: {type(exc).__name__}: {exc}",
                    data={"traceback": trace}) from exc

        run.__name__ = handler.__name__
        # pygls reads the handler's type hints on every call; resolved ones are not
        # re-evaluated (string annotations are compiled each time: ~5% of a small preview).
        run.__annotations__ = {"ls": LlmEditsServer, "args": Any, "return": Any}
        server.command(name)(run)
        return handler

    return register


@server.feature(types.INITIALIZE)
def initialize(ls: LlmEditsServer, params: types.InitializeParams) -> None:
    if params.trace is not None:  # pygls itself follows only $/setTrace
        ls.protocol.trace = params.trace
    options = params.initialization_options
    try:
        conv.parse_options(None, options)
        ls.default_options = dict(options or {})
    except ValueError as exc:
        ls.default_options = {}
        ls.startup_warning = f"initializationOptions ignored: {exc}"
        log.warning("%s", ls.startup_warning)


@server.feature(types.INITIALIZED)
def initialized(ls: LlmEditsServer, params: types.InitializedParams) -> None:
    ls.log_message(f"llm-edits {__version__}: position encoding {ls.features.encoding}, "
                   f"workspace {', '.join(str(r) for r in ls.roots()) or '(none)'}")
    if ls.startup_warning:
        ls.log_message(ls.startup_warning, types.MessageType.Warning)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LlmEditsServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.buffers.open(params.text_document)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LlmEditsServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.buffers.change(params, ls.features.encoding)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: LlmEditsServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.buffers.close(params.text_document.uri)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
def code_action(ls: LlmEditsServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    return ls.code_actions(params)


@command("llmEdits.parse")
async def parse(ls: LlmEditsServer, argument: Any) -> dict[str, Any]:
    request = ls.edit_request(argument)
    parsed = await ls.parse(request)
    if request.response_uri is not None:
        encoding = ls.features.encoding
        response_lines = conv.TextLines(request.text)
        ls.publish_uri(request.response_uri, [
            conv.warning_diagnostic(w, None, response_lines, encoding) for w in parsed.warnings])
    if ls.tracing:
        ls.log_message(f"llmEdits.parse: {_count(parsed.blocks, 'block')}, "
                       f"{_count(parsed.warnings, 'warning')}")
    return {
        "blocks": [block_text_fields(b) for b in parsed.blocks],
        "warnings": [conv.warning_dict(w) for w in parsed.warnings],
        "shellSuggestions": list(parsed.shell_suggestions),
    }


@command("llmEdits.preview")
async def preview(ls: LlmEditsServer, argument: Any) -> dict[str, Any]:
    return await ls.run_edits(argument, apply=False)


@command("llmEdits.apply")
async def apply(ls: LlmEditsServer, argument: Any) -> dict[str, Any]:
    return await ls.run_edits(argument, apply=True)


@command("llmEdits.applyFix")
async def apply_fix(ls: LlmEditsServer, argument: Any) -> dict[str, Any]:
    return await ls.apply_fix(argument)


@command("llmEdits.feedback")
async def feedback(ls: LlmEditsServer, argument: Any) -> dict[str, Any]:
    request = ls.edit_request(argument)
    reader = ls.reader(request.options)
    plan = await ls.plan(request, reader, "LLM edits: feedback")
    return {"text": ls.feedback_text(plan, reader, index=None, atomic=request.options.atomic)}


@command("llmEdits.copyFeedback")
async def copy_feedback(ls: LlmEditsServer, argument: Any) -> dict[str, Any]:
    if not isinstance(argument, dict) or not isinstance(argument.get("runId"), str):
        raise CommandError("llmEdits.copyFeedback takes {runId, index?}")
    index = argument.get("index")
    if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
        raise CommandError("index must be an integer")
    run = ls.runs.get(argument["runId"])
    text = ls.feedback_text(run.plan, ls.reader(run.request.options), index=index,
                            atomic=run.request.options.atomic)
    return {"text": text}


@command("llmEdits.instructions")
async def instructions(ls: LlmEditsServer, argument: Any) -> dict[str, Any]:
    argument = argument or {}
    if not isinstance(argument, dict):
        raise CommandError("llmEdits.instructions takes {format?}")
    name = argument.get("format")
    try:
        text = format_instructions(name)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    return {"text": text, "formats": [name] if name else list(FORMAT_NAMES)}


@command("llmEdits.clear")
async def clear(ls: LlmEditsServer, argument: Any) -> None:
    ls.clear_diagnostics()
    if ls.tracing:
        ls.log_message("llmEdits.clear: diagnostics cleared")
    return None


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
    # collection (a full one walked ~55,000 such objects: 50 ms on this busy machine).
    gc.freeze()
    if args.tcp:
        server.start_tcp(args.host, args.port)
    elif _is_separate_pipe(sys.stdin, sys.stdout):
        start_pipe_io(server)
    else:
        server.start_io()


# ------------------------------------------------------------------ stdio transport


class _StreamReader:
    """pygls's reader interface over an asyncio stream."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream

    async def readline(self) -> bytes:
        return await self._stream.readline()

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._stream.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""  # end of input: pygls's loop stops, as with its own reader


def _is_separate_pipe(stdin: Any, stdout: Any) -> bool:
    """stdin is a pipe or socket of its own (how editors start servers): the event loop can
    read it without making stdout non-blocking too (as it would on a shared terminal)."""
    try:
        info, out = os.fstat(stdin.fileno()), os.fstat(stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    pipe = stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode)
    return pipe and not os.path.samestat(info, out)


def start_pipe_io(ls: LanguageServer) -> None:
    """Serve over stdin/stdout like ``start_io``, reading stdin on the event loop.

    pygls 2.1's stdio reader reads every header line and body through the thread pool (three
    thread hand-offs per message: ~1 ms of latency per request on a busy machine); here the
    event loop reads the pipe itself and pygls's own message loop does the rest.
    """
    ls._stop_event = threading.Event()
    ls.protocol.set_writer(StdoutWriter(sys.stdout.buffer))

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        stream = asyncio.StreamReader(limit=1 << 20)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream),
                                     sys.stdin.buffer)
        assert ls._stop_event is not None
        await run_async(stop_event=ls._stop_event, reader=_StreamReader(stream),
                        protocol=ls.protocol, logger=log,
                        error_handler=ls.report_server_error)

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        ls.shutdown()
