"""The files one run sees: the open buffers as they were when the command started, else disk."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pygls.uris import from_fs_path

from ..file_text import PreparedText
from ..limits import DEFAULT_MAX_FILE_BYTES
from ..model import FileSnapshot, text_to_lines
from ..workspace import read_disk_file
from .buffers import Buffer
from .protocol.positions import BOM

BINARY_SNIFF_CHARS = 8192  # a NUL in this many leading characters makes a buffer binary


def utf8_size_over(text: str, limit: int) -> int | None:
    """The UTF-8 size of ``text`` if it exceeds ``limit`` (None otherwise; cheap when small)."""
    if len(text) * 4 <= limit:  # a code point is at most 4 bytes
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    return size if size > limit else None


class FileReader:
    """The files one run sees: buffers as they were when the command started, else disk.

    A buffer is found by its path as written, else with symlinks resolved on both sides
    (resolved only when a lookup misses: ``realpath`` of every buffer costs more than a
    small run). Called by the planner (possibly in a worker thread: it only reads its own
    snapshot).
    """

    def __init__(self, buffers: dict[Path, Buffer],
                 max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
                 not_targets: Mapping[Path, str] | None = None) -> None:
        self._buffers = buffers
        self.max_file_bytes = max_file_bytes
        # Paths no block may edit (response documents), as written and resolved, each with
        # the reason: read as a file that cannot be edited, so every block on one fails.
        self._not_targets = dict(not_targets or {})
        self._resolved: dict[Path, Buffer] | None = None  # by symlink-resolved path
        self._misses: dict[Path, Buffer | None] = {}
        self._cache: dict[Path, FileSnapshot] = {}
        self._uris: dict[Path, str] = {}
        # The buffers this run read as text (by identity), each with the parse the planner
        # uses: the one kept for its text, else one made now (OpenBuffers.keep_parses).
        self._read: dict[int, Buffer] = {}
        self.chars_read = 0  # text of the files read so far (what converting a plan touches)

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
            refused = self._refusal(path)
            if refused is not None:
                snapshot = self._cache[path] = FileSnapshot(text=None, error=refused)
                return snapshot
            buffer = self.buffer(path)
            snapshot = self._cache[path] = (
                self._buffer_snapshot(buffer) if buffer is not None
                else read_disk_file(path, self.max_file_bytes))
            self.chars_read += len(snapshot.text or "")
        return snapshot

    def _refusal(self, path: Path) -> str | None:
        """Why no block may edit ``path`` (None: it may)."""
        if not self._not_targets:
            return None
        refused = self._not_targets.get(path)
        return refused if refused is not None else self._not_targets.get(
            Path(os.path.realpath(path)))

    def _buffer_snapshot(self, buffer: Buffer) -> FileSnapshot:
        size = utf8_size_over(buffer.text, self.max_file_bytes)
        if size is not None:
            return FileSnapshot(text=None, version=buffer.version, error=(
                f"the open buffer is {size} bytes, over the {self.max_file_bytes}-byte "
                "limit (maxFileBytes); not edited"))
        if "\x00" in buffer.text[:BINARY_SNIFF_CHARS]:
            return FileSnapshot(text=buffer.text, version=buffer.version, binary=True)
        if buffer.prepared is None:  # the snapshot copy: this run's own
            buffer.prepared = PreparedText(buffer.text)
        self._read[id(buffer)] = buffer  # several paths may name one buffer
        return FileSnapshot(text=buffer.text, version=buffer.version, prepared=buffer.prepared)

    @property
    def read_buffers(self) -> list[Buffer]:
        """The snapshot copies of the buffers read as text so far, with their parses."""
        return list(self._read.values())

    def client_text(self, path: Path) -> str | None:
        """The text as the editor shows it: a buffer verbatim, a disk file without its BOM."""
        text = self(path).text
        if text is not None and self.buffer(path) is None and text.startswith(BOM):
            text = text[1:]
        return text

    def lines(self, path: Path) -> list[str] | None:
        text = self.client_text(path)
        return None if text is None else text_to_lines(text.removeprefix(BOM))

    def uri_for(self, path: Path) -> str:
        uri = self._uris.get(path)
        if uri is None:  # asked several times per file and run (edit, blocks, diagnostics)
            buffer = self.buffer(path)
            uri = self._uris[path] = (buffer.uri if buffer is not None
                                      else from_fs_path(str(path)))
        return uri

    def bom_buffers(self) -> set[Path]:
        """Paths (as written and resolved) of buffers whose text starts with U+FEFF."""
        paths = {path for path, b in self._buffers.items() if b.text.startswith(BOM)}
        return paths | {Path(os.path.realpath(path)) for path in paths}


