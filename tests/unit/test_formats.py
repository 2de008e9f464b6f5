"""The format registry: one entry per format, and everything it names exists."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from lsp_server import locate
from lsp_server.formats import FORMAT_NAMES, FORMATS, Format, format_named
from lsp_server.model import Block, Hunk
from lsp_server.parsing import parse_response
from lsp_server.parsing.str_replace import str_replace_block

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def test_names_are_unique_and_in_registry_order() -> None:
    assert tuple(f.name for f in FORMATS) == FORMAT_NAMES
    assert len(set(FORMAT_NAMES)) == len(FORMAT_NAMES)
    assert FORMAT_NAMES[:3] == ("edit-v3", "edit-v2", "search-replace")


def test_format_named() -> None:
    assert format_named("unified-diff").parser == "unified_diff"
    with pytest.raises(KeyError):
        format_named("whole-file-typo")


@pytest.mark.parametrize("fmt", FORMATS, ids=FORMAT_NAMES)
def test_every_entry_names_code_and_text_that_exist(fmt: Format) -> None:
    assert callable(fmt.find_blocks) and callable(fmt.render)
    assert fmt.locate is getattr(locate, fmt.locate_policy)
    # Agents' tool-call formats have no instructions (the agent's tool defines them).
    assert (files("lsp_server") / "instructions" / fmt.instructions).is_file() or (
        fmt.name in _TOOL_CALL_FORMATS and not fmt.instructions)
    # An opt-in format's parser finds its own lines: it runs only when asked for, and its
    # lines in the shared scan would cost every other response. code-block reads every
    # fence (one regex pass of its own: a fence's first characters are hunk-patch's json
    # fence marker's, and the scan gives each first character to one kind).
    # Tool calls: JSON values looked for only in a response holding their key names.
    assert fmt.markers or fmt.opt_in or fmt.name in ("code-block", *_TOOL_CALL_FORMATS), (
        "the marker scan would never find this format's blocks")


_TOOL_CALL_FORMATS = ("str-replace", "apply-patch-call")


def _sample_block(name: str) -> Block:
    if name == "str-replace":
        return str_replace_block("src/a.py", "keep\nold\n", "keep\nnew\n")
    if name in ("hunk-patch", "apply-patch", "unified-diff", "apply-patch-call"):
        hunk = Hunk("", [(" ", "keep"), ("-", "old"), ("+", "new")], old_start=1)
        return Block(name, "src/a.py", hunks=[hunk])
    if name in ("whole-file", "code-block"):
        return Block(name, "src/a.py", op="write", new=["keep", "new"])
    return Block(name, "src/a.py", anchor=["keep"], old=["old"], new=["new"])


@pytest.mark.parametrize("name", FORMAT_NAMES)
def test_what_a_renderer_writes_its_parser_reads_back(name: str) -> None:
    fmt = format_named(name)
    text = "Here is the change:\n\n" + fmt.render(_sample_block(name))
    only_this = parse_response(text, {name})
    assert [(b.format, b.file) for b in only_this.blocks] == [(name, "src/a.py")]
    [block] = only_this.blocks
    if block.op == "write":  # a file's whole text
        assert (block.old, block.new) == ([], ["keep", "new"])
    elif block.hunks is not None:
        assert [h.old for h in block.hunks] == [["keep", "old"]]
        assert [h.new for h in block.hunks] == [["keep", "new"]]
    else:
        assert (block.anchor + block.old, block.anchor + block.new) == (
            ["keep", "old"], ["keep", "new"])


def test_the_registry_loads_no_engine_code() -> None:
    # The CLI lists the names in --help: importing the registry must not import the parsers,
    # the locate policies or the planner (an entry imports them when asked for them).
    code = ("import json, sys, lsp_server.formats; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('lsp_server'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=PROJECT_ROOT)
    assert run.returncode == 0, run.stderr
    loaded = json.loads(run.stdout)
    assert "lsp_server.formats" in loaded
    engine = ("lsp_server.parsing", "lsp_server.locate", "lsp_server.planning")
    assert [m for m in loaded if m.startswith(engine)] == []
