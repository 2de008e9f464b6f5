"""lsp_server/mcp/rendering.py: what the agent is told."""

from __future__ import annotations

from pathlib import Path

from lsp_server.instructions import TAUGHT_FORMAT_NAMES
from lsp_server.mcp.rendering import edits_outcome, instructions_outcome
from lsp_server.mcp.tool_specs import INSTRUCTED_FORMAT_NAMES
from lsp_server.model import BlockResult, ParseWarning, PlanResult


def test_every_format_the_tool_offers_has_instructions() -> None:
    for name in INSTRUCTED_FORMAT_NAMES:
        outcome = instructions_outcome(name)
        assert not outcome.is_error and outcome.structured["formats"] == [name]
    assert instructions_outcome(None).structured["formats"] == list(TAUGHT_FORMAT_NAMES)


def _outcome(plan: PlanResult, dry_run: bool = False) -> tuple[str, dict, bool]:
    outcome = edits_outcome(plan, feedback="FEEDBACK\n", dry_run=dry_run, write_errors=[],
                            snapshots={}, roots=[Path("/ws")], uri_for=Path.as_uri)
    return outcome.text, outcome.structured, outcome.is_error


def test_one_line_per_block_and_the_feedback_after_a_failure() -> None:
    plan = PlanResult(blocks=[
        BlockResult(0, "a.py", "search-replace", "applied", line=4, match="whitespace"),
        BlockResult(1, "a.py", "str-replace", "failed", reason="old_string not found", line=9),
        BlockResult(2, "b.py", "unified-diff", "already-applied", line=0),
    ], shell_suggestions=["rm x"], warnings=[ParseWarning(6, "unclosed block")])
    text, structured, is_error = _outcome(plan)
    assert text.splitlines() == [
        "3 edit blocks: 1 applied, 1 failed, 1 already applied.",
        "block 1: a.py: applied at line 5 (whitespace match)",
        "block 2: a.py: FAILED at line 10: old_string not found",
        "block 3: b.py: already applied (the file has this change) at line 1",
        "Warning (response line 7): unclosed block",
        "Shell command suggested, not run: rm x",
        "",
        "FEEDBACK",
    ]
    assert is_error and structured["ok"] is False and structured["applied"] is True
    assert structured["feedback"] == "FEEDBACK\n"



def test_shell_suggestions_are_shown_escaped_and_split_as_every_confirmation_shows_them() -> None:
    # A right-to-left override makes a command read as another; a line separator hides what
    # follows it. The text shows shell_display's form; structuredContent carries both.
    bidi, separator = "rm -rf build/\u202etxt.exe && git rm a", "rm -rf x\u2028y"
    plan = PlanResult(blocks=[BlockResult(0, "a.py", "edit-v3", "applied", line=0)],
                      shell_suggestions=[bidi, separator])
    text, structured, _ = _outcome(plan)
    assert text.splitlines()[2:] == [
        "Shell command suggested, not run: rm -rf build/<U+202E>txt.exe",
        "Shell command suggested, not run: git rm a",
        "Shell command suggested, not run: rm -rf x<U+2028>y",
    ]
    assert "\u202e" not in text and "\u2028" not in text
    assert structured["shellSuggestions"] == [bidi, separator]
    assert [c["display"] for c in structured["shellCommands"]] == [
        "rm -rf build/<U+202E>txt.exe && git rm a", "rm -rf x<U+2028>y"]
    assert [p["command"] for p in structured["shellCommands"][0]["parts"]] == [
        "rm -rf build/\u202etxt.exe", "git rm a"]

def test_no_block_is_an_error_and_a_dry_run_says_so() -> None:
    text, structured, is_error = _outcome(PlanResult(), dry_run=True)
    assert is_error and text.startswith("No edit block was found")
    assert "applied" not in structured and structured["dryRun"] is True
    plan = PlanResult(blocks=[BlockResult(0, "a.py", "edit-v3", "validated", line=0)])
    text, _, is_error = _outcome(plan, dry_run=True)
    assert not is_error
    assert text.splitlines()[:2] == ["1 edit block (dry run: nothing written): 1 would apply.",
                                     "block 1: a.py: would apply at line 1"]
