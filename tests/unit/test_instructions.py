"""System-prompt instructions: every format covered, and every example is a correct one.

The examples are checked the strong way: the whole instruction text is parsed with every
format enabled (so prose cannot be mistaken for a block and an example cannot be read as
another format), and the examples are planned against the small workspace they describe,
where every block must match.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server import parse_response, plan_response
from lsp_server.formats import DEFAULT_FORMAT_NAMES
from lsp_server.instructions import FORMAT_NAMES, TAUGHT_FORMAT_NAMES, format_instructions
from lsp_server.model import FileEdit, ResourceOp
from lsp_server.workspace import read_disk_file

# The workspace every example is written against.
WORKSPACE = {
    "src/greet.py": (
        '"""Greetings."""\n\n\ndef greet(name):\n    print("Hi " + name)\n\n\n'
        'def farewell(name):\n    print("Bye " + name)\n'
    ),
    "notes/old.txt": "Remember the milk.\n",
    "scripts/run.sh": "#!/bin/sh\npython -m greet\n",
}

GREET_FIXED = '    print(f"Hello, {name}!")'
USAGE = '# Usage\n\nCall `greet("Ada")`.\n'

# format -> the blocks its example shows: (op, file, move_to)
EXPECTED: dict[str, list[tuple[str, str, str | None]]] = {
    "edit-v3": [("update", "src/greet.py", None), ("create", "docs/usage.md", None)],
    "edit-v2": [("update", "src/greet.py", None), ("create", "docs/usage.md", None)],
    "search-replace": [("update", "src/greet.py", None), ("append", "docs/usage.md", None)],
    "hunk-patch": [
        ("update", "src/greet.py", None),
        ("create", "docs/usage.md", None),
        ("delete", "notes/old.txt", None),
        ("update", "scripts/run.sh", "scripts/start.sh"),
    ],
    "semantic-diff": [
        ("update", "src/greet.py", None),
        ("create", "docs/usage.md", None),
        ("delete", "notes/old.txt", None),
        ("rename", "scripts/run.sh", "scripts/start.sh"),
    ],
    "apply-patch": [
        ("update", "src/greet.py", None),
        ("create", "docs/usage.md", None),
        ("delete", "notes/old.txt", None),
        ("update", "scripts/run.sh", "scripts/start.sh"),
    ],
    "unified-diff": [
        ("update", "src/greet.py", None),
        ("create", "docs/usage.md", None),
        ("delete", "notes/old.txt", None),
    ],
    "whole-file": [("write", "src/greet.py", None), ("write", "docs/usage.md", None)],
    "code-block": [("write", "src/greet.py", None), ("write", "docs/usage.md", None)],
}


def _section(format_name: str) -> str:
    """The format's own part of its instruction text (after the common rules)."""
    text = format_instructions(format_name)
    return text[text.index(f"## Format `{format_name}`"):]


# Agents' own tool-call formats: their tools define them, there is nothing to teach.
_TOOL_CALL_FORMATS = {"str-replace", "apply-patch-call"}


def test_every_format_has_instructions_and_the_names_match_the_model() -> None:
    assert set(FORMAT_NAMES) == set(EXPECTED) | _TOOL_CALL_FORMATS
    assert set(TAUGHT_FORMAT_NAMES) == set(DEFAULT_FORMAT_NAMES) - _TOOL_CALL_FORMATS
    everything = format_instructions()
    for name in FORMAT_NAMES:
        if name in _TOOL_CALL_FORMATS:
            with pytest.raises(ValueError, match="tool-call format"):
                format_instructions(name)
            continue
        one = format_instructions(name)
        assert f"## Format `{name}`" in one
        # "Every format" is every format detected by default: an opt-in one is not taught.
        assert (_section(name) in everything) == (name in DEFAULT_FORMAT_NAMES)
        # The one-format text teaches that format only.
        others = [n for n in FORMAT_NAMES if n != name and f"## Format `{n}`" in one]
        assert others == []
    assert everything.startswith("# Editing files with edit blocks")


def test_common_rules_come_first_and_name_the_key_rules() -> None:
    text = format_instructions("edit-v3")
    common = text[: text.index("## Format")]
    for phrase in ("exactly once", "character for", "No `...`", "in order",
                   "never again what was applied", "never run"):
        assert phrase in common


def test_unknown_format_is_refused_with_the_known_names() -> None:
    with pytest.raises(ValueError, match="edit-v3, edit-v2"):
        format_instructions("markdown")


def test_the_rules_text_itself_contains_no_block() -> None:
    common = format_instructions("edit-v3").split("## Format")[0]
    parsed = parse_response(common)
    assert parsed.blocks == [] and parsed.warnings == []


@pytest.mark.parametrize("format_name", list(EXPECTED))
def test_example_parses_into_the_intended_blocks(format_name: str) -> None:
    # Every format enabled (the default ones, and this one if it is opt-in).
    parsed = parse_response(format_instructions(format_name), {*DEFAULT_FORMAT_NAMES, format_name})
    assert parsed.warnings == []
    got = [(b.format, b.op, b.file, b.move_to) for b in parsed.blocks]
    want = [(format_name, op, file, move_to) for op, file, move_to in EXPECTED[format_name]]
    assert got == want


def test_all_formats_text_holds_every_example_in_order() -> None:
    parsed = parse_response(format_instructions())
    assert parsed.warnings == []
    got = [(b.format, b.op, b.file) for b in parsed.blocks]
    want = [(name, op, file) for name in TAUGHT_FORMAT_NAMES for op, file, _ in EXPECTED[name]]
    assert got == want


@pytest.mark.parametrize("format_name", list(EXPECTED))
def test_example_applies_to_the_workspace_it_describes(format_name: str, tmp_path: Path) -> None:
    for rel, content in WORKSPACE.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    result = plan_response(format_instructions(format_name), read_disk_file, [tmp_path],
                           formats={format_name}, dry_run=True)
    assert [(b.status, b.reason) for b in result.blocks] == \
        [("validated", None)] * len(EXPECTED[format_name])
    new_texts = {c.path: c.new_text for c in result.changes if isinstance(c, FileEdit)}
    assert GREET_FIXED in new_texts[tmp_path / "src/greet.py"].splitlines()
    assert new_texts[tmp_path / "docs/usage.md"] == USAGE
    kinds = {(c.kind, c.path, c.new_path) for c in result.changes if isinstance(c, ResourceOp)}
    assert ("create", tmp_path / "docs/usage.md", None) in kinds
    if any(op == "delete" for op, _, _ in EXPECTED[format_name]):
        assert ("delete", tmp_path / "notes/old.txt", None) in kinds
    if any(move for _, _, move in EXPECTED[format_name]):
        assert ("rename", tmp_path / "scripts/run.sh", tmp_path / "scripts/start.sh") in kinds
