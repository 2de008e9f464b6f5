"""Retry feedback for the model (seeds 001/002: failed edits visible for a corrected retry)."""

from __future__ import annotations

from pathlib import Path

from lsp_server.feedback import build_call_feedback, build_feedback
from lsp_server.model import BlockResult, ParseWarning, PlanResult

APP = Path("/ws/src/app.py")
UTIL = Path("/ws/src/util.py")


def _block(index: int, file: str, status: str, **kw) -> BlockResult:
    path = kw.pop("path", Path("/ws") / file)
    return BlockResult(index=index, file=file, format=kw.pop("format", "edit-v3"),
                       status=status, path=path, response_line=kw.pop("response_line", index * 10),
                       **kw)


def _mixed_result() -> PlanResult:
    return PlanResult(blocks=[
        _block(0, "src/util.py", "applied", line=3, match="exact"),
        _block(1, "src/app.py", "failed", format="edit-v2", line=11,
               reason="Leading anchor not found in file",
               hint="did you mean line 12: `def total(self, items):`?",
               context=[(10, "class Cart:"), (11, "    def total(self, items):"),
                        (12, "        return sum(items)")]),
        _block(2, "src/app.py", "skipped", reason="Previous edit to this file failed"),
        _block(3, "src/util.py", "applied", line=20, match="exact"),
    ], shell_suggestions=["git rm old.py"])


def test_failed_block_shows_reason_hint_and_numbered_actual_lines() -> None:
    text = build_feedback(_mixed_result())
    assert "Block 2: src/app.py" in text
    assert "edit-v2" in text
    assert "Reason: Leading anchor not found in file" in text
    assert "Hint: did you mean line 12" in text
    # Actual lines with 1-based numbers, the estimated line (0-based 11) marked.
    assert "  11 | class Cart:" in text
    assert "> 12 |     def total(self, items):" in text
    assert "  13 |         return sum(items)" in text
    assert "line 12" in text


def test_skipped_blocks_are_attributed_to_the_failure_and_applied_ones_listed() -> None:
    text = build_feedback(_mixed_result())
    failed_part, _, rest = text.partition("## Applied")
    assert "Skipped because of this failure" in failed_part
    assert "block 3: src/app.py" in failed_part
    assert "do not send these again" in rest
    assert "block 1: src/util.py" in rest and "block 4: src/util.py" in rest
    assert "block 2" not in rest and "block 3" not in rest
    assert "`git rm old.py`" in rest
    assert text.rstrip().endswith("Do not re-send blocks that were applied.")
    assert "Re-read the files" in text


def test_falls_back_to_read_lines_when_the_engine_gave_no_context() -> None:
    file_lines = [f"line {n}" for n in range(1, 31)]
    result = PlanResult(blocks=[
        _block(0, "src/app.py", "failed", line=14, reason="No match found"),
    ])
    asked: list[Path] = []

    def read_lines(path: Path) -> list[str] | None:
        asked.append(path)
        return file_lines

    text = build_feedback(result, read_lines)
    assert asked == [APP]
    assert "> 15 | line 15" in text
    assert "  12 | line 12" in text  # three lines before
    assert "  23 | line 23" in text  # eight lines after
    assert "line 11" not in text and "line 24" not in text


def test_unreadable_file_falls_back_to_the_estimated_line_only() -> None:
    result = PlanResult(blocks=[_block(0, "src/app.py", "failed", line=4, reason="No match")])
    text = build_feedback(result, lambda _path: None)
    assert "Estimated line in the file: 5." in text
    assert "|" not in text


def test_context_fence_is_longer_than_backtick_runs_in_the_file() -> None:
    result = PlanResult(blocks=[_block(0, "README.md", "failed", line=0, reason="No match",
                                       context=[(0, "````python"), (1, "x = 1")])])
    text = build_feedback(result)
    assert "\n`````\n" in text


def test_dry_run_validated_blocks_are_not_to_be_resent() -> None:
    result = PlanResult(blocks=[
        _block(0, "src/util.py", "validated", line=0, match="exact"),
        _block(1, "src/app.py", "failed", line=0, reason="No match found"),
    ])
    text = build_feedback(result)
    assert "## Matched: these apply as written (do not send them again)" in text
    assert "block 1: src/util.py" in text.split("## Matched")[1]


def test_atomic_failure_says_nothing_was_written_and_asks_for_everything() -> None:
    result = PlanResult(blocks=[
        _block(0, "src/util.py", "validated", line=0, match="exact"),
        _block(1, "src/app.py", "failed", line=0, reason="No match found"),
    ])
    text = build_feedback(result, atomic=True)
    assert "NOT applied" in text and "Nothing was written" in text
    assert "## Correct but not applied (send these again unchanged)" in text
    assert "send the whole change again" in text


def test_parse_warnings_are_reported_with_one_based_response_lines() -> None:
    result = PlanResult(
        blocks=[_block(0, "src/util.py", "applied", line=0, match="exact")],
        warnings=[ParseWarning(41, "edit-v3 block is not closed (no »»» EDIT END)")],
    )
    text = build_feedback(result)
    assert "response line 42: edit-v3 block is not closed" in text
    assert "block 1: src/util.py" in text


def test_index_restricts_to_one_failure_and_its_skips() -> None:
    result = PlanResult(blocks=[
        _block(0, "src/app.py", "failed", line=1, reason="first failure"),
        _block(1, "src/app.py", "skipped", reason="Previous edit to this file failed"),
        _block(2, "src/util.py", "failed", line=2, reason="second failure"),
        _block(3, "src/util.py", "skipped", reason="Previous edit to this file failed"),
    ])
    text = build_feedback(result, index=2)
    assert "second failure" in text and "block 4: src/util.py" in text
    assert "first failure" not in text and "block 2:" not in text


