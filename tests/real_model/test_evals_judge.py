"""The eval's fault judgement and its summary (evals/judge.py, evals/report.py). No model."""

from __future__ import annotations

from evals.judge import applied_all, compliant, judge_failed_block, judge_warning, loose
from evals.report import summarise, table

FILES = {
    "pkg/mathx.py": 'def square(x):\n    return x * x\n\n\ndef cube(x):\n    return x * x * x\n',
    "notes.md": "He said \u201chi\u201d \u2014 twice.\n",
}


def test_loose_reads_unicode_punctuation_as_ascii_and_collapses_spaces() -> None:
    assert loose("  He said \u201chi\u201d \u2014\u00a0twice. ") == 'He said "hi" - twice.'


def test_a_block_whose_lines_differ_only_in_whitespace_would_have_matched() -> None:
    block = {"file": "pkg/mathx.py", "op": "update",
             "hunks": [{"old": "def square(x):\n   return x * x\n"}]}
    assert judge_failed_block(block, "Hunk does not match", FILES) == \
        "tolerance would have matched"


def test_unicode_punctuation_and_line_formats_are_judged_too() -> None:
    block = {"file": "notes.md", "op": "update", "anchor": "", "old": 'He said "hi" - twice.\n',
             "trailing": ""}
    assert judge_failed_block(block, "Old lines not found", FILES) == \
        "tolerance would have matched"


def test_missing_blank_lines_are_their_own_judgement() -> None:
    block = {"file": "pkg/mathx.py", "op": "update",
             "hunks": [{"old": "    return x * x\n\ndef cube(x):\n"}]}
    assert judge_failed_block(block, "Hunk does not match", FILES) == \
        "tolerance ignoring blank lines would have matched"


def test_text_that_occurs_twice_is_not_a_tolerant_match() -> None:
    block = {"file": "pkg/mathx.py", "op": "update", "hunks": [{"old": "\n\n"}]}
    assert judge_failed_block(block, "x", FILES) == "old text not in file"
    block = {"file": "pkg/mathx.py", "op": "update", "hunks": [{"old": "    return x\n"}]}
    assert judge_failed_block(block, "x", FILES) == "old text not in file"


def test_a_block_found_at_several_places_is_ambiguous() -> None:
    block = {"file": "pkg/mathx.py", "op": "update", "hunks": [{"old": "    return x * x\n"}]}
    reason = "Edit location is ambiguous (matches at lines 2 and 6)"
    assert judge_failed_block(block, reason, FILES) == "ambiguous"


def test_a_shortened_or_invented_directory_is_a_path_difference() -> None:
    block = {"file": "src/mathx.py", "op": "update", "hunks": [{"old": "def square(x):\n"}]}
    assert judge_failed_block(block, "File not found: src/mathx.py", FILES) == \
        "path differs (wrote src/mathx.py, the file is pkg/mathx.py)"
    create = {"file": "pkg/mathx.py", "op": "create", "new": "x\n"}
    assert judge_failed_block(create, "File already exists", FILES) == \
        "other: File already exists"


def test_warnings_are_told_apart() -> None:
    response = "text\nfile.py\n<<<<<<< SEARCH\nold\n"
    assert judge_warning({"responseLine": 1, "message": "not closed"}, response,
                         "search-replace") == "reads as a block"
    assert judge_warning({"responseLine": 0, "message": "no path"}, "just prose\n",
                         "search-replace") == "prose"
    assert judge_warning({"responseLine": 1, "message": "block 1 (a.py) changes nothing"},
                         response, "search-replace") == "about a parsed block"
    fence = "Here:\n```python\nx = 2\n```\n"
    no_file = {"responseLine": 1, "message": "No edit blocks found; 1 code block names no file"}
    assert judge_warning(no_file, fence, "code-block") == "reads as a block"
    assert judge_warning({"responseLine": 0, "message": "x"}, "prose\n", "code-block") == "prose"


def test_compliance_and_apply_success_read_the_block_records() -> None:
    blocks = [{"format": "unified-diff", "status": "applied"},
              {"format": "search-replace", "status": "validated"}]
    assert compliant(blocks, "unified-diff") and not compliant(blocks, "edit-v3")
    assert applied_all(blocks)
    assert not applied_all([*blocks, {"format": "unified-diff", "status": "failed"}])
    assert not applied_all([])


def test_summary_and_table_count_each_task_once() -> None:
    def episode(task: str, ok: bool) -> dict:
        attempt = {"blocks": [{"format": "edit-v3", "status": "applied" if ok else "failed",
                               **({} if ok else {"judgement": "old text not in file"})}],
                   "warnings": [], "whole_file_answers": [], "check_passed": ok}
        return {"task": task, "format": "edit-v3", "attempts": [attempt], "compliant": True,
                "applied": ok, "success": ok, "success_after_retry": ok, "seconds": 10.0,
                "completion_tokens": 100}

    summary = summarise([episode("a", True), episode("b", False)])
    assert summary["edit-v3"]["success"] == 1
    assert summary["edit-v3"]["applied"] == 1
    assert summary["edit-v3"]["failed_block_judgements"] == {"old text not in file": 1}
    assert "| `edit-v3` | 2 | 2/2 (100%) | 1/2 (50%) | 1/2 (50%) | 1/2 (50%) | 100 | 10.0 |" \
        in table(summary)
