"""streaming_plan: a growing response planned block by block equals plan_edits of the same
blocks, after any sequence of appends, edits above the stream and file changes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from lsp_server.model import BlockResult, FileSnapshot, ParseResult
from lsp_server.parsing import parse_response
from lsp_server.planning import plan_edits
from lsp_server.streaming_plan import StreamingPlan

FILES = {
    "a.py": "".join(f"a_{i} = {i}\n" for i in range(40)),
    "b.py": "".join(f"b_{i} = {i}\n" for i in range(40)),
    "c.py": "def f():\n    return 1\n",
}


def edit_v3(path: str, old: str, new: str) -> str:
    return f"{path}\n««« EDIT\n{old}═══════ REPL\n{new}»»» EDIT END\n"


class Files:
    """Texts by path, read as the server's buffers are (and changed as a user would)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.texts = {root / rel: text for rel, text in FILES.items()}

    def __call__(self, path: Path) -> FileSnapshot:
        return FileSnapshot(self.texts.get(path))


def response_blocks(rng: random.Random) -> list[str]:
    """Blocks that apply, fail, are skipped after a failure, create and repeat edits."""
    blocks = []
    for _ in range(12):
        kind = rng.choice(["a", "b", "fail", "create", "c"])
        n = rng.randrange(40)
        if kind in ("a", "b"):
            blocks.append(edit_v3(f"{kind}.py", f"{kind}_{n} = {n}\n", f"{kind}_{n} = {n * 10}\n"))
        elif kind == "fail":
            blocks.append(edit_v3("b.py", "not there\n", "x\n"))
        elif kind == "create":
            blocks.append(f"new_{n}.py\n```python\nprint({n})\n```\n"
                          if rng.random() < 0.5 else edit_v3(f"new_{n}.py", "", f"N = {n}\n"))
        else:
            blocks.append(edit_v3("c.py", "    return 1\n", "    return 2\n"))
    return blocks


def assert_equal_to_a_full_plan(plan: StreamingPlan, parsed: ParseResult, files: Files,
                                root: Path) -> None:
    streamed = plan.update(parsed.blocks)
    full = plan_edits(parsed, files, [root], dry_run=True)
    assert streamed == full.blocks
    composed = plan.plan_result(parsed)
    assert composed.blocks == full.blocks
    assert composed.changes == full.changes
    assert composed.warnings == full.warnings
    assert composed.files_modified == full.files_modified


