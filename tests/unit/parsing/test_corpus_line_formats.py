"""The conformance corpus's edit-v3 / edit-v2 / search-replace and edge cases parse to the
blocks the corpus expects (count, files, order), without the language server.

Reads the corpus (CORPUS_DIR in corpus_cases.py) at test time, never copied into the
project; skipped on a plain clone.
The full LSP-driven run is tests/e2e/test_corpus.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.parsing import parse_response

from .corpus_cases import CASE_FILES, needs_corpus, read_cases

LINE_FORMATS = {"edit-v3", "edit-v2", "search-replace"}
pytestmark = needs_corpus


def _cases(path: Path) -> list[dict]:
    cases = read_cases(path)
    # our formats, and the hand-written edge cases (which mix every format)
    return [c for c in cases if c["format"] in LINE_FORMATS or c["id"].startswith("edge:")]


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.name for p in CASE_FILES])
def test_corpus_responses_parse_to_the_expected_blocks(path: Path) -> None:
    mismatches = []
    for case in _cases(path):
        result = parse_response(case["response"])
        got = [b.file for b in result.blocks]
        expected = [b["file"] for b in case["expect"].get("blocks", [])]
        if got != expected:
            mismatches.append((case["id"], got, expected))
    assert mismatches == []
