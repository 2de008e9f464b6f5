"""The shared conformance corpus's case files, read at test time (never copied into the
project), for the parser-only corpus tests; a plain clone has none and skips them."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

CORPUS_DIR = Path(__file__).resolve().parents[4] / "shared" / "corpus"  # beside the project
CASE_FILES = sorted((CORPUS_DIR / "dev").glob("*.jsonl.gz"))

needs_corpus = pytest.mark.skipif(
    not CASE_FILES, reason=f"shared conformance corpus not found at {CORPUS_DIR}"
)


def read_cases(path: Path) -> list[dict]:
    """Every case of one ``*.jsonl.gz`` file."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