@pytest.mark.parametrize("seed", range(12))
def test_streamed_chunks_edits_above_and_file_changes_equal_a_full_plan(
        tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    files = Files(tmp_path)
    text = "Here are the edits.\n\n" + "\n".join(response_blocks(rng))
    plan = StreamingPlan(files, [tmp_path])
    shown = 0
    while shown < len(text):
        shown = min(len(text), shown + rng.randrange(1, 60))
        current = text[:shown]
        event = rng.random()
        if event < 0.05:  # the user edits above the stream: an earlier block changes
            current = current.replace("a_1 = 1\n", "a_1 = one\n", 1)
        elif event < 0.1:  # a file the plan may have read changes
            path = tmp_path / rng.choice(list(FILES))
            files.texts[path] = files.texts[path].replace(" = 3\n", " = three\n", 1)
            plan.files_changed([path])
        assert_equal_to_a_full_plan(plan, parse_response(current), files, tmp_path)


def test_a_new_block_costs_one_blocks_planning(tmp_path: Path) -> None:
    files = Files(tmp_path)
    reads: list[Path] = []

    def read(path: Path) -> FileSnapshot:
        reads.append(path)
        return files(path)

    blocks = [edit_v3("a.py", f"a_{i} = {i}\n", f"a_{i} = -{i}\n") for i in range(6)]
    plan = StreamingPlan(read, [tmp_path])
    planned_before = 0
    for count in range(1, len(blocks) + 1):
        parsed = parse_response("".join(blocks[:count]))
        results = plan.update(parsed.blocks)
        assert [r.status for r in results] == ["validated"] * count
        assert plan.planned == count and plan.resets == 0
        assert plan.planned - planned_before == 1
        planned_before = plan.planned
    assert reads == [tmp_path / "a.py"]  # read once, kept between updates


def test_new_paths_are_those_the_last_update_read_first(tmp_path: Path) -> None:
    files = Files(tmp_path)
    plan = StreamingPlan(files, [tmp_path])
    first = edit_v3("a.py", "a_1 = 1\n", "a_1 = 2\n")
    plan.update(parse_response(first).blocks)
    assert plan.new_paths == {tmp_path / "a.py"}
    second = first + edit_v3("a.py", "a_2 = 2\n", "a_2 = 3\n")
    plan.update(parse_response(second).blocks)
    assert plan.new_paths == set()  # a.py was read by the update before
    plan.update(parse_response(second + edit_v3("b.py", "b_1 = 1\n", "x\n")).blocks)
    assert plan.new_paths == {tmp_path / "b.py"}
    assert plan.read_paths == {tmp_path / "a.py", tmp_path / "b.py"}
    plan.files_changed([tmp_path / "b.py"])  # planned again from scratch: all read anew
    plan.update(parse_response(second).blocks)
    assert plan.new_paths == {tmp_path / "a.py"}


def test_blocks_parsed_again_equal_are_kept_as_the_new_objects(tmp_path: Path) -> None:
    # The parse of the next text hands back new objects for blocks it read again; once
    # found equal they are the ones compared by identity from then on.
    files = Files(tmp_path)
    plan = StreamingPlan(files, [tmp_path])
    text = "".join(edit_v3("a.py", f"a_{i} = {i}\n", f"a_{i} = -{i}\n") for i in range(4))
    plan.update(parse_response(text).blocks)
    again = parse_response(text).blocks  # every block a new, equal object
    assert plan.continues(again) and plan.update(again) and plan.resets == 0
    assert all(kept is new for kept, new in zip(plan._blocks, again, strict=True))


def test_a_change_to_a_file_not_read_keeps_the_plan(tmp_path: Path) -> None:
    files = Files(tmp_path)
    plan = StreamingPlan(files, [tmp_path])
    plan.update(parse_response(edit_v3("a.py", "a_1 = 1\n", "a_1 = 2\n")).blocks)
    assert not plan.files_changed([tmp_path / "b.py"])
    assert plan.resets == 0
    assert plan.files_changed([tmp_path / "a.py"])
    assert plan.resets == 1 and plan.planned == 0


def test_an_earlier_block_that_changed_starts_again(tmp_path: Path) -> None:
    files = Files(tmp_path)
    plan = StreamingPlan(files, [tmp_path])
    first = edit_v3("a.py", "a_1 = 1\n", "a_1 = 2\n")
    second = edit_v3("a.py", "a_2 = 2\n", "a_2 = 3\n")
    plan.update(parse_response(first + second).blocks)
    changed = parse_response(first.replace("a_1 = 2", "a_1 = 5") + second)
    plan.update(changed.blocks)
    assert plan.resets == 1
    assert_equal_to_a_full_plan(plan, changed, files, tmp_path)


def test_settled_blocks_are_not_planned_and_keep_their_result(tmp_path: Path) -> None:
    files = Files(tmp_path)
    plan = StreamingPlan(files, [tmp_path])
    # Block 0 was applied: its new text is in the file now.
    files.texts[tmp_path / "a.py"] = FILES["a.py"].replace("a_1 = 1\n", "a_1 = 2\n")
    # (a_0 = 0, kept, places it: docs/formats.md "Statuses")
    parsed = parse_response(edit_v3("a.py", "a_0 = 0\na_1 = 1\n", "a_0 = 0\na_1 = 2\n")
                            + edit_v3("a.py", "a_2 = 2\n", "a_2 = 3\n"))
    applied = BlockResult(0, "a.py", "edit-v3", "applied", line=1)
    results = plan.update(parsed.blocks, {0: applied})
    assert results[0] is applied
    assert results[1].status == "validated" and results[1].line == 2
    composed = plan.plan_result(parsed)
    (change,) = composed.changes
    assert change.new_text == FILES["a.py"].replace("a_1 = 1\n", "a_1 = 2\n").replace(
        "a_2 = 2\n", "a_2 = 3\n")
    # No longer settled: planned again from scratch (and already applied, by its text).
    again = plan.update(parsed.blocks)
    assert plan.resets == 1 and again[0].status == "already-applied"


def test_the_composed_plan_leaves_planning_able_to_go_on(tmp_path: Path) -> None:
    files = Files(tmp_path)
    plan = StreamingPlan(files, [tmp_path])
    blocks = [edit_v3("a.py", f"a_{i} = {i}\n", f"a_{i} = -{i}\n") for i in range(3)]
    for count in range(1, 4):
        parsed = parse_response("".join(blocks[:count]))
        plan.update(parsed.blocks)
        composed = plan.plan_result(parsed)
        composed.blocks[0].status = "applied"  # the caller's copy: the plan's stays
        assert_equal_to_a_full_plan(plan, parsed, files, tmp_path)


def test_tool_calls_differing_only_in_what_lines_cannot_say_are_different_blocks() -> None:
    from lsp_server.parsing.str_replace import str_replace_block
    from lsp_server.streaming_plan import block_identity

    with_break = str_replace_block("a.py", "x\n", "y")
    without = str_replace_block("a.py", "x", "y")
    every = str_replace_block("a.py", "x", "y", True)
    assert with_break.old == without.old  # the same lines...
    identities = {block_identity(b) for b in (with_break, without, every)}
    assert len(identities) == 3  # ...but three different edits
