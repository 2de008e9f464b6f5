"""An ambiguous block names every place it matches, offers them, and shows their lines."""

from __future__ import annotations

from pathlib import Path

from lsp_server.ambiguity import (
    MAX_LISTED,
    ambiguous_diagnosis,
    ambiguous_places,
    candidate_context,
    candidate_hunk,
    candidate_lines,
    candidate_words,
    candidates_feedback,
    places_diagnosis,
)
from lsp_server.feedback import build_feedback
from lsp_server.matching import FileMatcher
from lsp_server.model import BlockResult, FileSnapshot
from lsp_server.planning import plan_response


def test_words() -> None:
    assert candidate_words([5, 11], 2) == "lines 6 and 12"
    assert candidate_words([0, 4, 9], 3) == "lines 1, 5 and 10"
    assert candidate_words(list(range(10)), 13) == "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 3 more"


def test_every_place_is_named_up_to_ten_and_counted() -> None:
    lines = ["x", "target"] * 14
    diagnosis = ambiguous_diagnosis(FileMatcher(lines), ["target"], "exact")
    starts = list(range(1, 28, 2))
    assert diagnosis.line == 1
    assert diagnosis.fixes == {"candidateLines": starts[:MAX_LISTED], "candidateCount": 14}
    assert diagnosis.reason.endswith("(matches at lines 2, 4, 6, 8, 10, 12, 14, 16, 18, 20 "
                                     "and 4 more)")


def test_context_is_two_lines_around_each_place() -> None:
    lines = [f"l{i}" for i in range(30)]
    assert [n for n, _ in candidate_context(lines, [0, 10], 1)] == [0, 1, 2, 8, 9, 10, 11, 12]
    # A long match: its first and last lines, not all of it.
    assert [n for n, _ in candidate_context(lines, [10], 8)] == [8, 9, 10, 11, 16, 17, 18, 19]
    assert [n for n, _ in candidate_context(lines, [28], 2)] == [26, 27, 28, 29]


def test_planned_block_and_its_feedback(tmp_path: Path) -> None:
    text = "a\nret\nb\nc\nd\ne\nf\ng\nh\nret\ni\n"
    response = "f.py\n««« EDIT\nret\n═══════ REPL\nRET\n»»» EDIT END\n"
    plan = plan_response(response, lambda p: FileSnapshot(text), [tmp_path])
    (block,) = plan.blocks
    assert block.status == "failed"
    assert block.reason == "Edit location is ambiguous (matches at lines 2 and 10)"
    assert candidate_lines(block.fixes) == [1, 9]
    feedback = build_feedback(plan)
    assert "occur at 2 places" in feedback
    assert ("\n   1 | a\n>  2 | ret\n   3 | b\n   4 | c\n…\n   8 | g\n   9 | h\n> 10 | ret\n"
            "  11 | i\n") in feedback


def test_no_candidates_no_section() -> None:
    block = BlockResult(0, "f.py", "edit-v3", "failed", fixes={"closestLine": 3},
                        context=[(3, "x")])
    assert candidates_feedback(block) == []
    assert candidate_lines({"candidateLines": "1"}) == []


def test_places_from_a_line_on_and_a_hunks_diagnosis() -> None:
    lines = ["x", "target", "y", "target", "z", "target"]
    fm = FileMatcher(lines)
    assert ambiguous_places(fm, ["target"], "exact", start=2) == [3, 5]
    diagnosis = places_diagnosis(fm, [3, 5], 1, lambda words: f"found at {words}", hunk=2)
    assert diagnosis.reason == "found at lines 4 and 6" and diagnosis.line == 3
    assert diagnosis.fixes == {"candidateLines": [3, 5], "candidateCount": 2,
                               "candidateHunk": 2}
    assert candidate_hunk(diagnosis.fixes) == 2
    assert candidate_hunk({"candidateLines": [3]}) is None
    assert candidate_hunk({"candidateHunk": True}) is None


def test_a_hunks_places_in_feedback(tmp_path: Path) -> None:
    text = "a\nret\nb\nret\nc\nret\n"
    response = ("*** Begin Patch\n*** Update File: f.py\n@@\n-a\n+A\n@@\n-ret\n+RET\n"
                "*** End Patch\n")
    plan = plan_response(response, lambda p: FileSnapshot(text), [tmp_path])
    (block,) = plan.blocks
    assert block.reason.startswith("Found multiple matches (lines 2, 4 and 6)")
    assert candidate_lines(block.fixes) == [1, 3, 5] and candidate_hunk(block.fixes) == 1
    feedback = build_feedback(plan)
    assert "What hunk 2 looks for occurs, after the hunk before it, at 3 places" in feedback
    assert "> 2 | ret\n  3 | b\n> 4 | ret\n  5 | c\n> 6 | ret\n" in feedback
