"""The eval runner's way through the server (evals/through_server.py): a model's answer streamed
into a live response document, one ``didChange`` per chunk, then applied with ``responseUri``.
A recorded answer replayed chunk by chunk (cut where a model's tokens would be) must give its
recorded outcome: each block's status and the kind of its reason, the warnings (a block cut
short by the token limit counts as one: it is a warning in the finished text and ``pending``
in a live document), and the check's verdict. Needs no model."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evals.tasks import TASKS_DIR, Task, run_check
from evals.through_server import LENS_STATES, run_through_server

# Roughly a model's tokens: a word or a punctuation run with its leading space, or whitespace.
_TOKEN = re.compile(r" ?\w+| ?[^\w\s]+|\s+")


def _replayed() -> list[Path]:
    """The answers in the format this model writes best (docs/evals.md), and the whole-file
    ones that hold a block (an opt-in format, read by a live document only through the
    server's settings). Every recording, streamed, would double the set's time."""
    best = sorted(TASKS_DIR.glob("*/recorded/semantic-diff.json"))
    whole = [p for p in sorted(TASKS_DIR.glob("*/recorded/whole-file.json"))
             if json.loads(p.read_text(encoding="utf-8"))["blocks"]]
    return best + whole


RECORDINGS = _replayed()
# The lens of a block before the apply, by the status the apply gave it.
LENS_STATE_OF = {"applied": LENS_STATES["✓"], "validated": LENS_STATES["✓"],
                 "failed": LENS_STATES["✗"], "skipped": LENS_STATES["⊘"],
                 "already-applied": LENS_STATES["="]}


def token_chunks(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _outcome(blocks: list[dict]) -> list[dict]:
    return [{"index": b["index"], "file": b["file"], "format": b["format"], "status": b["status"],
             "reason": b["reason"].split(";")[0] if b["reason"] else None} for b in blocks]


def test_token_chunks_join_back_to_the_text() -> None:
    text = "a.py\n```python\ndef f(x):\n\treturn x  # “quoted” é\r\n```\n\n"
    chunks = token_chunks(text)
    assert "".join(chunks) == text and len(chunks) > 10


def test_there_are_recordings_to_stream() -> None:
    assert len(RECORDINGS) >= 20  # the 22 tasks' semantic-diff answers, at least


@pytest.mark.parametrize("recording", RECORDINGS,
                         ids=[f"{p.parent.parent.name}/{p.stem}" for p in RECORDINGS])
async def test_a_recorded_answer_streamed_chunk_by_chunk_keeps_its_outcome(
        recording: Path, tmp_path: Path) -> None:
    recorded = json.loads(recording.read_text(encoding="utf-8"))
    task = Task(recording.parent.parent.name, recording.parent.parent)
    workspace = task.copy_workspace(tmp_path / "ws")
    chunks = token_chunks(recorded["response"])
    outcome = await run_through_server(workspace, chunks, log_file=tmp_path / "server.log",
                                       options=recorded.get("options"))
    assert outcome.stream is not None, "the server has no live response documents"
    assert outcome.stream.chunks == len([c for c in chunks if c])
    got = {"blocks": _outcome(outcome.blocks),
           "warnings": len(outcome.warnings) + len(outcome.pending),
           "check_passed": run_check(task, workspace).passed}
    want = {"blocks": _outcome(recorded["blocks"]), "warnings": recorded["warnings"],
            "check_passed": recorded["check_passed"]}
    assert got == want
    # every line end was looked at, and the finished answer once more
    assert outcome.stream.lens_answers == sum("\n" in c for c in chunks) + 1
    if any(block.get("op") not in ("delete", "rename") for block in outcome.parsed["blocks"]):
        # a block of several lines was open at some line end: its lens said so
        assert outcome.stream.answers_with_pending >= 1, outcome.stream.lens_states
    # the finished answer's lenses: one per block, the state the apply then found
    assert outcome.stream.final_states == [
        LENS_STATE_OF.get(b["status"], b["status"]) for b in outcome.blocks] + \
        [LENS_STATES["⋯"]] * len(outcome.pending)


async def test_without_streaming_the_finished_text_gives_the_same_outcome(
        tmp_path: Path) -> None:
    """The fallback for a server without response documents: ``response``, sent once."""
    recording = RECORDINGS[0]
    recorded = json.loads(recording.read_text(encoding="utf-8"))
    task = Task(recording.parent.parent.name, recording.parent.parent)
    outcome = await run_through_server(task.copy_workspace(tmp_path / "ws"),
                                       recorded["response"], log_file=tmp_path / "server.log",
                                       options=recorded.get("options"), stream=False)
    assert outcome.stream is None
    assert _outcome(outcome.blocks) == _outcome(recorded["blocks"])
    assert len(outcome.warnings) + len(outcome.pending) == recorded["warnings"]
