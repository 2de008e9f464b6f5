"""Whether a planned edit still fits the open buffers: a run plans against a snapshot, and
didChange may arrive while it plans."""

from __future__ import annotations

from ..model import FileEdit, PlanResult
from .buffers import OpenBuffers
from .file_reader import FileReader
from .protocol.positions import BOM
from .protocol.shown import shown


def changed_since(buffers: OpenBuffers, plan: PlanResult, reader: FileReader) -> str | None:
    """Why the plan's text edits no longer fit the open buffers (None: they fit).

    A run plans against a snapshot; didChange may arrive while it plans (large runs plan
    in a worker thread). Such an edit must not be sent: a client without versioned edits
    (``changes``) would apply it to the newer text, and a file read from disk and opened
    since carries no version for any editor to check.
    """
    for change in plan.changes:
        if isinstance(change, FileEdit):
            failure = _buffer_changed(buffers, reader, change)
            if failure is not None:
                return failure
    return None


def _buffer_changed(buffers: OpenBuffers, reader: FileReader, change: FileEdit) -> str | None:
    """Why ``change`` no longer fits the file's open buffer (None: it fits).

    The version alone does not tell: a buffer closed and opened again starts at version 1
    again. So the text is compared too, unless it is the very string the run read (then
    nothing happened to it: every didChange/didOpen makes a new one).
    """
    uri = reader.uri_for(change.path)
    live = buffers.get(uri)
    read = reader.buffer(change.path)
    if live is None:
        if read is None:
            return None  # read from disk and not open: the editor checks nothing, as before
        return (f"{shown(uri)} was closed while the edit was computed (its unsaved text may "
                "be gone); nothing was applied, run again")
    if read is not None and live.text is read.text:
        return None
    if change.version is not None and live.version != change.version:
        return (f"{shown(uri)} changed while the edit was computed (version "
                f"{change.version} → {live.version}); nothing was applied, run again")
    if live.text.removeprefix(BOM) != change.original:
        how = "closed and reopened with other text" if read is not None else (
            "opened and changed")
        return (f"{shown(uri)} was {how} while the edit was computed; nothing was applied, "
                "run again")
    return None
