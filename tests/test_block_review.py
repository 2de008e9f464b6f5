"""Per-block review over stdio (pytest-lsp): running some blocks (``options.blocks``),
change annotations, and choosing among the places of an ambiguous block."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient
from test_server import Editor, client  # noqa: F401  (client: the pytest-lsp fixture)

THREE_BLOCKS = """src/a.py
««« EDIT
one
═══════ REPL
ONE
»»» EDIT END

src/a.py
««« EDIT
ONE
two
═══════ REPL
ONE
TWO
»»» EDIT END

src/b.py
««« EDIT
x
═══════ REPL
X
»»» EDIT END
"""


async def _editor(client: LanguageClient, root: Path, **start: object) -> Editor:  # noqa: F811
    editor = Editor(client, root)
    editor.write("src/a.py", "one\ntwo\n")
    editor.write("src/b.py", "x\n")
    await editor.start(**start)
    return editor


def _statuses(result: dict) -> list[str]:
    return [b["status"] for b in result["blocks"]]


# ------------------------------------------------------------------ options.blocks


async def test_apply_runs_only_the_selected_blocks(client: LanguageClient,  # noqa: F811
                                                   tmp_path: Path) -> None:
    editor = await _editor(client, tmp_path)
    result = await editor.run("llmEdits.apply",
                              {"response": THREE_BLOCKS, "options": {"blocks": [0, 2]}})
    assert _statuses(result) == ["applied", "excluded", "applied"]
    assert result["applied"] is True
    assert editor.text("src/a.py") == "ONE\ntwo\n"
    assert editor.text("src/b.py") == "X\n"
    excluded = result["blocks"][1]
    assert (excluded["index"], excluded["line"], excluded["reason"]) == (1, None, None)
    assert "message" not in result


async def test_a_block_that_needed_an_excluded_one_fails(client: LanguageClient,  # noqa: F811
                                                          tmp_path: Path) -> None:
    editor = await _editor(client, tmp_path)
    result = await editor.run("llmEdits.preview",
                              {"response": THREE_BLOCKS, "options": {"blocks": [1, 2]}})
    assert _statuses(result) == ["excluded", "failed", "validated"]
    assert "not found" in result["blocks"][1]["reason"]
    # Diagnostics: the failure only; nothing for the excluded block.
    (diagnostic,) = editor.diagnostics("src/a.py")
    assert diagnostic.code == "failed" and diagnostic.data["index"] == 1
    feedback = await editor.run("llmEdits.feedback",
                                {"response": THREE_BLOCKS, "options": {"blocks": [1, 2]}})
    assert "Block 2" in feedback["text"] and "block 1:" not in feedback["text"]


async def test_an_empty_selection_runs_nothing_and_says_so(client: LanguageClient,  # noqa: F811
                                                           tmp_path: Path) -> None:
    editor = await _editor(client, tmp_path)
    result = await editor.run("llmEdits.apply",
                              {"response": THREE_BLOCKS, "options": {"blocks": []}})
    assert _statuses(result) == ["excluded"] * 3
    assert result["edit"] is None and result["applied"] is False
    assert result["message"] == "options.blocks is empty: no block was run (3 blocks excluded)"
    assert editor.apply_requests == []
    assert editor.text("src/a.py") == "one\ntwo\n"


@pytest.mark.parametrize(("blocks", "named"), [
    ([0, 3], "there is no block 3: the response has 3 blocks (valid: 0-2)"),
    ([1, 1], "options.blocks[1] repeats block index 1"),
    ([-1], "options.blocks[0] is negative (-1)"),
    ([0, 1.5], "options.blocks[1] must be an integer block index, got 1.5"),
    ([True], "options.blocks[0] must be an integer block index, got True"),
    ("0,1", "options.blocks must be a list of block indices, got str"),
])
async def test_bad_block_lists_are_invalid_params(client: LanguageClient,  # noqa: F811
                                                  tmp_path: Path, blocks: object,
                                                  named: str) -> None:
    editor = await _editor(client, tmp_path)
    with pytest.raises(JsonRpcInvalidParams) as error:
        await editor.run("llmEdits.preview",
                         {"response": THREE_BLOCKS, "options": {"blocks": blocks}})
    assert named in error.value.message
    assert editor.text("src/a.py") == "one\ntwo\n"
