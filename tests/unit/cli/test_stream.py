"""``llm-edits check --stream -`` / ``apply --stream -`` through a real pipe: the response is
written to the command's standard input piece by piece, and each block's line is read from
its output as the block completes (the test waits for the line, never for time), with the
file on disk already changed when ``apply`` reports it."""

from __future__ import annotations

import itertools
import json
import os
import select
import selectors
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[3]
# Only a guard against a hung test (the process never answering): the test synchronises on
# the lines it reads, and a line normally arrives within milliseconds.
_HUNG_SECONDS = 60

GREET = 'def greet(name):\n    print("Hi " + name)\n'
COUNT = "count = 1\ntotal = 2\n"


def edit_v3(path: str, old: str, new: str) -> str:
    return f"{path}\n««« EDIT\n{old}═══════ REPL\n{new}»»» EDIT END\n"


def search_replace(path: str, old: str, new: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


BLOCK_1 = edit_v3("app.py", GREET, 'def greet(name):\n    print("Grüße, " + name + " €")\n')
BLOCK_2 = search_replace("count.py", "count = 1\n", "count = 10\n")


class Streamed:
    """``llm-edits <command> --stream -`` started in ``root``, its stdin a pipe we write to."""

    def __init__(self, root: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "lsp_server.cli", *args, "-"], cwd=root,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "COLUMNS": "200"})
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._pending = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)

    def send(self, data: str | bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data.encode() if isinstance(data, str) else data)
        self.proc.stdin.flush()

    def send_in_pieces(self, data: bytes, cuts: list[int]) -> None:
        """``data`` written as several writes, cut at the given byte offsets."""
        edges = [0, *cuts, len(data)]
        for start, end in itertools.pairwise(edges):
            self.send(data[start:end])

    def line(self) -> str:
        """The next line of output (waits for it)."""
        assert self.proc.stdout is not None
        while b"\n" not in self._pending:
            if not self._selector.select(timeout=_HUNG_SECONDS):
                pytest.fail(f"no output line; so far: {self._pending!r}")
            data = os.read(self.proc.stdout.fileno(), 65536)
            if not data:
                pytest.fail(f"output ended; so far: {self._pending!r}; "
                            f"stderr: {self._stderr()!r}")
            self._pending += data
        line, self._pending = self._pending.split(b"\n", 1)
        return line.decode()

    def finish(self) -> tuple[int, str]:
        """Close stdin; the exit code and the rest of the output."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        rest = self._pending + self.proc.stdout.read()
        code = self.proc.wait(timeout=_HUNG_SECONDS)
        self._selector.close()
        self.stderr_text = self._stderr()
        return code, rest.decode()

    def _stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode() if self.proc.poll() is not None else ""

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(GREET, encoding="utf-8")
    (tmp_path / "count.py").write_text(COUNT, encoding="utf-8")
    return tmp_path


@pytest.fixture
def streamed(workspace: Path):
    started: list[Streamed] = []

    def start(*args: str) -> Streamed:
        started.append(Streamed(workspace, *args))
        return started[-1]

    yield start
    for run in started:
        run.close()


def cuts_inside(data: bytes, *needles: bytes) -> list[int]:
    """Byte offsets in the middle of each needle (a marker, a multi-byte character)."""
    cuts = []
    for needle in needles:
        at = data.index(needle)
        cuts.append(at + max(1, len(needle) // 2))
    return sorted(cuts)


def test_apply_writes_each_block_when_it_completes(streamed, workspace: Path) -> None:
    run = streamed("apply", "--stream")
    part_1 = ("Two changes.\n\n" + BLOCK_1 + "\nThen the count:\n").encode()
    # Cut inside the start marker, the separator, the end marker and the euro sign (3 bytes).
    run.send_in_pieces(part_1, cuts_inside(part_1, "«««".encode(), "═══════".encode(),
                                           "»»» EDIT END".encode(), "€".encode()))
    assert run.line() == "block 1 applied: app.py:1 (edit-v3, exact)"
    assert workspace.joinpath("app.py").read_text(encoding="utf-8") == (
        'def greet(name):\n    print("Grüße, " + name + " €")\n')
    assert workspace.joinpath("count.py").read_text() == COUNT  # block 2 not sent yet

    part_2 = ("\n" + BLOCK_2 + "\nDone.\n").encode()
    run.send_in_pieces(part_2, cuts_inside(part_2, b"<<<<<<< SEARCH", b">>>>>>> REPLACE"))
    assert run.line() == "block 2 applied: count.py:1 (search-replace, exact)"
    assert workspace.joinpath("count.py").read_text() == "count = 10\ntotal = 2\n"

    code, rest = run.finish()
    assert code == 0
    assert "2 applied" in rest and "Written: app.py, count.py" in rest


def test_json_lines_one_per_block_then_the_summary(streamed, workspace: Path) -> None:
    run = streamed("apply", "--stream", "--json")
    run.send(BLOCK_1 + "\nnext\n")
    first = json.loads(run.line())
    assert (first["index"], first["status"], first["file"], first["line"]) == (
        0, "applied", "app.py", 0)
    assert "Grüße" in workspace.joinpath("app.py").read_text(encoding="utf-8")
    run.send(BLOCK_2)
    code, rest = run.finish()
    lines = [json.loads(line) for line in rest.splitlines()]
    assert [(entry["index"], entry["status"]) for entry in lines[:-1]] == [(1, "applied")]
    summary = lines[-1]
    assert "index" not in summary and "blocks" not in summary
    assert (summary["ok"], summary["dryRun"], summary["applied"]) == (True, False, True)
    assert [f["path"] for f in summary["files"]] == ["app.py", "count.py"]
    assert code == 0


def test_a_failed_block_skips_its_file_and_later_blocks_still_apply(
        streamed, workspace: Path) -> None:
    run = streamed("apply", "--stream")
    run.send(edit_v3("app.py", "not in the file\n", "x\n") + "\nmore\n")
    failed = run.line()
    assert failed.startswith("block 1 failed: app.py (edit-v3) — ")
    run.send(BLOCK_1 + "\nand\n")
    assert run.line() == ("block 2 skipped: app.py (edit-v3) — Previous edit to this file "
                          "failed")
    assert workspace.joinpath("app.py").read_text(encoding="utf-8") == GREET
    run.send(BLOCK_2 + "\nend\n")
    assert run.line() == "block 3 applied: count.py:1 (search-replace, exact)"
    assert workspace.joinpath("count.py").read_text() == "count = 10\ntotal = 2\n"
    code, rest = run.finish()
    assert code == 1
    assert "1 failed, 1 skipped, 1 applied" in rest


def test_input_ending_inside_a_block_reports_it_pending_and_never_applies_it(
        streamed, workspace: Path) -> None:
    run = streamed("apply", "--stream")
    run.send(BLOCK_1 + "\nnow count.py:\n")
    assert run.line().startswith("block 1 applied")
    run.send(BLOCK_2.split("=======")[0])  # the input ends inside block 2
    code, rest = run.finish()
    assert rest.splitlines()[0].startswith("block 2 pending: count.py (search-replace) — "), rest
    assert "not applied" in rest.splitlines()[0]
    assert workspace.joinpath("count.py").read_text() == COUNT
    assert code == 0  # as without --stream: a truncated block is a warning


def test_a_block_sent_again_is_not_applied_twice(streamed, workspace: Path) -> None:
    run = streamed("apply", "--stream")
    run.send(BLOCK_1 + "\nOnce more, the same:\n")
    assert run.line().startswith("block 1 applied")
    after_first = workspace.joinpath("app.py").read_text(encoding="utf-8")
    run.send(BLOCK_1 + "\nend\n")
    assert run.line() == "block 2 already-applied: app.py:1 (edit-v3, exact)"
    assert workspace.joinpath("app.py").read_text(encoding="utf-8") == after_first
    code, _ = run.finish()
    assert code == 0


def test_check_writes_nothing_and_plans_later_blocks_over_earlier_ones(
        streamed, workspace: Path) -> None:
    run = streamed("check", "--stream")
    run.send(search_replace("count.py", "count = 1\n", "count = 5\n") + "\nthen\n")
    assert run.line() == "block 1 validated: count.py:1 (search-replace, exact)"
    # Only valid over block 1's result, which check did not write.
    run.send(search_replace("count.py", "count = 5\n", "count = 6\n") + "\nend\n")
    assert run.line() == "block 2 validated: count.py:1 (search-replace, exact)"
    code, rest = run.finish()
    assert code == 0
    assert workspace.joinpath("count.py").read_text() == COUNT
    assert "2 validated — dry run, nothing written" in rest


@pytest.mark.parametrize("option", ["--atomic", "--blocks=1"])
def test_options_needing_the_whole_response_are_refused(streamed, option: str) -> None:
    run = streamed("apply", "--stream", option)
    code, _ = run.finish()
    assert code == 2
    assert "cannot be used with --stream" in run.stderr_text


# ---------------------------------------------------------------- when a block is complete


def _responses() -> list[tuple[str, set[str] | None]]:
    from tests.unit.parsing.corpus_cases import CASE_FILES, read_cases

    responses = [((PROJECT_ROOT / "examples" / "response.md").read_text(encoding="utf-8"),
                  None)]
    for path in CASE_FILES:
        if path.name == "edge.jsonl.gz":  # hand-written edge cases: truncations, quirks
            for case in read_cases(path):
                formats = case.get("options", {}).get("formats")
                responses.append((case["response"], set(formats) if formats else None))
    return responses


@pytest.mark.parametrize("seed", range(3))
def test_a_block_counted_complete_is_the_block_of_the_whole_response(seed: int) -> None:
    """Fed in random pieces, every block counted complete is already what the finished
    response holds (so a block run early is never another block than the one meant), and
    the count only grows; at the end every block is complete."""
    import random

    from lsp_server.cli.stream import ResponseSoFar
    from lsp_server.parsing import parse_response
    from lsp_server.session.options import EditOptions

    rng = random.Random(seed)
    for text, formats in _responses():
        final = parse_response(text, formats).blocks
        so_far = ResponseSoFar(EditOptions(formats=formats))
        complete = 0
        at = 0
        while at < len(text):
            step = rng.randrange(1, 80)
            so_far.add(text[at:at + step])
            at += step
            now = so_far.complete_count(complete)
            assert so_far.parsed.blocks[:now] == final[:now], text[:at]
            assert now >= complete
            complete = now
        so_far.end()
        assert so_far.complete_count(complete) == len(final)
        assert so_far.parsed.blocks == final


def test_a_unified_diff_is_complete_only_once_nothing_can_extend_it() -> None:
    from lsp_server.cli.stream import ResponseSoFar
    from lsp_server.session.options import EditOptions

    diff = "--- a/x.py\n+++ b/x.py\n@@ -1,1 +1,1 @@\n-a\n+b\n"
    so_far = ResponseSoFar(EditOptions())
    so_far.add("```diff\n" + diff)
    assert so_far.complete_count(0) == 0
    so_far.add("\nSome prose between two hunks.\n")  # a later hunk could still follow
    assert so_far.complete_count(0) == 0
    so_far.add("```\n")  # the fence ends the diff for good
    assert len(so_far.parsed.blocks) == 1 and so_far.complete_count(0) == 1


def test_one_block_then_a_long_prose_tail_is_read_about_once() -> None:
    """check --stream - of one block and 1 MB of prose: each piece is not parsed again with
    everything after the block (it was quadratic: 2 MB 0.65 s, 16 MiB ~30 s of CPU)."""
    from lsp_server.cli.stream import ResponseSoFar
    from lsp_server.session.options import EditOptions

    text = ("x.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n\n"
            + "Plain words explaining the change, line after line.\n" * 20000)
    so_far = ResponseSoFar(EditOptions())
    for at in range(0, len(text), 4096):  # as os.read hands a pipe's text over
        so_far.add(text[at:at + 4096])
    so_far.end()
    assert so_far.complete_count(0) == 1
    assert so_far.live.reread <= 2 * len(text), so_far.live.reread / len(text)


# ------------------------------------------------------------------------ on a terminal


def test_on_a_terminal_a_live_table_shows_each_block_and_the_one_being_written(
        workspace: Path) -> None:
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "lsp_server.cli", "apply", "--stream", "-"], cwd=workspace,
        stdin=subprocess.PIPE, stdout=slave, stderr=slave,
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "COLUMNS": "150",
             "TERM": "xterm-256color"})
    os.close(slave)
    assert proc.stdin is not None
    seen = bytearray()

    def wait_for(*words: str) -> str:
        """The output so far once it holds every word (rows are redrawn in place)."""
        while True:
            text = seen.decode(errors="replace")
            if all(word in text for word in words):
                return text
            ready, _, _ = select.select([master], [], [], _HUNG_SECONDS)
            if not ready:
                pytest.fail(f"never shown: {words}; output: {text!r}")
            try:
                seen.extend(os.read(master, 65536))
            except OSError:  # the terminal closed: the process ended
                pytest.fail(f"never shown: {words}; output: {text!r}")

    try:
        written, closing = BLOCK_2.split(">>>>>>> REPLACE")
        proc.stdin.write((BLOCK_1 + "\nthen\n" + written).encode())
        proc.stdin.flush()
        wait_for("applied", "app.py", "writing", "count.py")  # block 2: not closed yet
        assert "Grüße" in workspace.joinpath("app.py").read_text(encoding="utf-8")
        assert workspace.joinpath("count.py").read_text() == COUNT
        proc.stdin.write((">>>>>>> REPLACE" + closing).encode())
        proc.stdin.close()
        text = wait_for("2 applied", "Written: app.py, count.py")
        assert proc.wait(timeout=_HUNG_SECONDS) == 0
        assert "\x1b[" in text  # drawn for a terminal, in place
        assert workspace.joinpath("count.py").read_text() == "count = 10\ntotal = 2\n"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


# ------------------------------------------------------------------------ stopping early


def test_past_the_size_limit_reading_stops_and_what_was_written_stays(
        streamed, workspace: Path) -> None:
    part_1 = (BLOCK_1 + "\nthen\n").encode()
    run = streamed("apply", "--stream", f"--max-response-bytes={len(part_1) + 10}")
    run.send(part_1)
    assert run.line().startswith("block 1 applied")
    run.send(BLOCK_2 + "\nend\n")
    code, _ = run.finish()
    assert code == 2
    assert "--max-response-bytes" in run.stderr_text
    assert "Grüße" in workspace.joinpath("app.py").read_text(encoding="utf-8")
    assert workspace.joinpath("count.py").read_text() == COUNT


def test_ctrl_c_while_waiting_for_input_reports_what_was_done(streamed, workspace: Path) -> None:
    import signal

    run = streamed("apply", "--stream", "--json")
    run.send(BLOCK_1 + "\nthen\n" + BLOCK_2.split(">>>>>>> REPLACE")[0])
    assert json.loads(run.line())["status"] == "applied"
    run.proc.send_signal(signal.SIGINT)
    code, rest = run.finish()
    assert code == 130
    lines = [json.loads(line) for line in rest.splitlines()]
    assert lines[-1]["applied"] is True and lines[-1]["ok"] is True
    assert "interrupted by SIGINT" in run.stderr_text
    assert workspace.joinpath("count.py").read_text() == COUNT  # never complete: not run


def test_a_file_that_cannot_be_written_fails_its_block_and_skips_its_later_ones(
        streamed, workspace: Path) -> None:
    workspace.joinpath("count.py").chmod(0o444)
    run = streamed("apply", "--stream")
    run.send(BLOCK_2 + "\nthen\n")
    failed = run.line()
    assert failed.startswith("block 1 failed: count.py (search-replace, exact) — Could not "
                             "write the file: ")
    assert failed.endswith("the file is read-only; not written")
    run.send(search_replace("count.py", "total = 2\n", "total = 3\n") + "\nthen\n")
    assert run.line() == ("block 2 skipped: count.py (search-replace) — Previous edit to this "
                          "file failed")
    run.send(BLOCK_1 + "\nend\n")
    assert run.line() == "block 3 applied: app.py:1 (edit-v3, exact)"
    code, rest = run.finish()
    assert code == 1
    assert "Could not write" in rest and "Written: app.py" in rest
    assert workspace.joinpath("count.py").read_text() == COUNT
