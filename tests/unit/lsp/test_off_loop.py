"""What a command does on the event loop and what in a worker thread."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

from lsp_server.lsp.buffers import Buffer
from lsp_server.lsp.file_reader import FileReader
from lsp_server.lsp.off_loop import (
    INLINE_MAX_BLOCKS,
    INLINE_MAX_FILE_CHARS,
    INLINE_MAX_HUNKS,
    converts_inline,
    encoded,
    off_loop,
    plans_inline,
)
from lsp_server.lsp.protocol.pygls_hooks import EncodedJson
from lsp_server.model import BlockResult, PlanResult
from lsp_server.parsing import parse_response


def _edit(path: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"


def test_a_small_response_on_small_files_plans_on_the_loop(tmp_path: Path) -> None:
    (tmp_path / "small.py").write_text("x = 1\n")
    (tmp_path / "big.py").write_text("x = 1\n" * (INLINE_MAX_FILE_CHARS // 6 + 1))
    reader = FileReader({})
    small = _edit("small.py") + _edit("missing.py") + _edit("../../a\x00b")
    assert plans_inline(small, parse_response(small), reader, [tmp_path])
    # A big file on disk, or a big open buffer (not saved), goes to a thread.
    assert not plans_inline(_edit("big.py"), parse_response(_edit("big.py")), reader,
                            [tmp_path])
    buffered = FileReader({tmp_path / "small.py": Buffer(
        (tmp_path / "small.py").as_uri(), "x = 1\n" * INLINE_MAX_FILE_CHARS, 2,
        path=tmp_path / "small.py")})
    assert not plans_inline(small, parse_response(small), buffered, [tmp_path])
    many = _edit("small.py") * (INLINE_MAX_BLOCKS + 1)
    assert not plans_inline(many, parse_response(many), reader, [tmp_path])


def test_one_small_block_of_many_hunks_plans_in_a_thread(tmp_path: Path) -> None:
    (tmp_path / "small.py").write_text("x = 1\n")
    reader = FileReader({})
    patch = "*** Begin Patch\n*** Update File: small.py\n{}*** End Patch\n"
    few = patch.format("@@\n-x = 1\n+x = 2\n" * INLINE_MAX_HUNKS)
    many = patch.format("@@\n-x = 1\n+x = 2\n" * (INLINE_MAX_HUNKS + 1))
    assert len(many) < 64 * 1024 and len(parse_response(many).blocks) == 1
    assert plans_inline(few, parse_response(few), reader, [tmp_path])
    assert not plans_inline(many, parse_response(many), reader, [tmp_path])


def test_a_plan_of_many_blocks_or_on_big_files_is_converted_in_a_thread(
        tmp_path: Path) -> None:
    blocks = [BlockResult(i, "a.py", "edit-v3", "failed") for i in range(INLINE_MAX_BLOCKS)]
    reader = FileReader({})
    assert converts_inline(PlanResult(blocks=blocks), reader)
    blocks.append(BlockResult(INLINE_MAX_BLOCKS, "a.py", "edit-v3", "failed"))
    assert not converts_inline(PlanResult(blocks=blocks), reader)
    (tmp_path / "big.py").write_text("x\n" * INLINE_MAX_FILE_CHARS)
    reader(tmp_path / "big.py")  # the run read a big file: its diagnostics split its lines
    assert not converts_inline(PlanResult(blocks=blocks[:1]), reader)


async def test_work_runs_here_or_in_a_thread_and_big_results_come_encoded() -> None:
    here = threading.get_ident()
    assert await off_loop(True, threading.get_ident) == here
    assert await off_loop(False, threading.get_ident) != here
    result = {"blocks": [{"file": "é.py"}]}
    assert await encoded(result, inline=True) is result
    done = await encoded(result, inline=False)
    assert isinstance(done, EncodedJson) and json.loads(done.text) == result
    assert done.text.isascii()
    await asyncio.sleep(0)
