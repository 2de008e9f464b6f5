"""``expected_sha256``: the concurrent-edit guard agents lack.

An agent reads a file, thinks, then edits it; meanwhile the user (or another agent) may have
changed it. The agent passes the SHA-256 of the content it read; a file whose content now
differs is refused ("changed since it was read") before any block is located in it, so its
blocks fail and nothing is written to it. The content hashed is the file's text as the call
reads it, in UTF-8: on disk that is the file's bytes (a UTF-8 BOM included), in the editor an
open buffer's text, unsaved changes included.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from ..model import FileSnapshot
from ..workspace import PathResolver
from .arguments import ArgumentError

ReadFile = Callable[[Path], FileSnapshot]


def content_sha256(text: str) -> str:
    """The hex SHA-256 of ``text`` in UTF-8 (a file's bytes, for a file read from disk)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def snapshot_sha256(snapshot: FileSnapshot) -> str | None:
    """The hash of what a call read at a path (None: no file, or no text to hash)."""
    return None if snapshot.text is None else content_sha256(snapshot.text)


def _same_file_key(path: Path) -> str:
    # Two names of one file (a symlink inside the workspace) are one precondition.
    return os.path.normcase(os.path.realpath(path))


class CheckedReader:
    """The workspace's reader with the call's preconditions; it keeps what it read (the
    hashes the result reports, so an agent can pass them to its next call)."""

    def __init__(self, read: ReadFile, roots: list[Path], expected: dict[str, str]) -> None:
        self._read = read
        self.snapshots: dict[Path, FileSnapshot] = {}
        self._expected: dict[str, tuple[str, str]] = {}
        resolver = PathResolver(roots)
        for file, digest in expected.items():
            path, refusal = resolver.resolve(file)
            if path is None:
                raise ArgumentError(f"expected_sha256 names {file!r}: {refusal}")
            self._expected[_same_file_key(path)] = (file, digest)

    def __call__(self, path: Path) -> FileSnapshot:
        snapshot = self._read(path)
        self.snapshots[path] = snapshot
        expected = self._expected.get(_same_file_key(path)) if self._expected else None
        if expected is None or snapshot.error is not None or snapshot.binary:
            return snapshot
        now = snapshot_sha256(snapshot)
        if now == expected[1]:
            return snapshot
        state = "it no longer exists" if now is None else f"its SHA-256 is now {now}"
        return FileSnapshot(text=None, error=(
            f"changed since it was read ({state}, not {expected[1]} as expected_sha256 "
            "says); read it again"))


__all__ = ["CheckedReader", "content_sha256", "snapshot_sha256"]
