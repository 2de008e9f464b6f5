"""``apply``'s disk writes (lsp_server.cli.writes), below the command."""

from __future__ import annotations

from pathlib import Path

import pytest

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
    errors = write_changes(result, atomic=atomic)
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
    errors = write_changes(result, atomic=True)
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
    assert len(write_changes(result, atomic=False)) == 1
    assert (tmp_path / "new.txt").read_text() == "old\n"
    assert [b.status for b in result.blocks] == ["applied", "failed"]


def test_deleting_a_symlink_removes_the_link_not_its_target(tmp_path: Path) -> None:
    (tmp_path / "target.txt").write_text("kept\n")
    (tmp_path / "link.txt").symlink_to("target.txt")
    result = PlanResult(changes=[ResourceOp("delete", tmp_path / "link.txt")])
    assert write_changes(result, atomic=True) == []
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
