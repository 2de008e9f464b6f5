"""``apply``'s disk writes: the engine's planned changes carried out on files, all or nothing.

Three phases keep a failure or an interruption from leaving half a run on disk:

1. *prepare* touches nothing: each edited file's new text is encoded (UTF-8 cannot hold a
   lone surrogate such as U+D800: refused); each existing file is read again and compared
   with the text the plan came from (changed since: refused) and refused if read-only;
2. *stage* writes every new text to a temporary file next to its target and makes the
   missing parent directories of created files and rename targets; then the temporary
   files are flushed to disk;
3. *commit* carries out the changes in order: a create makes the empty file exclusively, an
   edit renames its temporary file over the target (a reader sees the old or the new file,
   never half of one; the file's mode and owner are kept), a rename renames, a delete
   renames the file to a temporary name that is removed once everything is done.

Every step records how to undo what it did. SIGINT and SIGTERM are held while a step runs
and act between steps: an interrupted apply puts back everything, with or without
``atomic``, and raises :class:`Interrupted`; any unexpected exception puts back everything
too. A file that cannot be written fails its blocks: with ``atomic`` everything is put back,
otherwise the other files are still written.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import signal
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..limits import DEFAULT_MAX_FILE_BYTES
from ..model import FileEdit, PlanResult, ResourceOp
from ..workspace import decode_file_bytes, holds_text

_HELD_SIGNALS = ("SIGINT", "SIGTERM")
# A file renamed into place must be on disk first, or a crash can leave it empty. One sync()
# after staging every file flushes them together: an fsync per file cost 0.66 s of wall time
# for 200 files of 100 KB here, one sync() 0.04 s. Without sync() (Windows), each file is
# flushed with fsync as it is written. One file alone (``apply --stream`` writes each block
# as it completes, usually one file) is flushed with its own fsync: sync() flushes every
# file system of the machine, 1,063 of them cost 6.6 s of a 1 MB streamed apply.
_SYNC_ONCE = hasattr(os, "sync")


class Interrupted(BaseException):  # like KeyboardInterrupt: not an Exception
    """SIGINT or SIGTERM arrived while writing. ``complete``: after the last change, which
    stands; otherwise everything written was put back."""

    def __init__(self, signum: int, complete: bool) -> None:
        super().__init__(signum, complete)
        self.signum = signum
        self.complete = complete

    def __str__(self) -> str:
        outcome = ("after the files were written" if self.complete
                   else "while writing; nothing written (what was written is put back)")
        return f"interrupted by {signal.Signals(self.signum).name} {outcome}"


@dataclass
class WriteOutcome:
    errors: list[str] = field(default_factory=list)  # one line per file not written
    failed: set[Path] = field(default_factory=set)  # paths of changes not carried out


def write_changes(result: PlanResult, *, atomic: bool,
                  max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> WriteOutcome:
    """Carry out ``result.changes`` in order (see the module's docstring).

    A file that cannot be written marks its blocks failed and its later changes are left
    out, as the engine skips later blocks of a failed file. With ``atomic`` everything is
    put back and the other blocks go back to ``validated``.
    """
    writer = _Writer(_steps(result.changes, max_file_bytes), atomic)
    with _HeldSignals() as held:
        writer.run(held)
    for step, message in writer.errors:
        _mark_write_failure(result, step.paths, message, atomic)
    if held.pending is not None:  # arrived after the last step: the outcome stands
        raise Interrupted(held.pending, complete=True)
    return WriteOutcome([message for _, message in writer.errors], writer.failed)


# ------------------------------------------------------------------------------ steps


class _Step:
    """One planned change, carried out in phases; ``undo`` reverses what it did so far."""

    def __init__(self, change: FileEdit | ResourceOp) -> None:
        self.change = change
        self.paths = {change.path}
        if isinstance(change, ResourceOp) and change.new_path is not None:
            self.paths.add(change.new_path)
        self.undo: list[Callable[[], None]] = []
        self.committed = False

    def prepare(self) -> None:
        """Checks that touch nothing on disk."""

    def stage(self) -> None:
        """Preparations on disk that nobody sees as a change (temporaries, directories)."""

    def commit(self) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """Clean-up once the run is over, for a step committed and not rolled back."""

    def rollback(self) -> None:
        self.committed = False
        while self.undo:
            action = self.undo.pop()
            with contextlib.suppress(OSError):
                action()


class _Edit(_Step):
    change: FileEdit

    def __init__(self, edit: FileEdit, fresh: bool, max_file_bytes: int) -> None:
        super().__init__(edit)
        self.fresh = fresh  # created earlier in this run: nothing to compare with
        self.max_file_bytes = max_file_bytes
        self.target = _written_path(edit.path)
        self.data = b""
        self.previous: bytes | None = b""  # what undo puts back (None: no file)
        self.temp: Path | None = None
        self.sync_once = _SYNC_ONCE  # the writer flushes it with the others (see there)

    def prepare(self) -> None:
        bom = "\ufeff" if self.change.has_bom else ""
        self.data = _encode(bom + self.change.new_text)
        if not self.fresh:
            self.previous = _read_unchanged(self.target, bom + self.change.original,
                                            self.max_file_bytes)

    def stage(self) -> None:
        self.temp = _write_temp(self.target, self.data, durable=not self.sync_once)
        self.data = b""  # on disk now: hold one copy of the new text at a time
        self.undo.append(lambda temp=self.temp: _unlink_quietly(temp))

    def commit(self) -> None:
        assert self.temp is not None
        info = _stat_or_none(self.target)
        if info is not None:
            _match_owner_and_mode(self.temp, info)
        os.replace(self.temp, self.target)
        self.undo.append(lambda: _put_back(self.target, self.previous, info))


class _Create(_Step):
    change: ResourceOp

    def stage(self) -> None:
        _make_parents(self.change.path, self.undo)

    def commit(self) -> None:
        path = self.change.path
        if path.is_file() and path.stat().st_size == 0:
            return  # an existing empty file may be filled (docs/formats.md)
        with open(path, "xb"):  # "x": never clobber, even if the file appeared meanwhile
            pass
        self.undo.append(path.unlink)


class _Rename(_Step):
    change: ResourceOp

    def stage(self) -> None:
        assert self.change.new_path is not None
        _make_parents(self.change.new_path, self.undo)

    def commit(self) -> None:
        source, target = self.change.path, self.change.new_path
        assert target is not None
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, f"{target} already exists")
        os.rename(source, target)
        self.undo.append(lambda: os.rename(target, source))


class _Delete(_Step):
    """The file (or symlink) is renamed aside and removed only when the run is done, so
    undo is a rename back: the file keeps its inode, mode and owner."""

    change: ResourceOp

    def __init__(self, op: ResourceOp) -> None:
        super().__init__(op)
        self.aside: Path | None = None

    def commit(self) -> None:
        path = self.change.path
        info = os.lstat(path)
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
            raise OSError(errno.EINVAL, "not a regular file; not deleted")
        fd, aside = new_temp_file(path, ".deleted")
        os.close(fd)
        self.aside = aside
        self.undo.append(lambda: _unlink_quietly(Path(aside)))
        os.replace(path, aside)
        self.undo.append(lambda: os.replace(aside, path))

    def finish(self) -> None:
        if self.aside is not None:
            _unlink_quietly(self.aside)


def _steps(changes: list[FileEdit | ResourceOp], max_file_bytes: int) -> list[_Step]:
    steps: list[_Step] = []
    created: set[Path] = set()
    for change in changes:
        if isinstance(change, FileEdit):
            steps.append(_Edit(change, change.path in created, max_file_bytes))
            continue
        if change.kind == "create":
            created.add(change.path)
        steps.append(_OPS[change.kind](change))
    return steps


_OPS: dict[str, Callable[[ResourceOp], _Step]] = {
    "create": _Create, "rename": _Rename, "delete": _Delete}


# ---------------------------------------------------------------------------- the run


class _Writer:
    """Runs the phases over the steps, failing files one by one (or everything, atomic)."""

    def __init__(self, steps: list[_Step], atomic: bool) -> None:
        self.steps = steps
        self.atomic = atomic
        edits = [step for step in steps if isinstance(step, _Edit)]
        self.sync_once = _SYNC_ONCE and len(edits) > 1
        for edit in edits:
            edit.sync_once = self.sync_once
        self.failed: set[Path] = set()
        self.errors: list[tuple[_Step, str]] = []

    def run(self, held: _HeldSignals) -> None:
        try:
            for phase in ("prepare", "stage", "commit"):
                if not self._phase(phase, held):
                    self._rollback()  # an atomic run failed
                    break
                if phase == "stage" and self.sync_once:
                    held.checkpoint()
                    os.sync()  # every staged file on disk before any is renamed into place
            held.checkpoint()
        except BaseException:  # an interruption or a bug: nothing may stay half-written
            self._rollback()
            raise
        for step in self.steps:
            if step.committed:
                step.finish()

    def _phase(self, name: str, held: _HeldSignals) -> bool:
        for step in self.steps:
            held.checkpoint()
            if step.paths & self.failed:
                continue
            try:
                getattr(step, name)()
                step.committed = name == "commit"
            except OSError as exc:
                step.rollback()
                self.failed |= step.paths
                self.errors.append((step, f"{step.change.path}: {exc.strerror or exc}"))
                if self.atomic:
                    return False
        return True

    def _rollback(self) -> None:
        for step in reversed(self.steps):
            step.rollback()
            self.failed |= step.paths


class _HeldSignals:
    """SIGINT and SIGTERM, while the write runs, only note that they arrived;
    :meth:`checkpoint` (between steps) raises :class:`Interrupted`. So a signal never lands
    half-way through a step and the record of how to undo it. A signal the process ignores
    stays ignored; outside the main thread (where no handler can be set) nothing is held."""

    def __init__(self) -> None:
        self.pending: int | None = None
        self._previous: dict[int, signal.Handlers | Callable | int | None] = {}

    def __enter__(self) -> _HeldSignals:
        if threading.current_thread() is threading.main_thread():
            for name in _HELD_SIGNALS:
                signum = getattr(signal, name, None)
                if signum is not None and signal.getsignal(signum) is not signal.SIG_IGN:
                    self._previous[signum] = signal.signal(signum, self._note)
        return self

    def __exit__(self, *exc_info: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def _note(self, signum: int, frame: object) -> None:
        if self.pending is None:
            self.pending = signum

    def checkpoint(self) -> None:
        if self.pending is not None:
            signum, self.pending = self.pending, None
            raise Interrupted(signum, complete=False)


# ---------------------------------------------------------------------------- helpers


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        char = ord(text[exc.start])
        raise OSError(errno.EILSEQ, f"the new text holds U+{char:04X} (a lone surrogate), "
                                    "which UTF-8 cannot encode; not written") from None


def _read_unchanged(path: Path, expected: str, max_file_bytes: int) -> bytes | None:
    """The file's bytes (None: missing), refused if it is read-only or its text is no
    longer ``expected``."""
    try:
        # O_NONBLOCK: a FIFO put in the file's place must not block the open.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        data = None
    else:
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            _check_writable(path, info)
            data = fh.read(max_file_bytes + 1) if stat.S_ISREG(info.st_mode) else None
    if data is None:
        unchanged = expected == "" and not path.exists()
    else:  # the bytes compared first: decoding 25 MB again cost more than the comparison
        unchanged = holds_text(data, expected) or (
            (decode_file_bytes(data).text or "") == expected)
    if not unchanged:
        raise OSError(errno.ESTALE, "the file changed on disk since it was read; run again")
    return data


def _check_writable(path: Path, info: os.stat_result) -> None:
    # os.replace needs only the directory's permission: without these checks a read-only
    # file (or another user's) would be replaced.
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise OSError(errno.EACCES, "the file is read-only; not written")
    if not os.access(path, os.W_OK):
        raise OSError(errno.EACCES, "no permission to write the file; not written")


# O_EXCL: never a file someone else made; O_NOFOLLOW: never through a planted symlink.
_NEW_FILE_FLAGS = (os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                   | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
_TEMP_NUMBERS = itertools.count()


def new_temp_file(beside: Path, suffix: str) -> tuple[int, Path]:
    """A new empty file (mode 0o600) next to ``beside``, open for writing: its descriptor and
    path. Named ``.<name>.<pid>-<n><suffix>``, the next name if one is taken. As
    ``tempfile.mkstemp`` does, without its random names (importing tempfile and drawing a
    name cost a small ``apply`` 3% of its instructions)."""
    prefix = f"{beside.parent}{os.sep}.{beside.name[:40]}.{os.getpid()}-"  # short name: fits
    for _ in range(10_000):
        temp = f"{prefix}{next(_TEMP_NUMBERS)}{suffix}"
        try:
            return os.open(temp, _NEW_FILE_FLAGS, 0o600), Path(temp)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"no free temporary file name next to {beside}")


def _write_temp(target: Path, data: bytes, *, durable: bool = True) -> Path:
    """``data`` in a new temporary file next to ``target``; ``durable``: flushed to disk."""
    fd, temp = new_temp_file(target, ".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
    except BaseException:
        _unlink_quietly(temp)
        raise
    return temp


def _match_owner_and_mode(temp: Path, info: os.stat_result) -> None:
    """Give ``temp`` the owner (where permitted) and mode of the file it replaces."""
    if hasattr(os, "chown"):
        try:
            os.chown(temp, info.st_uid, info.st_gid)
        except PermissionError:  # another user's file: keep at least its group if we may
            with contextlib.suppress(PermissionError):
                os.chown(temp, -1, info.st_gid)
    os.chmod(temp, stat.S_IMODE(info.st_mode))  # after chown, which may clear set-id bits


def _put_back(target: Path, previous: bytes | None, info: os.stat_result | None) -> None:
    if previous is None:
        target.unlink()
        return
    temp = _write_temp(target, previous)
    try:
        if info is not None:
            _match_owner_and_mode(temp, info)
        os.replace(temp, target)
    except BaseException:
        _unlink_quietly(temp)
        raise


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory and
    ``os.replace``: a reader sees the old or the new file, never half of one. The file keeps
    its mode and owner; a symlink is written through (replacing the link would turn it into
    a copy and leave its target unedited)."""
    target = _written_path(path)
    _put_back(target, data, _stat_or_none(target))


def _written_path(path: Path) -> Path:
    """The file to replace: a symlink's target (replacing the link would turn it into a copy
    and leave its target unedited). A symlinked directory on the way needs no resolving:
    the temporary file and the rename go through it alike, and resolving every component
    (realpath: an lstat each) cost more than the rest of preparing a file."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def _make_parents(path: Path, undo: list[Callable[[], None]]) -> None:
    for directory in [p for p in reversed(path.parents) if not p.exists()]:
        directory.mkdir()
        undo.append(directory.rmdir)


def _stat_or_none(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def _unlink_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def _mark_write_failure(result: PlanResult, paths: set[Path], message: str,
                        atomic: bool) -> None:
    for block in result.blocks:
        if block.status != "applied":
            continue
        if block.path in paths:
            block.status = "failed"
            block.reason = f"Could not write the file: {message}"
        elif atomic:
            block.status = "validated"


__all__ = ["Interrupted", "WriteOutcome", "atomic_write", "write_changes"]
