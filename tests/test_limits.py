"""Limits: big responses, files and blocks are answered with a clear message, within bounds.

Sizes here are moderate (the long run, ``fuzz/run_fuzz.py --limits``, uses the real ones: a
50 MB response, a 1,000,000-line file, a 100,000-line block, and measures time and peak
RSS). The tests assert behaviour: what is refused, with which message, and that the limits
are configurable (``initializationOptions`` / command ``options`` for the server, options
for the CLI, keywords for the Python API). See docs/safety.md for the table of limits.
"""

from __future__ import annotations

from pathlib import Path

from lsp_server.planning import DEFAULT_MAX_BLOCK_LINES, block_line_count, plan_response
from lsp_server.workspace import read_disk_file


def _rows(count: int, word: str = "row") -> str:
    return "".join(f"{word} {i}\n" for i in range(count))


def _replace_all(path: str, count: int) -> str:
    return (f"{path}\n<<<<<<< SEARCH\n{_rows(count)}=======\n{_rows(count, 'ROW')}"
            ">>>>>>> REPLACE\n")


# ------------------------------------------------------------------ block lines


def test_a_100000_line_block_applies(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(_rows(50_000), encoding="utf-8")
    plan = plan_response(_replace_all("big.txt", 50_000), read_disk_file, [tmp_path])
    (block,) = plan.blocks
    assert block.status == "validated"
    assert plan.changes[0].new_text == _rows(50_000, "ROW")


def test_a_block_over_max_block_lines_fails_at_once_with_the_limit_named(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(_rows(1000), encoding="utf-8")
    response = _replace_all("big.txt", 1000) + _replace_all("other.txt", 1)
    plan = plan_response(response, read_disk_file, [tmp_path], max_block_lines=1500)
    big, small = plan.blocks
    assert big.status == "failed"
    assert "Block has 2000 lines, more than the limit of 1500 (maxBlockLines)" in big.reason
    assert small.status == "failed" and "not found" in small.reason.lower()  # still planned
    assert plan.changes == []
    # No limit: it applies.
    plan = plan_response(response, read_disk_file, [tmp_path], max_block_lines=None)
    assert plan.blocks[0].status == "validated"


def test_default_block_line_limit_counts_every_line_of_the_block() -> None:
    from lsp_server.parsing import parse_response

    (block,) = parse_response(_replace_all("x.txt", 10)).blocks
    assert block_line_count(block) == 20
    patch = "*** Begin Patch\n*** Update File: x.txt\n@@ a\n-b\n+c\n d\n*** End Patch\n"
    (block,) = parse_response(patch).blocks
    assert block_line_count(block) == 3
    assert DEFAULT_MAX_BLOCK_LINES >= 100_000
