"""Response documents: open documents the server keeps parsed and validated as they change.

A response document is an open document whose language id is ``llm-response``, or any open
document after ``llmEdits.watch {"uri"}`` (until ``llmEdits.unwatch`` or its didClose). Per
document (:class:`LiveResponse`): its parse, kept up to date on every didChange by an
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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import to_fs_path

from ..model import Block, BlockResult, ParseResult, ParseWarning, PlanResult
from ..parsing import parse_response
from ..parsing.completion import complete_count
from ..parsing.incremental import IncrementalParse
from ..streaming_plan import BlockIdentity, StreamingPlan, block_identity
from .code_lens import LensCache, pending_warnings
from .file_reader import FileReader
from .live_validation import apply_ready, validate_once
from .options import EditOptions, check_response_size, parse_options
from .positions import BOM, offset_at
from .response_views import KeptViews

if TYPE_CHECKING:
    from ..server import LlmEditsServer

log = logging.getLogger(__name__)

RESPONSE_LANGUAGE = "llm-response"
DEBOUNCE_SECONDS = 0.05  # validation waits this long after the last change
# A validation that applied a block runs again (the buffers changed): at most this many
# rounds per call, so a client that keeps changing buffers cannot keep one call going.
MAX_ROUNDS = 64


class AppliedBlocks:
    """The blocks of one response document applied so far, by identity (with repeats: the
    second of two identical blocks is applied only if it was applied twice)."""

    def __init__(self) -> None:
        self._results: dict[BlockIdentity, list[BlockResult]] = {}

    def __len__(self) -> int:
        return sum(len(results) for results in self._results.values())

    def record(self, block: Block, result: BlockResult) -> None:
        self._results.setdefault(block_identity(block), []).append(result)

    def settled(self, blocks: Sequence[Block]) -> dict[int, BlockResult]:
        """``{index: result}`` of the ``blocks`` applied already (their result renumbered
        and placed where the block stands now)."""
        if not self._results:
            return {}
        seen: dict[BlockIdentity, int] = {}
        out: dict[int, BlockResult] = {}
        for block in blocks:
            identity = block_identity(block)
            results = self._results.get(identity)
            if not results:
                continue
            count = seen.get(identity, 0)
            seen[identity] = count + 1
            if count < len(results):
                kept = results[count]
                out[block.index] = BlockResult(
                    block.index, block.file, block.format, "applied", line=kept.line,
                    match=kept.match, offset=kept.offset, response_line=block.response_line,
                    path=kept.path, anchor_preview=kept.anchor_preview,
                    old_preview=kept.old_preview, new_preview=kept.new_preview)
        return out


@dataclass(eq=False)
class LiveResponse:
    """One response document: its text, parse, validation and applied blocks.

    Read it after :meth:`ResponseDocuments.current` (then it reflects the current text);
    everything here is replaced, never changed in place, by the next parse or validation.
    """

    uri: str
    run_id: str  # names its diagnostics and lets quick fixes find its blocks
    options: EditOptions
    parse: IncrementalParse
    text: str = ""  # the document's text (BOM-less), as last parsed
    version: int | None = None
    parsed: ParseResult = field(default_factory=ParseResult)
    # How many blocks of ``parsed``, from the first, are complete (parsing.completion): no
    # text appended can change them. Only those are applied while streaming; every block the
    # parse closed is validated and shown, and runs when the user asks (a document has no
    # end of input: a last unified diff or semantic-diff section is never "complete").
    complete: int = 0
    results: list[BlockResult] = field(default_factory=list)  # one per block validated
    validated_parse: ParseResult = field(default_factory=ParseResult)  # what results are of
    plan: StreamingPlan | None = None
    plan_roots: list[Path] = field(default_factory=list)
    reader: FileReader | None = None  # the files the last validation saw
    applied: AppliedBlocks = field(default_factory=AppliedBlocks)
    attempted: set[BlockIdentity] = field(default_factory=set)  # sent while streaming
    by_language: bool = False  # its language id is llm-response (else: watched)
    generation: int = 0  # counts changes of the text and of buffers
    validated_generation: int = -1
    changed_paths: set[Path] = field(default_factory=set)
    lens_cache: LensCache = field(default_factory=LensCache)
    kept_views: KeptViews = field(default_factory=KeptViews)  # outline, links (response_views)
    diagnosed: list[BlockResult] = field(default_factory=list)  # the results last diagnosed
    noted: list[BlockResult] = field(default_factory=list)  # those of them with diagnostics
    # What the diagnostics last published were made of: the noted results, the warnings,
    # the layer published (live_validation._published_already).
    published: tuple[list[BlockResult], list[ParseWarning], Any] | None = None
    lens_text: str = "[]"  # the lenses last validated (a refresh is sent when they change)
    closed: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.TimerHandle | None = None

    @property
    def stale(self) -> bool:
        """Whether the text or a buffer changed since the last validation."""
        return self.validated_generation != self.generation

    @property
    def pending(self) -> list[ParseWarning]:
        """Blocks started but not closed at the end of the text: being written."""
        return pending_warnings(self.parsed)

    @property
    def warnings(self) -> list[ParseWarning]:
        """The parse warnings that are not blocks being written."""
        return [w for w in self.parsed.warnings if not w.pending]

    def block_results(self) -> list[BlockResult]:
        """One result per block, in order (validated ones; read only)."""
        return self.results[:len(self.parsed.blocks)]

    def plan_result(self) -> PlanResult:
        """The validation as one plan (copies): every block's result, the composed changes
        of the validated blocks, the warnings that are not pending blocks."""
        if self.plan is None or self.stale:
            return PlanResult(blocks=list(self.results), warnings=self.warnings)
        parsed = ParseResult(self.parsed.blocks, self.warnings, self.parsed.shell_suggestions)
        return self.plan.plan_result(parsed, atomic=self.options.atomic)

    def uri_for(self, path: Path) -> str:
        """A target file's URI as the client knows it."""
        assert self.reader is not None
        return self.reader.uri_for(path)


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


