"""A block's own change as a unified diff, from real plans (lsp_server/lsp/block_diff.py)."""

from __future__ import annotations

from pathlib import Path

from lsp_server.block_spans import BlockSpans
from lsp_server.lsp.live.block_diff import (
    Change,
    block_change,
    changes_in,
    cut,
    edit_change,
    replanned_changes,
    unified_hunks,
)
from lsp_server.lsp.protocol.positions import lines_with_breaks
from lsp_server.model import FileSnapshot, TextEdit
from lsp_server.parsing import parse_response
from lsp_server.planning import plan_edits

ROOT = Path("/ws")
TWENTY = "".join(f"line {i}\n" for i in range(20))


def edit_v3(path: str, old: list[str], new: list[str]) -> str:
    return (f"{path}\n««« EDIT\n" + "".join(f"{line}\n" for line in old) + "═══════ REPL\n"
            + "".join(f"{line}\n" for line in new) + "»»» EDIT END\n\n")


def plan(files: dict[str, str], response: str, record: bool = True):
    texts = {ROOT / name: text for name, text in files.items()}
    spans = BlockSpans() if record else None
    result = plan_edits(parse_response(response), lambda p: FileSnapshot(texts.get(p)),
                        [ROOT], on_change=spans.record if spans else None)
    return result, spans


def test_a_block_diff_has_the_file_line_numbers_and_three_lines_of_context() -> None:
    result, spans = plan({"a.py": TWENTY}, edit_v3("a.py", ["line 15"], ["fifteen"]))
    change = block_change(result, spans, 0, "a.py")
    assert change.diffs == ["\n".join([
        "--- a/a.py", "+++ b/a.py", "@@ -13,7 +13,7 @@",
        " line 12", " line 13", " line 14", "-line 15", "+fifteen", " line 16", " line 17",
        " line 18"])]
    assert not change.shared_with


def test_each_block_shows_only_its_own_change_numbered_as_if_it_were_alone() -> None:
    response = (edit_v3("a.py", ["line 2"], ["two", "2b"])
                + edit_v3("a.py", ["line 15"], ["fifteen"]))
    result, spans = plan({"a.py": TWENTY}, response)
    first, second = (block_change(result, spans, i, "a.py") for i in (0, 1))
    assert "+fifteen" not in first.diffs[0] and "@@ -1,6 +1,7 @@" in first.diffs[0]
    # The second block's hunk: the first block's added line is not counted on its new side.
    assert "@@ -13,7 +13,7 @@" in second.diffs[0] and "+two" not in second.diffs[0]



def test_blocks_whose_changes_touch_share_the_diff_and_say_so() -> None:
    response = edit_v3("a.py", ["line 5"], ["five"]) + edit_v3("a.py", ["line 6"], ["six"])
    result, spans = plan({"a.py": TWENTY}, response)
    first, second = (block_change(result, spans, i, "a.py") for i in (0, 1))
    assert first.diffs == second.diffs
    assert "-line 5\n-line 6\n+five\n+six" in first.diffs[0]
    assert (first.shared_with, second.shared_with) == ({1}, {0})


def test_without_recorded_spans_the_files_edits_are_shown_with_the_other_blocks_named() -> None:
    response = edit_v3("a.py", ["line 2"], ["two"]) + edit_v3("a.py", ["line 15"], ["x"])
    result, _ = plan({"a.py": TWENTY}, response, record=False)
    change = block_change(result, None, 0, "a.py")
    assert "+two" in change.diffs[0] and "+x" in change.diffs[0]
    assert change.shared_with == {1}


def test_a_created_file_is_a_diff_from_dev_null_with_its_operation() -> None:
    response = "*** Begin Patch\n*** Add File: c.py\n+hello\n+world\n*** End Patch\n"
    result, spans = plan({}, response)
    change = block_change(result, spans, 0, "c.py")
    assert [op.kind for op in change.operations] == ["create"]
    assert change.diffs == ["--- /dev/null\n+++ b/c.py\n@@ -0,0 +1,2 @@\n+hello\n+world"]


def test_a_file_without_a_final_newline_diffs_whole_lines() -> None:
    result, spans = plan({"b.py": "x\ny"}, edit_v3("b.py", ["y"], ["Y", "z"]))
    change = block_change(result, spans, 0, "b.py")
    assert change.diffs == ["--- a/b.py\n+++ b/b.py\n@@ -1,2 +1,3 @@\n x\n-y\n+Y\n+z"]


def test_a_failed_or_skipped_block_changes_nothing() -> None:
    response = edit_v3("a.py", ["nowhere"], ["x"]) + edit_v3("a.py", ["line 3"], ["y"])
    result, spans = plan({"a.py": TWENTY}, response)
    assert [b.status for b in result.blocks] == ["failed", "skipped"]
    assert block_change(result, spans, 0, "a.py").diffs == []
    assert block_change(result, spans, 1, "a.py").diffs == []


def test_an_edit_inside_a_line_shows_the_whole_line() -> None:
    lines = lines_with_breaks("x = '😀'; y = 1\nz = 2\n")
    column = len("x = '😀'; y = ")
    change = edit_change(lines, TextEdit(0, column, 0, column + 1, "42"))
    assert change == Change(0, ["x = '😀'; y = 1"], ["x = '😀'; y = 42"])


def test_nearby_changes_share_a_hunk_and_far_ones_do_not() -> None:
    original = [f"l{i}" for i in range(30)]
    near = unified_hunks(original, [Change(5, ["l5"], ["A"]), Change(11, ["l11"], ["B"])])
    assert [h for h in near if h.startswith("@@")] == ["@@ -3,13 +3,13 @@"]
    # Seven unchanged lines between them: more than the two contexts (as `diff -u`).
    far = unified_hunks(original, [Change(5, ["l5"], ["A"]), Change(13, ["l13"], [])])
    assert [h for h in far if h.startswith("@@")] == ["@@ -3,7 +3,7 @@", "@@ -11,7 +11,6 @@"]


def test_a_long_diff_is_cut_saying_how_much_was_left_out() -> None:
    diff = "\n".join(f"+{i}" for i in range(250))
    assert cut(diff).split("\n")[-1] == "… 50 more lines"
    assert cut("a\nb") == "a\nb"


def test_planning_a_files_blocks_again_finds_what_the_whole_plan_says_each_block_changes(
) -> None:
    files = {"a.py": TWENTY, "b.py": TWENTY, "c.py": "x\ny"}
    response = (edit_v3("a.py", ["line 2"], ["two", "2b"]) + edit_v3("b.py", ["line 4"], ["4"])
                + edit_v3("a.py", ["line 3"], ["three"]) + edit_v3("c.py", ["y"], ["Y"])
                + edit_v3("a.py", ["line 15"], ["fifteen"]) + edit_v3("b.py", ["nope"], ["x"])
                + "*** Begin Patch\n*** Add File: d.py\n+hello\n*** End Patch\n")
    texts = {ROOT / name: text for name, text in files.items()}
    parsed = parse_response(response)
    whole, spans = plan(files, response)
    assert [b.status for b in whole.blocks] == ["validated"] * 5 + ["failed", "validated"]
    again = replanned_changes(parsed, whole.blocks, lambda p: FileSnapshot(texts.get(p)),
                              [ROOT])
    recorded = changes_in(whole, spans)
    for block in parsed.blocks:
        assert again(block) == recorded(block), block.index
    assert again(parsed.blocks[2]).shared_with == {0}
    assert again(parsed.blocks[5]).diffs == []
