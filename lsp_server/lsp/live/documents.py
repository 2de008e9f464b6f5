"""Response documents: open documents the server keeps parsed and validated as they change.

A response document is an open document whose language id is ``llm-response``, or any open
document after ``llmEdits.watch {"uri"}`` (until ``llmEdits.unwatch`` or its didClose). Per
document (:class:`ResponseDocument`): its parse, kept up to date on every didChange by an
:class:`IncrementalParse` told where the change starts; its validation against the open
buffers (a :class:`StreamingPlan`: a newly completed block costs one block's planning); the
blocks applied from it (never applied twice). Validation runs ~50 ms after the last change,
at once when a block completes, and when a buffer changes; every request answered from this
state first runs a pending validation (:meth:`ResponseDocuments.current`), so answers always
reflect the current text.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import to_fs_path

from ...model import ParseResult, ParseWarning
from ...session.live import LiveResponse, LiveUpdate
from ...session.options import EditOptions, OptionsError, parse_options
from ...streaming_plan import block_identity
from ..editor import Editor
from ..off_loop import off_loop
from ..protocol.positions import BOM, offset_at
from .state import ResponseDocument
from .validation import apply_ready, validate_once

log = logging.getLogger(__name__)

RESPONSE_LANGUAGE = "llm-response"
# Why a block naming a response document fails (every run of the connection reads it).
NOT_A_TARGET = ("it is a response document: an answer never edits a response (the text "
                "would no longer show what was applied)")
DEBOUNCE_SECONDS = 0.05  # validation waits this long after the last change
# A validation that applied a block runs again (the buffers changed): at most this many
# rounds per call, so a client that keeps changing buffers cannot keep one call going.
MAX_ROUNDS = 64
# A parse re-reading at most this much text runs on the event loop (a thread's round trip
# costs more); a longer one in a worker thread.
PARSE_INLINE_CHARS = 64 * 1024


def change_start(text: str, changes: Sequence[Any], encoding: str,
                 breaks: int | None = None) -> int | None:
    """The lowest offset a didChange's content changes may have changed (None: unknown);
    ``breaks``: the text's ``positions.lf_breaks`` if known."""
    if len(changes) != 1:
        return None
    change_range = getattr(changes[0], "range", None)
    if change_range is None:
        return 0
    start = offset_at(text, change_range.start, encoding, breaks=breaks)
    if start is not None and text.startswith(BOM):
        start = max(0, start - 1)
    return start


def _merged(pending: tuple[int | None, bool] | None, start: int | None,
            streams: bool) -> tuple[int | None, bool]:
    """A change from ``start`` on, with the one still waiting to be parsed: from the lower
    start (None: anywhere); the stream's only if both are."""
    if pending is None:
        return start, streams
    before, before_streams = pending
    lower = None if before is None or start is None else min(before, start)
    return lower, streams and before_streams


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # a unit test without a loop: parsed where it is asked
        return False
    return True