def test_all_applied_and_empty_cases() -> None:
    applied = PlanResult(blocks=[_block(0, "a.py", "applied", line=0, match="exact"),
                                 _block(1, "b.py", "applied", line=0, match="exact")])
    assert build_feedback(applied) == "All 2 edit blocks applied; there is nothing to correct.\n"
    validated = PlanResult(blocks=[_block(0, "a.py", "validated", line=0, match="exact")])
    assert "matched" in build_feedback(validated)
    assert build_feedback(PlanResult()).startswith("No edit blocks were found")


def test_already_applied_blocks_are_not_failures_and_not_to_be_resent() -> None:
    done = _block(0, "a.py", "already-applied", line=4, match="exact")
    only_done = PlanResult(blocks=[done])
    assert build_feedback(only_done) == (
        "All 1 edit blocks were already applied (the files already have their changes); "
        "there is nothing to correct.\n")
    mixed = PlanResult(blocks=[done, _block(1, "b.py", "applied", line=0, match="exact")])
    assert build_feedback(mixed) == (
        "All 2 edit blocks applied or were already applied (1 already: the files had their "
        "changes); there is nothing to correct.\n")
    with_failure = PlanResult(blocks=[done, _block(1, "a.py", "failed", line=0,
                                                   reason="No match found")])
    text = build_feedback(with_failure, atomic=True)
    section = text.split("## Already applied (the files already have these changes: do not "
                         "send them again)")[1]
    assert "block 1: a.py" in section and "block 2" not in section
    assert "## Failed blocks" in text and "Correct but not applied" not in text


def test_a_refused_path_is_reported_without_reading_anything() -> None:
    result = PlanResult(blocks=[
        _block(0, "../etc/passwd", "failed", path=None,
               reason="path '../etc/passwd' leads outside the workspace"),
        _block(1, "../etc/passwd", "skipped", path=None,
               reason="Previous edit to this file failed"),
    ])

    def read_lines(path: Path) -> list[str] | None:
        raise AssertionError("must not read a refused path")

    text = build_feedback(result, read_lines)
    assert "leads outside the workspace" in text
    assert "block 2: ../etc/passwd" in text


def test_a_failing_reader_does_not_lose_the_feedback() -> None:
    result = PlanResult(blocks=[_block(0, "src/app.py", "failed", line=3, reason="No match")])

    def read_lines(path: Path) -> list[str] | None:
        raise OSError("gone")

    text = build_feedback(result, read_lines)
    assert "Reason: No match" in text and "Estimated line in the file: 4." in text


def test_line_numbers_agree_with_the_engine_for_a_file_with_lone_carriage_returns() -> None:
    """The engine and the readers that feed feedback split lines with one splitter, so a lone
    CR starts a line for both and the marked line is the line the engine meant."""
    from lsp_server.model import Block, FileSnapshot, ParseResult, text_to_lines
    from lsp_server.planning import plan_edits

    file_text = "one\rtwo\rthree\nfour\r\nfive\rsix\n"
    block = Block(format="search-replace", file="src/app.py",
                  old=["five", "sixx"], new=["5", "6"])
    result = plan_edits(ParseResult(blocks=[block]),
                        lambda _path: FileSnapshot(text=file_text), [Path("/ws")])
    failed = result.blocks[0]
    assert failed.status == "failed" and failed.line == 4 and failed.context
    lines = text_to_lines(file_text)
    assert all(lines[n] == text for n, text in failed.context)
    from_engine = build_feedback(result)
    failed.context = []  # as when the engine gives none: the reader's lines are shown
    from_reader = build_feedback(result, lambda _path: text_to_lines(file_text))
    for text in (from_engine, from_reader):
        assert "  2 | two" in text and "> 5 | five" in text and "  6 | six" in text


def test_a_tool_call_is_named_as_the_call_never_as_a_response() -> None:
    # An agent's edit_file sends arguments, not a response: no "line N of your response".
    failed = _block(0, "src/app.py", "failed", format="str-replace", line=11,
                    reason="old_string not found in the file",
                    hint="did you mean line 12?",
                    context=[(10, "class Cart:"), (11, "    def total(self, items):")])
    text = build_call_feedback(PlanResult(blocks=[failed]), "edit_file")
    assert text.startswith("Your edit_file call on src/app.py could not be applied")
    assert "Reason: old_string not found in the file" in text
    assert "Hint: did you mean line 12?" in text
    assert "> 12 |     def total(self, items):" in text
    assert "call edit_file again" in text
    for response_words in ("response", "Block 1", "block", "str-replace"):
        assert response_words not in text
    applied = _block(0, "src/app.py", "applied", line=3)
    assert build_call_feedback(PlanResult(blocks=[applied]), "edit_file") == (
        "The edit_file call was applied; there is nothing to correct.\n")


def test_an_ambiguous_call_lists_its_places_in_the_file() -> None:
    ambiguous = _block(0, "a.py", "failed", format="str-replace", line=0,
                       reason="old_string occurs 2 times",
                       fixes={"candidateLines": [0, 4], "candidateCount": 2},
                       context=[(0, "def add(a, b):"), (4, "def sub(a, b):")])
    text = build_call_feedback(PlanResult(blocks=[ambiguous]), "edit_file")
    assert "Your lines occur at 2 places in the file;" in text
    assert "blocks before" not in text and "response" not in text
