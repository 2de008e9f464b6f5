"""Blocks refused after planning: unsaved buffers deleted, paths left and written again by a
client that cannot delete or rename files."""

from __future__ import annotations

from pathlib import Path

from lsp_server.lsp.buffers import Buffer
from lsp_server.lsp.client_refusals import plan_for_client
from lsp_server.lsp.file_reader import FileReader
from lsp_server.parsing import parse_response

from .plans import NEOVIM, VSCODE


def _patch(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("a = 1\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("b = 1\n", encoding="utf-8")
    return tmp_path


def _reader(root: Path, unsaved: dict[str, str] | None = None) -> FileReader:
    buffers = {root / name: Buffer((root / name).as_uri(), text, 3, path=root / name)
               for name, text in (unsaved or {}).items()}
    return FileReader(buffers)


DELETE_THEN_CREATE = _patch("*** Delete File: a.py\n", "*** Add File: a.py\n+fresh\n",
                            "*** Update File: a.py\n@@\n-fresh\n+fresher\n",
                            "*** Update File: b.py\n@@\n-b = 1\n+b = 2\n")


def test_blocks_writing_a_path_left_unsent_fail_and_the_rest_is_planned_again(
        tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    parsed = parse_response(DELETE_THEN_CREATE)
    resets: list[None] = []
    plan = plan_for_client(parsed, _reader(root), [root], NEOVIM,
                           before_replanning=lambda: resets.append(None))
    assert [b.status for b in plan.blocks] == ["failed", "failed", "failed", "validated"]
    assert all("a.py is deleted by block 1" in b.reason for b in plan.blocks[:3])
    assert [c.path.name for c in plan.changes] == ["b.py"]  # a.py left as it is
    assert len(resets) == 1
    # A client that can delete: nothing refused, nothing planned twice.
    plan = plan_for_client(parsed, _reader(root), [root], VSCODE,
                           before_replanning=lambda: resets.append(None))
    assert [b.status for b in plan.blocks] == ["validated"] * 4 and len(resets) == 1


def test_with_atomic_a_refused_block_holds_every_change(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    plan = plan_for_client(parse_response(DELETE_THEN_CREATE), _reader(root), [root],
                           NEOVIM, atomic=True)
    assert [b.status for b in plan.blocks] == ["failed", "failed", "failed", "validated"]
    assert plan.changes == [] and plan.files_modified == []


def test_a_delete_of_a_buffer_that_differs_from_its_file_is_refused(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    parsed = parse_response(_patch("*** Delete File: a.py\n",
                                   "*** Update File: b.py\n@@\n-b = 1\n+b = 2\n"))
    plan = plan_for_client(parsed, _reader(root, {"a.py": "a = 1\n# unsaved\n"}), [root],
                           VSCODE)
    assert [b.status for b in plan.blocks] == ["failed", "validated"]
    assert plan.blocks[0].reason.startswith("a.py has unsaved changes in the editor")
    assert [c.path.name for c in plan.changes] == ["b.py"]
    # A clean buffer (a BOM the editor shows or hides is no difference), or no buffer: sent.
    for unsaved in ({"a.py": "\ufeffa = 1\n"}, {}):
        plan = plan_for_client(parsed, _reader(root, unsaved), [root], VSCODE)
        assert [b.status for b in plan.blocks] == ["validated", "validated"]
    # A buffer of a file that is not on disk (never saved) has nothing to compare to.
    (root / "a.py").unlink()
    plan = plan_for_client(parsed, _reader(root, {"a.py": "a = 1\n"}), [root], VSCODE)
    assert plan.blocks[0].status == "failed" and "unsaved" in plan.blocks[0].reason


def test_a_fix_of_one_block_is_refused_the_same_way(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    parsed = parse_response(DELETE_THEN_CREATE)
    plan = plan_for_client(parsed, _reader(root, {"a.py": "dirty\n"}), [root], VSCODE,
                           only={0})
    assert [(b.index, b.status) for b in plan.blocks] == [(0, "failed")]
    assert plan.changes == []
