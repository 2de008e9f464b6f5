"""Open buffers: text and version of every open document, kept from didOpen/didChange/didClose.

The server keeps them itself, applying changes with LSP's line rules (pygls's own copy splits
lines like ``str.splitlines``, which also breaks at form feeds and U+2028, and rewrites
didChange params while doing so: see :mod:`.pygls_hooks`). Also kept per buffer, for the
runs that read it while its text stays the same: the parse a run made of that text and its
LSP line count.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import to_fs_path

from ..file_text import PreparedText
from .protocol.positions import TextLines, apply_content_changes_counted, lf_breaks, line_count

log = logging.getLogger(__name__)

# Text of open buffers whose parse is kept between runs, in characters: the parse (lines,
# joined copy, offsets) costs about 2-3x the text; least recently used parses go first.
PREPARED_MAX_CHARS = 64 * 1024 * 1024


@dataclass
class Buffer:
    """One open document (or a run's snapshot copy of it)."""

    uri: str  # as the client sent it (edits for this document reuse it)
    text: str
    version: int | None
    # This text's parse and line index, reused by every run while the buffer is unchanged
    # (made by the first run that reads the text, see FileReader, and kept by keep_parses;
    # dropped on didChange/didClose and past the memory cap).
    prepared: PreparedText | None = None
    # The file path as written in the URI (None for untitled: and other non-file documents),
    # worked out once at didOpen: every run looks buffers up by path.
    path: Path | None = None
    # line_count(text), counted when an edit of this text is first converted (dropped
    # with the text): converting positions needs it, and counting costs more than the rest.
    line_count: int | None = None
    # positions.lf_breaks(text), or -1 for a text with \r; None: not counted yet. Kept
    # across didChange (each change's own breaks taken out and added): placing a chunk
    # appended to a long response never counts the whole text's lines (~0.6 ms per count on
    # a 1 MB text that is not ASCII, twice per didChange).
    breaks: int | None = None

    def lf_breaks(self) -> int | None:
        """``positions.lf_breaks(self.text)``, counted once per text."""
        if self.breaks is None:
            counted = lf_breaks(self.text)
            self.breaks = -1 if counted is None else counted
        return self.breaks if self.breaks >= 0 else None



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
        buffer.text, breaks = apply_content_changes_counted(
            buffer.text, buffer.lf_breaks(), params.content_changes, encoding)
        buffer.breaks = breaks  # None: counted again when asked
        buffer.version = params.text_document.version

    def close(self, uri: str) -> None:
        self._drop_prepared(self._key(uri))
        self._docs.pop(self._key(uri), None)

    def get(self, uri: str) -> Buffer | None:
        return self._docs.get(self._key(uri))

    def text_lines(self, uri: str, text: str) -> TextLines:
        """``text``'s LSP lines; if it is the open buffer's very text (not merely equal:
        the buffer may have changed meanwhile), with the line count kept for that text."""
        buffer = self._docs.get(self._key(uri))
        if buffer is None or buffer.text is not text:
            return TextLines(text)
        if buffer.line_count is None:
            breaks = buffer.lf_breaks()
            buffer.line_count = line_count(text) if breaks is None else breaks + 1
        return TextLines(text, buffer.line_count)

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
