"""The titles of a response document's code lenses (lsp/code_lens.py); the lenses end to end:
tests/e2e/test_code_lens.py."""

from __future__ import annotations

import pytest

from lsp_server.lsp.live.code_lens import apply_all_title, status_title
from lsp_server.model import BlockResult


@pytest.mark.parametrize(("ready", "title"), [
    (0, "Apply all 0 ready blocks"), (1, "Apply 1 ready block"), (2, "Apply all 2 ready blocks"),
])
def test_the_apply_all_title_counts_ready_blocks(ready: int, title: str) -> None:
    assert apply_all_title(ready) == title


@pytest.mark.parametrize(("result", "title"), [
    (BlockResult(0, "src/app.py", "edit-v3", "validated", line=41), "✓ src/app.py:42"),
    (BlockResult(0, "src/app.py", "edit-v3", "applied", line=41), "✓ applied src/app.py:42"),
    (BlockResult(0, "a.py", "edit-v3", "failed", reason="Anchor not found\nmore", line=3,
                 fixes={"closestLine": 56}), "✗ Anchor not found — closest line 57"),
    (BlockResult(0, "a.py", "edit-v3", "failed", reason="File not found: a.py", line=0),
     "✗ File not found: a.py"),
    (BlockResult(0, "a.py", "edit-v3", "skipped"), "⊘ skipped"),
    (BlockResult(0, "a.py", "edit-v3", "already-applied", line=3), "= already applied"),
    (BlockResult(0, "a.py", "edit-v3", "failed", reason="x" * 200), "✗ " + "x" * 79 + "…"),
    (BlockResult(0, "a\u202eb.py", "edit-v3", "validated", line=0), "✓ a\\u202eb.py:1"),
])
def test_status_titles(result: BlockResult, title: str) -> None:
    assert status_title(result) == title