class ResponseDocuments:
    """The response documents of one connection, by URI."""

    def __init__(self, editor: Editor) -> None:
        self._editor = editor
        self._live: dict[str, ResponseDocument] = {}
        self._watched: set[str] = set()  # URIs watched (open or not yet)
        self._tasks: set[asyncio.Task] = set()

    @staticmethod
    def _key(uri: str) -> str:
        return unquote(uri)  # as OpenBuffers: clients differ in what they percent-encode

    # ------------------------------------------------------------------ which documents

    def state(self, uri: str) -> ResponseDocument | None:
        """The response document's state as it is now (maybe not validated yet: see
        :meth:`current`); None when ``uri`` is not a response document."""
        return self._live.get(self._key(uri))

    async def current(self, uri: str) -> ResponseDocument | None:
        """The response document's state once its pending validation has run."""
        live = self.state(uri)
        if live is not None:
            await self.validate(live)
        return live

    def by_run_id(self, run_id: str) -> ResponseDocument | None:
        """The response document whose validations are named ``run_id`` (its lenses')."""
        return next((live for live in self._live.values() if live.run_id == run_id), None)

    def __iter__(self) -> Iterator[ResponseDocument]:
        return iter(list(self._live.values()))

    def opened(self, item: types.TextDocumentItem) -> None:
        key = self._key(item.uri)
        self._drop(key)
        if item.language_id == RESPONSE_LANGUAGE or key in self._watched:
            self._start(item.uri, by_language=item.language_id == RESPONSE_LANGUAGE)
        else:
            self.buffer_changed(item.uri)

    def closed(self, uri: str) -> None:
        key = self._key(uri)
        if key in self._watched:
            self._watched.discard(key)
            self._sync_not_targets()
        if not self._drop(key):
            self.buffer_changed(uri)

    def watch(self, uri: str) -> dict[str, Any]:
        key = self._key(uri)
        self._watched.add(key)
        self._sync_not_targets()
        is_open = self._editor.buffers.get(uri) is not None
        if is_open and key not in self._live:
            self._start(uri)
        return {"uri": uri, "open": is_open}

    def unwatch(self, uri: str) -> dict[str, Any]:
        key = self._key(uri)
        self._watched.discard(key)
        live = self._live.get(key)
        language = live is not None and live.by_language
        if live is not None and not language:
            self._drop(key)
        self._sync_not_targets()
        return {"uri": uri, "watching": language}

    def _start(self, uri: str, *, by_language: bool = False,
               previous: ResponseDocument | None = None) -> None:
        editor = self._editor
        buffer = editor.buffers.get(uri)
        if buffer is None:
            return
        options = self._options()
        live = ResponseDocument(uri=buffer.uri, run_id=editor.new_run_id(), options=options,
                                response=LiveResponse(options), by_language=by_language)
        if previous is not None:  # the same document under new options: what it applied
            live.applied = previous.applied
            live.attempted = previous.attempted
        self._live[self._key(uri)] = live
        self._sync_not_targets()
        # Blocks already complete when the document becomes a response document (opened,
        # watched, or applyWhileStreaming just turned on) did not complete while streaming:
        # they are never applied on their own (their lenses and Apply all still do).
        self._parse_change(live, None, streams=False)

    def _drop(self, key: str) -> bool:
        live = self._live.pop(key, None)
        if live is None:
            return False
        live.closed = True
        if live.timer is not None:
            live.timer.cancel()
        self._editor.diagnostics.publish_live(live.uri, {})
        self._sync_not_targets()
        return True

    def _sync_not_targets(self) -> None:
        """The editor's paths no block may edit: every response document, open or watched
        (as written and with symlinks resolved)."""
        paths: dict[Path, str] = {}
        for uri in [live.uri for live in self._live.values()] + list(self._watched):
            fs_path = to_fs_path(uri) if uri.startswith("file:") else None
            if fs_path:
                paths[Path(fs_path)] = NOT_A_TARGET
                paths[Path(os.path.realpath(fs_path))] = NOT_A_TARGET
        self._editor.not_targets.clear()
        self._editor.not_targets.update(paths)

    def _options(self) -> EditOptions:
        try:
            return parse_options(None, self._editor.default_options)
        except OptionsError:
            return EditOptions()

    def options_changed(self) -> None:
        """The server's options changed: parse and validate every document again."""
        for key in list(self._live):
            live = self._live[key]
            watched = key in self._watched
            self._drop(key)
            if watched:
                self._watched.add(key)
            self._start(live.uri, by_language=live.by_language, previous=live)

    # ------------------------------------------------------------------ changes

    def change_start(self, params: types.DidChangeTextDocumentParams,
                     encoding: str) -> int | None:
        """Before the buffer changes: where a response document's change starts."""
        if self.state(params.text_document.uri) is None:
            return None
        buffer = self._editor.buffers.get(params.text_document.uri)
        if buffer is None:
            return None
        return change_start(buffer.text, params.content_changes, encoding, buffer.lf_breaks())

    def changed(self, uri: str, start: int | None) -> None:
        """After the buffer changed: parse a response document again, or note a buffer
        change for the documents whose validation may have read it."""
        live = self.state(uri)
        if live is None:
            self.buffer_changed(uri)
            return
        self._parse_change(live, start, streams=True)

    def buffer_changed(self, uri: str) -> None:
        """A buffer opened, changed or closed: validations that read it are stale."""
        fs_path = to_fs_path(uri)
        if not fs_path:
            return  # untitled: and other non-file documents are no workspace file
        path = Path(fs_path)
        for live in self._live.values():
            if live.plan is not None and live.plan.reads(path):
                live.changed_paths.add(path)
                live.generation += 1
                self._schedule(live, at_once=False)

    # ------------------------------------------------------------------ parsing

    def _parse_change(self, live: ResponseDocument, start: int | None, *,
                      streams: bool) -> None:
        """Parse the document's text again, changed from ``start`` on (None: anywhere);
        ``streams``: a block this completes may count as completed by the stream (not for
        the first parse of a document).

        On the event loop when the parse re-reads little (appended text after settled
        blocks, prose); else in a worker thread, one parse at a time per document, and the
        changes that arrive meanwhile parsed together after it (a block left open near the
        top of a long answer, or an edit above the blocks of a large document, re-reads
        the text after it: the loop keeps answering meanwhile)."""
        live.generation += 1
        live.pending_change = _merged(live.pending_change, start, streams)
        if live.parsing is not None:
            return  # the parse running takes this change next
        buffer = self._editor.buffers.get(live.uri)
        if buffer is None:
            return
        text = buffer.text.removeprefix(BOM)
        if (live.response.reread_at_most(text, live.pending_change[0]) <= PARSE_INLINE_CHARS
                or not _loop_running()):
            start, streams = live.pending_change
            live.pending_change = None
            before = live.complete
            self._take_update(live, text, buffer.version, live.response.feed(text, start),
                              streams, before)
            return
        live.parsing = asyncio.ensure_future(self._parse_off_loop(live))
        self._tasks.add(live.parsing)
        live.parsing.add_done_callback(self._tasks.discard)

    async def _parse_off_loop(self, live: ResponseDocument) -> None:
        try:
            while live.pending_change is not None and not live.closed:
                buffer = self._editor.buffers.get(live.uri)
                if buffer is None:
                    live.pending_change = None
                    return
                text, version = buffer.text.removeprefix(BOM), buffer.version
                (start, streams), live.pending_change = live.pending_change, None
                before = live.complete
                update = await off_loop(False, live.response.feed, text, start)
                if live.closed:
                    return
                self._take_update(live, text, version, update, streams, before)
        except Exception:  # never leave the document waiting on a parse
            log.exception("parsing %s failed", live.uri)
            live.pending_change = None
        finally:
            live.parsing = None

    def _take_update(self, live: ResponseDocument, text: str, version: int | None,
                     update: LiveUpdate, streams: bool, before: int) -> None:
        """What a parse made of the text (``before``: the blocks complete before it), and
        the validation it calls for: at once when a block completed or the document has
        just become a response document, else after the debounce."""
        live.text, live.version = text, version
        live.parsed, live.complete = update.parsed, update.complete
        if update.refused_by == "maxBlocks":  # a response document refuses them all
            live.complete = 0
            live.parsed = ParseResult(warnings=[ParseWarning(
                0, f"{update.refused}; nothing is validated")])
        elif streams:
            live.streamed.update(block_identity(block) for block in update.streamed)
        self._schedule(live, at_once=live.complete != before or not streams)

    async def _parsed(self, live: ResponseDocument) -> None:
        """Wait for the parse of the document's current text, if one runs."""
        while live.parsing is not None and not live.closed:
            await asyncio.shield(live.parsing)

    def _schedule(self, live: ResponseDocument, *, at_once: bool) -> None:
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a unit test): validated when asked
            return
        if at_once:
            self._spawn(live)
        else:
            live.timer = loop.call_later(DEBOUNCE_SECONDS, self._spawn, live)

    def _spawn(self, live: ResponseDocument) -> None:
        live.timer = None
        task = asyncio.ensure_future(self.validate(live))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ validation

    async def validate(self, live: ResponseDocument) -> None:
        """Run the pending validation, if any (and apply what is ready, with
        applyWhileStreaming); a validation already running is waited for."""
        for _ in range(MAX_ROUNDS):
            await self._parsed(live)
            async with live.lock:
                if live.closed:
                    return
                if live.stale:
                    try:
                        await validate_once(self._editor, live)
                    except Exception:  # never leave the document without an answer
                        log.exception("validating %s failed", live.uri)
                        live.validated_generation = live.generation
                        return
                if not (live.options.apply_while_streaming
                        and await apply_ready(self._editor, live)):
                    return
