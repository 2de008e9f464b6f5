"""The shared conformance corpus, driven over LSP by its own runner exactly as an editor would.

Runs whenever the corpus exists at CORPUS_DIR, beside the checkout (CI and every development
checkout); a plain clone skips it, saying why. The corpus stays outside the repository: it is
test data from other repositories and is never copied into this project.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = PROJECT_ROOT.parent / "shared" / "corpus"

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(
        not (CORPUS_DIR / "run.py").exists(),
        reason=f"shared conformance corpus not found at {CORPUS_DIR} "
        "(a plain clone without ../shared)",
    ),
]


def _run(*extra: str) -> subprocess.CompletedProcess:
    # dev/ and next/ (this wave's rules, built: they hold the engine to them until they move
    # into dev/).
    files = sorted(str(p) for folder in ("dev", "next")
                   for p in (CORPUS_DIR / folder).glob("*.jsonl.gz"))
    assert files, f"no corpus files in {CORPUS_DIR / 'dev'}"
    return subprocess.run(
        [sys.executable, str(CORPUS_DIR / "run.py"), *extra, *files],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=900,
    )


@pytest.mark.parametrize("mode", ["preview", "apply"])
def test_corpus_passes_completely(mode: str) -> None:
    proc = _run(*(["--apply"] if mode == "apply" else []))
    tail = "\n".join(proc.stdout.splitlines()[-40:])
    assert proc.returncode == 0, f"corpus failures ({mode}):\n{tail}\n{proc.stderr[-2000:]}"
    assert " 0 failed" in proc.stdout.splitlines()[-1], tail
