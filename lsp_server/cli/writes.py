"""``apply``'s disk writes: the engine's planned changes carried out on files, in order.

Each file is written atomically (a reader sees the old or the new file, never half of one),
keeping its permission bits; a file that changed on disk since it was read is refused. With
``atomic`` a failed write puts back everything already written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..limits import DEFAULT_MAX_FILE_BYTES
from ..model import FileEdit, PlanResult, ResourceOp
from ..workspace import read_disk_file

# Steps that reverse what was written, run last first when an atomic apply fails.
Undo = list[Callable[[], None]]


def write_changes(result: PlanResult, *, atomic: bool,
                  max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> list[str]:
    """Carry out ``result.changes`` in order; returns error messages (empty: all written).

    A failed write marks the blocks of that file failed and the file's later changes are
    left out, as the engine skips later blocks of a failed file. With ``atomic`` everything
    already written is put back and the other blocks go back to ``validated``.
    """
    undo: Undo = []
    errors: list[str] = []
    failed_paths: set[Path] = set()
    for change in result.changes:
        paths = _change_paths(change)
        if paths & failed_paths:
            continue
        try:
            _write_change(change, undo, max_file_bytes)
        except OSError as exc:
            errors.append(f"{change.path}: {exc.strerror or exc}")
            failed_paths |= paths
            _mark_write_failure(result, paths, errors[-1], atomic)
            if atomic:
                _undo_all(undo)
                break
    return errors


def _write_change(change: FileEdit | ResourceOp, undo: Undo, max_file_bytes: int) -> None:
    if isinstance(change, FileEdit):
        _write_file_edit(change, undo, max_file_bytes)
    elif change.kind == "create":
        _create(change, undo)
    elif change.kind == "rename":
        _rename(change, undo)
    elif change.kind == "delete":
        _delete(change, undo)


def _undo_all(undo: Undo) -> None:
    for step in reversed(undo):
        with contextlib.suppress(OSError):
            step()


def _change_paths(change: FileEdit | ResourceOp) -> set[Path]:
    paths = {change.path}
    if isinstance(change, ResourceOp) and change.new_path is not None:
        paths.add(change.new_path)
    return paths


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


def _create(op: ResourceOp, undo: Undo) -> None:
    if op.path.is_file() and op.path.stat().st_size == 0:
        return  # an existing empty file may be filled (docs/formats.md)
    _make_parents(op.path, undo)
    with open(op.path, "xb"):  # "x": never clobber, even if the file appeared meanwhile
        pass
    undo.append(lambda p=op.path: p.unlink())


def _rename(op: ResourceOp, undo: Undo) -> None:
    assert op.new_path is not None
    if op.new_path.exists():
        raise FileExistsError(errno.EEXIST, f"{op.new_path} already exists")
    _make_parents(op.new_path, undo)
    os.rename(op.path, op.new_path)
    undo.append(lambda a=op.path, b=op.new_path: os.rename(b, a))


def _delete(op: ResourceOp, undo: Undo) -> None:
    info = os.lstat(op.path)
    if stat.S_ISLNK(info.st_mode):  # remove the link itself; undo re-creates the link
        link = os.readlink(op.path)
        op.path.unlink()
        undo.append(lambda p=op.path, t=link: os.symlink(t, p))
        return
    if not stat.S_ISREG(info.st_mode):  # reading a FIFO for the undo copy would block
        raise OSError(errno.EINVAL, "not a regular file; not deleted")
    saved = op.path.read_bytes()
    mode = info.st_mode
    op.path.unlink()

    def restore(p: Path = op.path, data: bytes = saved, m: int = mode) -> None:
        p.write_bytes(data)
        os.chmod(p, stat.S_IMODE(m))

    undo.append(restore)


def _make_parents(path: Path, undo: Undo) -> None:
    missing = [p for p in reversed(path.parents) if not p.exists()]
    for directory in missing:
        directory.mkdir()
        undo.append(lambda d=directory: d.rmdir())


def _write_file_edit(edit: FileEdit, undo: Undo, max_file_bytes: int) -> None:
    bom = "\ufeff" if edit.has_bom else ""
    current = read_disk_file(edit.path, max_file_bytes)
    if (current.text or "") != bom + edit.original:
        # The file changed between planning and writing: its edits are stale.
        raise OSError(errno.ESTALE, "the file changed on disk since it was read; run again")
    previous = edit.path.read_bytes() if edit.path.exists() else None
    atomic_write(edit.path, (bom + edit.new_text).encode("utf-8", errors="surrogateescape"))
    if previous is not None:
        undo.append(lambda p=edit.path, d=previous: atomic_write(p, d))


def atomic_write(path: Path, data: bytes) -> None:
    """Write via a temporary file in the same directory and ``os.replace``: a reader sees
    the old or the new file, never half of one. Keeps the file's permission bits.

    A symlink is written through (the planner confined its target to the workspace):
    replacing the link itself would turn it into a copy and leave its target unedited."""
    path = Path(os.path.realpath(path))
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


__all__ = ["atomic_write", "write_changes"]
