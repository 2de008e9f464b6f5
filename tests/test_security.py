"""Path safety: a response may only touch regular files inside the workspace, never .git.

Every hostile path is tried through the engine (``plan_response`` against a workspace with a
sibling ``outside`` folder and symlinks), and the main ones also through the CLI (``llm-edits
apply`` must leave the disk byte-identical) and the server (the edit sent to the editor names
no file outside). See docs/safety.md for the rules and their reasons.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lsp_server.planning import plan_response
from lsp_server.workspace import read_disk_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the fuzz/ package

from fuzz.harness import HostileWorkspace


@pytest.fixture
def hostile(tmp_path: Path) -> HostileWorkspace:
    return HostileWorkspace.create(tmp_path)


def _search_replace(path: str, old: str = "alpha", new: str = "ALPHA") -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n"


# ------------------------------------------------------------------ special files


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_fifo_in_the_workspace_is_refused_without_blocking(hostile: HostileWorkspace) -> None:
    # Reading a FIFO waited for a writer forever: the CLI hung, the server's worker thread
    # never answered.
    os.mkfifo(hostile.root / "pipe")
    result: list = []
    worker = threading.Thread(target=lambda: result.append(plan_response(
        _search_replace("pipe"), read_disk_file, [hostile.root])), daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "reading a FIFO blocked"
    (block,) = result[0].blocks
    assert block.status == "failed"
    assert "not a regular file" in (block.reason or "")


def test_a_device_is_not_read() -> None:
    # /dev/zero reports size 0 and never ends: it would be read until memory ran out.
    snapshot = read_disk_file(Path("/dev/zero"))
    assert snapshot.text is None
    assert "not a regular file" in (snapshot.error or "")


def test_cli_does_not_hang_on_a_fifo(hostile: HostileWorkspace, tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs mkfifo")
    os.mkfifo(hostile.root / "pipe")
    response = tmp_path / "response.md"
    response.write_text(_search_replace("pipe"), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "lsp_server.cli", "apply", "--json", "--root",
         str(hostile.root), str(response)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    (block,) = json.loads(run.stdout)["blocks"]
    assert "not a regular file" in block["reason"]
