"""One file of the planner's virtual file system: what a path holds right now.

:class:`VFile` keeps a file's current lines and, per line, which original line it still is
or that a block wrote it (:class:`file_text.LineOrigins`); its edit against the original
snapshot is computed once at the end of a plan (:meth:`VFile.file_edit`). See ``planning``.
"""

from __future__ import annotations

from itertools import pairwise
from math import isqrt
from pathlib import Path

from .file_text import (
    LineOrigins,
    PreparedText,
    TextDoc,
    exact_index,
    parse_text,
    render_lines,
    render_segments,
    segment_edit,
)
from .locate import Item, Replacement
from .matching import FileMatcher, LineIndex
from .model import FileEdit, FileSnapshot
from .workspace import looks_binary


class VFile:
    """One file of the plan's virtual file system (what a path holds right now)."""

    def __init__(self, path: Path, state: str, *, doc: TextDoc | None = None,
                 version: int | None = None, error: str | None = None,
                 created: bool = False, prepared: PreparedText | None = None) -> None:
        self.path = path  # current path (changes on rename)
        self.edit_path = path  # where its text edits are addressed (original / created path)
        self.state = state  # "missing" | "dir" | "binary" | "error" | "text"
        self.error = error
        self.version = version
        self.doc = doc
        self.lines: list[str] = list(doc.lines) if doc else []
        # Which original line each current line is, kept in two steps so a change costs
        # the pieces since the last rebase, not every piece of the plan: ``_rebased`` maps
        # the lines as they were at the last rebase onto the original (None: no rebase
        # yet, they are the original), ``_recent`` the current lines onto those.
        self._rebased: LineOrigins | None = None
        self._recent = LineOrigins(len(self.lines))
        self.created = created
        self._matcher: FileMatcher | None = None
        self._base: LineIndex | None = None  # exact index of doc.lines, for the whole plan
        # The exact index of the lines as they were at the last rebase (None: the original's,
        # ``base_index``): searches run over it through ``_recent``.
        self._search_base: LineIndex | None = None
        self._prepared = prepared  # the caller's reusable parse of this text, if any

    @classmethod
    def from_snapshot(cls, path: Path, snap: FileSnapshot) -> VFile:
        if snap.is_dir:
            return cls(path, "dir")
        if snap.error:
            return cls(path, "error", error=snap.error, version=snap.version)
        if snap.binary:
            return cls(path, "binary", version=snap.version)
        if snap.text is None:
            return cls(path, "missing")
        if looks_binary(snap.text):
            return cls(path, "binary", version=snap.version)
        # The caller's cached parse, only if it was made from this very text object.
        prepared = snap.prepared.for_text(snap.text) if snap.prepared is not None else None
        if prepared is not None:
            return cls(path, "text", doc=prepared.doc, version=snap.version, prepared=prepared)
        return cls(path, "text", doc=parse_text(snap.text), version=snap.version)

    @classmethod
    def new_file(cls, path: Path) -> VFile:
        return cls(path, "text", doc=parse_text(""), created=True)

    @property
    def exists(self) -> bool:
        return self.state != "missing"

    @property
    def is_empty_text(self) -> bool:
        """An existing text file with no lines (empty, or only a BOM): create may fill it."""
        return self.state == "text" and not self.lines

    def matcher(self) -> FileMatcher:
        """The matcher for the current lines (rebuilt after each change; cheap: it searches
        through the original text's index and the line origins, see FileMatcher)."""
        if self._matcher is None:
            if self.doc is None:
                self._matcher = FileMatcher(self.lines)
            else:
                if len(self._recent.pieces) > self._rebase_pieces():
                    self._rebase()
                base = self._search_base if self._search_base is not None else self.base_index()
                self._matcher = FileMatcher(self.lines, base, self._recent.pieces)
        return self._matcher

    @property
    def origins(self) -> LineOrigins:
        """Which original line each current line is (see ``LineOrigins``)."""
        if self._rebased is None:
            return self._recent
        return self._recent.through(self._rebased)

    # Every block adds pieces, and both a search and a change walk them: past this many the
    # current lines become the new snapshot searched (a copy and a join: cost ~ lines), so
    # about the square root of the line count balances the two. Many blocks on one file were
    # quadratic: 10,000 one-line blocks on a 20,000-line file took 64 s before, see the
    # commit for after. At least 128, so small plans never rebase.
    REBASE_PIECES_MIN = 128

    def _rebase_pieces(self) -> int:
        return max(self.REBASE_PIECES_MIN, 2 * isqrt(len(self.lines)))

    def _rebase(self) -> None:
        """The current lines become the snapshot that searches and changes start from."""
        self._rebased = self.origins
        self._recent = LineOrigins(len(self.lines))
        self._search_base = LineIndex(list(self.lines))  # a copy: the list changes in place

    def replace(self, replacements: list[Replacement]) -> None:
        """Apply replacements computed against the current lines, all at once."""
        if len(replacements) == 1:  # the common case (a line block, a one-hunk patch)
            start, end, items = replacements[0]
            self._splice(start, end, items)
        else:
            ordered = sorted(replacements, key=lambda r: (r[0], r[1]))  # stable: ties in order
            if all(a[1] <= b[0] for a, b in pairwise(ordered)):
                self._rebuild(ordered)
            else:
                for start, end, items in reversed(ordered):
                    self._splice(start, end, items)
        self._matcher = None  # its indexes describe the old lines

    def _splice(self, start: int, end: int, items: list[Item]) -> None:
        lines = self.lines
        self._recent.replace(start, end, items)
        lines[start:end] = [lines[item] if isinstance(item, int) else item for item in items]

    def _rebuild(self, ordered: list[Replacement]) -> None:
        """Disjoint replacements in order (every hunk of a block): rebuild lines and origins
        in one pass each. Splicing them one at a time cost the whole file and piece list per
        hunk, quadratic for a block of many hunks."""
        lines = self.lines
        rebuilt: list[str] = []
        pos = 0
        for start, end, items in ordered:
            rebuilt += lines[pos:start]
            rebuilt += [lines[item] if isinstance(item, int) else item for item in items]
            pos = end
        rebuilt += lines[pos:]
        self._recent.replace_many(ordered)
        lines[:] = rebuilt

    def base_index(self) -> LineIndex:
        """The exact index of the original lines (``doc.lines``), kept for the whole plan."""
        if self._base is None:
            assert self.doc is not None
            prepared = self._prepared
            self._base = prepared.base if prepared is not None else exact_index(self.doc)
        return self._base

    def release(self) -> None:
        """Drop the lines and indexes once the plan is done with this file (its edit made):
        a big plan then frees each file's line strings while the next file's new text is
        built, instead of holding every file's lines until the end."""
        self.lines = []
        self._rebased = None
        self._recent = LineOrigins(0)
        self._matcher = None
        self._base = None
        self._search_base = None
        self._prepared = None
        self.doc = None

    def file_edit(self) -> FileEdit | None:
        doc = self.doc
        assert doc is not None
        segments = self.origins.segments(self.lines, len(doc.lines))
        if not segments:
            return None
        edits = [segment_edit(doc, a, b, new) for a, b, new in segments]
        # LF text: the original's unchanged runs are copied as slices (the offset of line k
        # in the text is the offset of the newline before it in the index's joined form).
        new_text = render_segments(doc, segments, self.base_index().newline_before)
        return FileEdit(
            path=self.edit_path,
            version=None if self.created else self.version,
            edits=edits,
            original=doc.text,
            new_text=new_text if new_text is not None else render_lines(doc, self.lines, edits),
            has_bom=doc.has_bom,
        )
