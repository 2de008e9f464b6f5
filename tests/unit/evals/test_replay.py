"""The replay's bookkeeping (evals/replay.py): which target an answer gets, which formats are
asked for, how an apply's result becomes an outcome, and how the outcomes are counted. No
server, no model: the replay through the server is tests/e2e/test_eval_replay.py."""

from __future__ import annotations

from pathlib import Path

from evals.replay import (
    CODE_BLOCK,
    Replay,
    has_fence,
    options_for,
    outcome_of,
    report,
    summarise,
    target_for,
)
from evals.tasks import Task
from lsp_server.formats import DEFAULT_FORMAT_NAMES


def _task(tmp_path: Path, files: dict[str, str]) -> Task:
    for rel, text in files.items():
        (tmp_path / "ws" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "ws" / rel).write_text(text)
    return Task("t", tmp_path)


def test_the_target_is_the_only_file_the_prompt_shows(tmp_path: Path) -> None:
    assert target_for(_task(tmp_path, {"scripts/run.sh": "echo\n"})) == "scripts/run.sh"


def test_a_task_showing_two_files_has_no_target(tmp_path: Path) -> None:
    assert target_for(_task(tmp_path, {"a.py": "", "b/c.py": ""})) is None


def test_options_are_todays_defaults_plus_an_opt_in_the_recording_asked_for() -> None:
    assert options_for(None, target=None) == {"formats": list(DEFAULT_FORMAT_NAMES)}
    recorded = {"formats": ["semantic-diff", "whole-file"]}
    options = options_for(recorded, target="app.py")
    assert options == {"formats": [*DEFAULT_FORMAT_NAMES, "whole-file"], "target": "app.py"}


def test_the_legacy_options_leave_code_blocks_out() -> None:
    formats = options_for(None, target=None, legacy=True)["formats"]
    assert CODE_BLOCK not in formats
    assert set(formats) == set(DEFAULT_FORMAT_NAMES) - {CODE_BLOCK}


def test_a_fence_opens_at_a_line_start_with_three_backticks_or_tildes() -> None:
    assert has_fence("Here:\n```python\nx = 1\n```\n")
    assert has_fence("~~~\nx\n~~~\n")
    assert not has_fence("Use ``x`` or `y` inline.\n")


def test_outcomes_from_blocks_and_warnings() -> None:
    applied = {"status": "applied"}
    assert outcome_of([applied, {"status": "already-applied"}], []) == "applied"
    assert outcome_of([applied, {"status": "failed"}], []) == "failed"
    assert outcome_of([{"status": "skipped"}], []) == "failed"
    assert outcome_of([], ["No edit blocks found; 1 code block names no file"]) == "refused"
    assert outcome_of([], []) == "ignored"


def _replay(mode: str, *, target: str | None, fence_only: bool, outcome: str,
            passed: bool, fmt: str = "whole-file") -> Replay:
    return Replay("t", fmt, mode, target, fence_only, outcome, passed, recorded_passed=False)


def test_summary_counts_fence_only_answers_apart_by_whether_they_had_a_target() -> None:
    replays = [
        _replay("auto", target="a.py", fence_only=True, outcome="applied", passed=True),
        _replay("auto", target="a.py", fence_only=True, outcome="ignored", passed=False),
        _replay("auto", target=None, fence_only=True, outcome="refused", passed=False),
        _replay("auto", target="a.py", fence_only=False, outcome="failed", passed=False,
                fmt="unified-diff"),
        _replay("none", target=None, fence_only=True, outcome="refused", passed=False),
    ]
    summary = summarise(replays)
    auto = summary["auto"]
    assert (auto["answers"], auto["passed"], auto["fence_only"]) == (4, 1, 3)
    assert auto["outcomes"] == {"applied": 1, "failed": 1, "refused": 1, "ignored": 1}
    assert auto["fence_only_with_target"] == {"applied": 1, "failed": 0, "refused": 0,
                                              "ignored": 1}
    assert auto["fence_only_without_target"]["refused"] == 1
    assert auto["passed_by_format"] == {"whole-file": 1}
    assert auto["answers_by_format"] == {"unified-diff": 1, "whole-file": 3}
    assert summary["none"]["answers"] == 1
    assert list(summary) == ["auto", "none"]  # in the order the replays came


def test_the_report_has_a_row_per_mode_and_the_passes_per_format() -> None:
    replays = [_replay("none", target=None, fence_only=True, outcome="refused", passed=False),
               _replay("auto", target="a.py", fence_only=True, outcome="applied", passed=True)]
    text = report(summarise(replays))
    assert "| none | 1 | 0 (recorded: 0) | 0 | 0 | 1 | 0 | 1 (0) | 0 / 0 / 0 / 0 |" in text
    assert "| auto | 1 | 1 (recorded: 0) | 1 | 0 | 0 | 0 | 1 (1) | 1 / 0 / 0 / 0 |" in text
    assert "| asked format | answers | passed when recorded | passed, target none | " \
        "passed, target auto |" in text
    assert "| `whole-file` | 1 | 0 | 0 | 1 |" in text
