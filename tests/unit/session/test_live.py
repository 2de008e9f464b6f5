"""session.live: a response read as it grows, the loop under ``--stream`` and response
documents: which blocks are complete, which completed with each text, the limits, the plan
kept between feeds."""

from __future__ import annotations

from pathlib import Path

from lsp_server.model import FileSnapshot
from lsp_server.session.live import LiveResponse
from lsp_server.session.options import EditOptions


def _block(path: str, old: str, new: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n"


RESPONSE = "Two edits:\n\n" + _block("a.py", "one", "ONE") + "\nand\n\n" + _block(
    "b.py", "x", "X")


def _feed_by_lines(live: LiveResponse, text: str) -> list[list[str]]:
    """Feed ``text`` a line at a time; the files of the blocks each feed completed."""
    completed = []
    fed = 0
    for end in range(text.index("\n") + 1, len(text) + 1):
        if text[end - 1] != "\n":
            continue
        update = live.feed(text[:end], fed)
        fed = end
        completed.append([b.file for b in update.completed])
    return completed


def test_each_block_is_reported_completed_once_and_in_order() -> None:
    live = LiveResponse(EditOptions())
    by_line = _feed_by_lines(live, RESPONSE)
    assert [files for files in by_line if files] == [["a.py"], ["b.py"]]
    # each completes with the line of its closing marker, not before
    assert by_line.index(["a.py"]) == RESPONSE[:RESPONSE.index("REPLACE")].count("\n")
    update = live.feed(RESPONSE, len(RESPONSE), ended=True)  # the input ended
    assert update.completed == [] and update.complete == 2


def test_a_block_being_written_is_pending_not_a_block() -> None:
    live = LiveResponse(EditOptions())
    cut = RESPONSE.index("=======", RESPONSE.index("b.py"))
    update = live.feed(RESPONSE[:cut], None)
    assert [b.file for b in update.parsed.blocks] == ["a.py"]
    assert [w.file for w in live.pending] == ["b.py"]


def test_past_the_block_limit_the_rest_never_completes() -> None:
    live = LiveResponse(EditOptions(max_blocks=1))
    update = live.feed(RESPONSE, None, ended=True)
    assert update.complete == 1 and [b.file for b in update.completed] == ["a.py"]
    assert update.refused_by == "maxBlocks"
    assert update.refused == "the response has 2 blocks, more than maxBlocks (1)"


def test_a_response_over_the_size_limit_is_not_parsed() -> None:
    live = LiveResponse(EditOptions(max_response_bytes=16))
    update = live.feed(RESPONSE, None)
    assert update.refused_by == "maxResponseBytes" and update.parsed.blocks == []
    assert update.parsed.warnings[0].message.startswith("the response is ")


def test_the_plan_is_kept_between_feeds_and_made_again_for_other_roots(
        tmp_path: Path) -> None:
    files = {tmp_path / "a.py": "one\n", tmp_path / "b.py": "x\n"}

    def read(path: Path) -> FileSnapshot:
        return FileSnapshot(files.get(path))

    live = LiveResponse(EditOptions())
    live.feed(RESPONSE, None, ended=True)
    plan = live.planner(read, [tmp_path])
    assert [r.status for r in plan.update(live.parsed.blocks)] == ["validated", "validated"]
    assert live.planner(read, [tmp_path]) is plan and live.plan is plan
    assert live.planner(read, [tmp_path / "elsewhere"]) is not plan
