"""What a small ``llm-edits apply`` imports: a shell command pays its imports on every run,
and for a one-hunk patch they are most of its cost (docs/benchmarks.md, benchmark 7). Which
modules load is behaviour, checked here; no timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Each is loaded on first use by the code that needs it (a semantic-diff fence markdown-it
# must read, a failed block's fuzzy diagnosis, a code block's merge, a file: URI target).
LOADED_ON_FIRST_USE = ["markdown_it", "rapidfuzz", "lsp_server.merge", "urllib.request"]

PATCH = ("*** Begin Patch\n*** Update File: a.py\n@@\n one\n-two\n+TWO\n three\n"
         "*** End Patch\n")
CODE = (
    "import json, sys\n"
    "from lsp_server.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit as exit:\n"
    "    print(json.dumps([exit.code, sorted(sys.modules)]), file=sys.stderr)\n"
)


def _modules_after(args: list[str], response: str, cwd: Path) -> tuple[int, set[str]]:
    run = subprocess.run([sys.executable, "-c", CODE, *args], input=response,
                         capture_output=True, text=True, timeout=60, cwd=cwd)
    code, modules = json.loads(run.stderr.strip().splitlines()[-1])
    return code, set(modules)


@pytest.mark.parametrize("command", ["check", "apply"])
def test_a_small_apply_patch_run_loads_none_of_the_heavy_optional_modules(
        tmp_path: Path, command: str) -> None:
    (tmp_path / "a.py").write_text("one\ntwo\nthree\n")
    code, loaded = _modules_after([command, "--root", ".", "-"], PATCH, tmp_path)
    assert code == 0
    assert "lsp_server.planning" in loaded  # the run did plan its block
    assert not loaded & set(LOADED_ON_FIRST_USE), sorted(loaded & set(LOADED_ON_FIRST_USE))
    expected = "one\nTWO\nthree\n" if command == "apply" else "one\ntwo\nthree\n"
    assert (tmp_path / "a.py").read_text() == expected


def test_a_failed_block_loads_the_fuzzy_diagnosis_it_needs(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("one\ntwo, reworded\nthree\n")
    code, loaded = _modules_after(["check", "--root", ".", "-"], PATCH, tmp_path)
    assert code == 1
    assert "rapidfuzz" in loaded