class ResponseDocuments:
    """The response documents of one connection, by URI."""

    def __init__(self, server: LlmEditsServer) -> None:
        self._server = server
        self._live: dict[str, LiveResponse] = {}
        self._watched: set[str] = set()  # URIs watched (open or not yet)
        self._tasks: set[asyncio.Task] = set()

    @staticmethod
    def _key(uri: str) -> str:
        return unquote(uri)  # as OpenBuffers: clients differ in what they percent-encode

    # ------------------------------------------------------------------ which documents

    def state(self, uri: str) -> LiveResponse | None:
        """The response document's state as it is now (maybe not validated yet: see
        :meth:`current`); None when ``uri`` is not a response document."""
        return self._live.get(self._key(uri))

    async def current(self, uri: str) -> LiveResponse | None:
        """The response document's state once its pending validation has run."""
        live = self.state(uri)
        if live is not None:
            await self.validate(live)
        return live

    def __iter__(self) -> Iterator[LiveResponse]:
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
        self._watched.discard(key)
        if not self._drop(key):
            self.buffer_changed(uri)

    def watch(self, uri: str) -> dict[str, Any]:
        key = self._key(uri)
        self._watched.add(key)
        is_open = self._server.buffers.get(uri) is not None
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
        return {"uri": uri, "watching": language}

    def _start(self, uri: str, *, by_language: bool = False,
               previous: LiveResponse | None = None) -> None:
        server = self._server
        buffer = server.buffers.get(uri)
        if buffer is None:
            return
        options = self._options()
        live = LiveResponse(uri=buffer.uri, run_id=server.new_run_id(), options=options,
                            parse=IncrementalParse(options.formats,
                                                   max_block_lines=options.max_block_lines),
                            by_language=by_language)
        if previous is not None:  # the same document under new options: what it applied
            live.applied = previous.applied
        self._live[self._key(uri)] = live
        self._reparse(live, None)
        # Blocks already complete when the document becomes a response document (opened,
        # watched, or applyWhileStreaming just turned on) are never applied on their own:
        # opening an old answer, or turning the setting on, must not apply what the user
        # left unapplied. Their lenses and Apply all still do; later blocks apply as they
        # complete.
        live.attempted = {block_identity(block) for block in live.parsed.blocks[:live.complete]}
        if previous is not None:
            live.attempted |= previous.attempted
        self._schedule(live, at_once=True)

    def _drop(self, key: str) -> bool:
        live = self._live.pop(key, None)
        if live is None:
            return False
        live.closed = True
        if live.timer is not None:
            live.timer.cancel()
        self._server.diagnostics.publish_live(live.uri, {})
        return True

    def _options(self) -> EditOptions:
        try:
            return parse_options(None, self._server.default_options)
        except ValueError:
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
        buffer = self._server.buffers.get(params.text_document.uri)
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
        before = live.complete
        self._reparse(live, start)
        self._schedule(live, at_once=live.complete != before)  # a block completed

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

    def _reparse(self, live: LiveResponse, start: int | None) -> None:
        buffer = self._server.buffers.get(live.uri)
        if buffer is None:
            return
        text = buffer.text.removeprefix(BOM)
        live.text, live.version = text, buffer.version
        live.generation += 1
        live.complete = 0  # until the parse below says otherwise
        try:
            check_response_size(text, live.options.max_response_bytes)
        except ValueError as exc:
            live.parsed = ParseResult(warnings=[ParseWarning(0, str(exc))])
            return
        try:
            live.parsed = live.parse.update(text, start)
            live.complete = complete_count(text, live.parse)
        except Exception:  # a parser bug must not cost the document its state: parse whole
            log.exception("incremental parse of %s failed; parsing it whole", live.uri)
            live.parse = IncrementalParse(live.options.formats,
                                          max_block_lines=live.options.max_block_lines)
            live.parsed = parse_response(text, live.options.formats,
                                         max_block_lines=live.options.max_block_lines)
        limit = live.options.max_blocks
        if len(live.parsed.blocks) > limit:
            live.complete = 0
            live.parsed = ParseResult(warnings=[ParseWarning(0, (
                f"the response has {len(live.parsed.blocks)} blocks, more than maxBlocks "
                f"({limit}); nothing is validated"))])

    def _schedule(self, live: LiveResponse, *, at_once: bool) -> None:
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

    def _spawn(self, live: LiveResponse) -> None:
        live.timer = None
        task = asyncio.ensure_future(self.validate(live))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ validation

    async def validate(self, live: LiveResponse) -> None:
        """Run the pending validation, if any (and apply what is ready, with
        applyWhileStreaming); a validation already running is waited for."""
        for _ in range(MAX_ROUNDS):
            async with live.lock:
                if live.closed:
                    return
                if live.stale:
                    try:
                        await validate_once(self._server, live)
                    except Exception:  # never leave the document without an answer
                        log.exception("validating %s failed", live.uri)
                        live.validated_generation = live.generation
                        return
                if not (live.options.apply_while_streaming
                        and await apply_ready(self._server, live)):
                    return
