"""``apply``'s disk writes (lsp_server.cli.writes), below the command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lsp_server.cli import cli, writes
from lsp_server.cli.writes import atomic_write, write_changes
from lsp_server.model import BlockResult, FileEdit, PlanResult, ResourceOp


@pytest.mark.parametrize("atomic", [True, False])
def test_write_changes_refuses_a_file_changed_since_planning(tmp_path: Path,
                                                             atomic: bool) -> None:
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_text("one\n")
    second.write_text("changed meanwhile\n")
    result = PlanResult(
        blocks=[BlockResult(0, "first.txt", "edit-v3", "applied", path=first),
                BlockResult(1, "second.txt", "edit-v3", "applied", path=second)],
        changes=[FileEdit(first, None, [], "one\n", "ONE\n"),
                 FileEdit(second, None, [], "two\n", "TWO\n")],
    )
    errors = write_changes(result, atomic=atomic).errors
    assert len(errors) == 1 and "changed on disk" in errors[0]
    assert second.read_text() == "changed meanwhile\n"
    assert result.blocks[1].status == "failed"
    assert "Could not write the file" in (result.blocks[1].reason or "")
    if atomic:  # the first file is put back and its block only validated
        assert first.read_text() == "one\n"
        assert result.blocks[0].status == "validated"
    else:
        assert first.read_text() == "ONE\n"
        assert result.blocks[0].status == "applied"


def test_atomic_apply_puts_back_creates_renames_and_deletes(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("old\n")
    (tmp_path / "gone.txt").write_text("gone\n")
    (tmp_path / "gone.txt").chmod(0o640)
    (tmp_path / "taken.txt").write_text("taken\n")
    new = tmp_path / "sub/dir/new.txt"
    result = PlanResult(
        blocks=[BlockResult(i, name, "apply-patch", "applied", path=tmp_path / name)
                for i, name in enumerate(["sub/dir/new.txt", "old.txt", "gone.txt", "x.txt"])],
        changes=[ResourceOp("create", new),
                 FileEdit(new, None, [], "", "hello\n"),
                 ResourceOp("rename", tmp_path / "old.txt", tmp_path / "moved/old.txt"),
                 ResourceOp("delete", tmp_path / "gone.txt"),
                 ResourceOp("rename", tmp_path / "x.txt", tmp_path / "taken.txt")],
    )
    (tmp_path / "x.txt").write_text("x\n")
    errors = write_changes(result, atomic=True).errors
    assert len(errors) == 1 and "already exists" in errors[0]
    assert not (tmp_path / "sub").exists() and not (tmp_path / "moved").exists()
    assert (tmp_path / "old.txt").read_text() == "old\n"
    assert (tmp_path / "gone.txt").read_text() == "gone\n"
    assert (tmp_path / "gone.txt").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "taken.txt").read_text() == "taken\n"
    assert [b.status for b in result.blocks] == ["validated"] * 3 + ["failed"]


def test_without_atomic_the_other_changes_stay_written(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("old\n")
    (tmp_path / "x.txt").write_text("x\n")
    (tmp_path / "taken.txt").write_text("taken\n")
    result = PlanResult(
        blocks=[BlockResult(0, "old.txt", "apply-patch", "applied", path=tmp_path / "old.txt"),
                BlockResult(1, "x.txt", "apply-patch", "applied", path=tmp_path / "x.txt")],
        changes=[ResourceOp("rename", tmp_path / "old.txt", tmp_path / "new.txt"),
                 ResourceOp("rename", tmp_path / "x.txt", tmp_path / "taken.txt")],
    )
    assert len(write_changes(result, atomic=False).errors) == 1
    assert (tmp_path / "new.txt").read_text() == "old\n"
    assert [b.status for b in result.blocks] == ["applied", "failed"]


def test_deleting_a_symlink_removes_the_link_not_its_target(tmp_path: Path) -> None:
    (tmp_path / "target.txt").write_text("kept\n")
    (tmp_path / "link.txt").symlink_to("target.txt")
    result = PlanResult(changes=[ResourceOp("delete", tmp_path / "link.txt")])
    assert write_changes(result, atomic=True).errors == []
    assert not (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "target.txt").read_text() == "kept\n"


def test_atomic_write_goes_through_a_symlink_and_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "target.sh"
    target.write_text("old\n")
    target.chmod(0o750)
    (tmp_path / "link.sh").symlink_to("target.sh")
    atomic_write(tmp_path / "link.sh", b"new\n")
    assert (tmp_path / "link.sh").is_symlink()
    assert target.read_bytes() == b"new\n" and target.stat().st_mode & 0o777 == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.sh", "target.sh"]


# ------------------------------------------------------------------ interruptions

# Runs `llm-edits apply` in a child process whose <module>.<function> raises the signal named
# right after its n-th call: the interruption lands at a chosen point of the write phase
# (staging makes temporary files with writes.new_temp_file and flushes them with os.sync where
# there is one, else os.fsync; committing renames them with os.replace), deterministically.
# A child, because SIGTERM's default action kills the process.
_INTERRUPTING_CHILD = """
import importlib, signal, sys
from lsp_server.cli import main

