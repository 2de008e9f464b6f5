"""The conformance corpus's hunk-patch / semantic-diff / apply-patch / unified-diff responses
parse to the blocks the corpus expects (count, files, order), without the language server,
and with no warning but the semantic-diff batch-limit notes.

Reads the corpus (CORPUS_DIR in corpus_cases.py) at test time, never copied into the
project; skipped on a plain clone.
The full LSP-driven run is tests/e2e/test_corpus.py; the edge cases are checked by
test_corpus_line_formats.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.parsing import parse_response

from .corpus_cases import CASE_FILES, needs_corpus, read_cases

HUNK_FORMATS = {"hunk-patch", "semantic-diff", "apply-patch", "unified-diff"}
pytestmark = needs_corpus


def _cases(path: Path) -> list[dict]:
    cases = read_cases(path)
    return [c for c in cases if c["format"] in HUNK_FORMATS]


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.name for p in CASE_FILES])
def test_corpus_responses_parse_to_the_expected_blocks(path: Path) -> None:
    mismatches = []
    for case in _cases(path):
        result = parse_response(case["response"])
        got = [(b.format, b.file) for b in result.blocks]
        expected = [(case["format"], b["file"]) for b in case["expect"].get("blocks", [])]
        warnings = [w.message for w in result.warnings  # (some commits' files hold U+FFFD)
                    if not w.message.startswith(("semantic-diff batch limit",
                                                 "the response holds U+FFFD"))]
        if got != expected or warnings:
            mismatches.append((case["id"], got, expected, warnings))
    assert mismatches == []