primitive, when, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
module_name, function = primitive.rsplit(".", 1)
module = importlib.import_module(module_name)
real = getattr(module, function)
calls = 0

def interrupting(*args, **kwargs):
    global calls
    result = real(*args, **kwargs)
    calls += 1
    if calls == when:
        signal.raise_signal(getattr(signal, name))
    return result

setattr(module, function, interrupting)
main(sys.argv[4:])
"""

_THREE_EDITS = "".join(
    f"f{i}.txt\n<<<<<<< SEARCH\nline {i}\n=======\nLINE {i}\n>>>>>>> REPLACE\n"
    for i in range(3))


# os.replace 5: the last step (the created file's fill), after which the run is checked once
# more.
_FLUSH = "os.sync" if hasattr(os, "sync") else "os.fsync"


@pytest.mark.parametrize("atomic", [True, False])
@pytest.mark.parametrize("primitive, when", [
    ("lsp_server.cli.writes.new_temp_file", 2), (_FLUSH, 1), ("os.replace", 1), ("os.replace", 3),
    ("os.replace", 5)])
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_an_interrupted_apply_writes_nothing(tmp_path: Path, primitive: str, when: int,
                                             name: str, atomic: bool) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    for i in range(3):
        (root / f"f{i}.txt").write_text(f"line {i}\n")
    (root / "gone.txt").write_text("gone\n")
    response = tmp_path / "response.md"
    response.write_text(_THREE_EDITS + "*** Begin Patch\n*** Delete File: gone.txt\n"
                        "*** Add File: new/made.txt\n+made\n*** End Patch\n")
    before = {p.name: p.read_bytes() for p in root.iterdir()}
    run = subprocess.run(
        [sys.executable, "-c", _INTERRUPTING_CHILD, primitive, str(when), name, "apply",
         "--root", str(root), str(response), *(["--atomic"] if atomic else [])],
        capture_output=True, text=True, timeout=120)
    signum = getattr(signal, name)
    assert run.returncode == 128 + signum, (run.returncode, run.stderr)
    assert run.stderr.count("\n") == 1 and f"interrupted by {name}" in run.stderr
    assert "nothing written" in run.stderr
    assert {p.name: p.read_bytes() for p in root.iterdir()} == before  # no temporaries


def test_an_unexpected_exception_while_writing_puts_everything_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [tmp_path / f"f{i}.txt" for i in range(3)]
    for path in files:
        path.write_text("old\n")
    result = PlanResult(
        blocks=[BlockResult(i, p.name, "edit-v3", "applied", path=p)
                for i, p in enumerate(files)],
        changes=[FileEdit(p, None, [], "old\n", "new\n") for p in files])
    real_replace = os.replace
    calls: list[str] = []

    def failing_replace(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise RuntimeError("a bug")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(RuntimeError):
        write_changes(result, atomic=False)
    monkeypatch.setattr(os, "replace", real_replace)
    assert [p.read_text() for p in files] == ["old\n"] * 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f0.txt", "f1.txt", "f2.txt"]


# ------------------------------------------------------------------ refusals


@pytest.mark.parametrize("atomic", [True, False])
def test_a_lone_surrogate_is_refused_before_anything_is_written(tmp_path: Path,
                                                                atomic: bool) -> None:
    # A hunk-patch call's JSON can spell "\ud800"; encoding it raised UnicodeEncodeError (not
    # an OSError) after the edited file was written and the created one made empty.
    (tmp_path / "f.txt").write_text("a\nb\n")
    response = tmp_path / "response.md"
    response.write_text(
        'edit {"path":"f.txt","op":"update","diff":"@@\\n a\\n-b\\n+B\\n"}\n'
        'edit {"path":"new.txt","op":"create","diff":"x\\ud800y\\n"}\n')
    result = CliRunner().invoke(cli, ["apply", "--json", "--root", str(tmp_path),
                                      str(response), *(["--atomic"] if atomic else [])])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    (error,) = data["writeErrors"]
    assert "new.txt" in error and "U+D800" in error and "\n" not in error
    assert not (tmp_path / "new.txt").exists()
    assert (tmp_path / "f.txt").read_text() == ("a\nb\n" if atomic else "a\nB\n")
    assert [b["status"] for b in data["blocks"]] == (
        ["validated", "failed"] if atomic else ["applied", "failed"])


def test_a_read_only_file_is_refused_with_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "ro.txt"
    path.write_text("old\n")
    path.chmod(0o444)
    result = PlanResult(blocks=[BlockResult(0, "ro.txt", "edit-v3", "applied", path=path)],
                        changes=[FileEdit(path, None, [], "old\n", "new\n")])
    (error,) = write_changes(result, atomic=False).errors
    assert "read-only" in error
    assert path.read_text() == "old\n" and path.stat().st_mode & 0o777 == 0o444
    assert result.blocks[0].status == "failed" and "read-only" in (result.blocks[0].reason or "")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="giving a file to another user needs root")
def test_an_edited_file_keeps_its_owner_and_mode(tmp_path: Path) -> None:
    path = tmp_path / "theirs.txt"
    path.write_text("old\n")
    os.chown(path, 4242, 4243)
    path.chmod(0o640)
    result = PlanResult(changes=[FileEdit(path, None, [], "old\n", "new\n")])
    assert write_changes(result, atomic=True).errors == []
    info = path.stat()
    assert (path.read_text(), info.st_uid, info.st_gid, info.st_mode & 0o777) == (
        "new\n", 4242, 4243, 0o640)


def test_one_file_is_flushed_with_its_own_fsync_and_several_with_one_sync(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``apply --stream`` writes each block as it completes, mostly one file: sync() would
    flush every file system of the machine each time."""
    flushes: list[str] = []
    if hasattr(os, "sync"):
        monkeypatch.setattr(os, "sync", lambda: flushes.append("sync"))
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (flushes.append("fsync"), real_fsync(fd)))
    files = [tmp_path / f"f{i}.txt" for i in range(3)]
    for path in files:
        path.write_text("old\n")

    def plan(paths: list[Path]) -> PlanResult:
        return PlanResult(blocks=[BlockResult(i, p.name, "edit-v3", "applied", path=p)
                                  for i, p in enumerate(paths)],
                          changes=[FileEdit(p, None, [], "old\n", "new\n") for p in paths])

    write_changes(plan(files[:1]), atomic=False)
    assert flushes == ["fsync"]
    flushes.clear()
    write_changes(plan(files[1:]), atomic=False)
    assert flushes == (["sync"] if hasattr(os, "sync") else ["fsync", "fsync"])
    assert [p.read_text() for p in files] == ["new\n"] * 3


def test_a_temporary_file_is_new_private_and_skips_a_name_already_taken(
        tmp_path: Path) -> None:
    target = tmp_path / "a.py"
    first_fd, first = writes.new_temp_file(target, ".tmp")
    os.close(first_fd)
    # The next number's name is taken by someone else's file: it is left alone, not opened.
    number = int(first.name.rsplit("-", 1)[1].removesuffix(".tmp")) + 1
    taken = tmp_path / f".a.py.{os.getpid()}-{number}.tmp"
    taken.write_text("someone else's")
    fd, temp = writes.new_temp_file(target, ".tmp")
    os.close(fd)
    assert temp.parent == tmp_path and temp not in (first, taken)
    assert temp.name.startswith(".a.py.") and temp.name.endswith(".tmp")
    assert taken.read_text() == "someone else's"
    assert temp.stat().st_mode & 0o777 == 0o600 and temp.read_bytes() == b""
