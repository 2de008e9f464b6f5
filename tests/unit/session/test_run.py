"""session.run: a response's text, options and a file reader -> parse, limits, block
selection, plan, result JSON and retry feedback (the run every front end makes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.session.options import CLI, EditOptions, parse_options
from lsp_server.session.run import RunRefused, resolved_target, run_response, too_many_blocks
from lsp_server.workspace import read_disk_file


def _block(path: str, old: str, new: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n"


TWO = _block("a.py", "one", "ONE") + "\n" + _block("a.py", "missing", "x")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("one\ntwo\n", encoding="utf-8")
    return tmp_path


def test_a_run_plans_and_reports_without_writing(root: Path) -> None:
    outcome = run_response(TWO, parse_options(None), read_disk_file, [root])
    assert [b.status for b in outcome.plan.blocks] == ["validated", "failed"]
    result = outcome.result_json()
    assert result["edit"] is None and result["blocks"][1]["uri"] == (root / "a.py").as_uri()
    assert "### Block 2: a.py" in outcome.feedback and "two" in outcome.feedback
    assert (root / "a.py").read_text(encoding="utf-8") == "one\ntwo\n"  # nothing written


def test_options_select_blocks_and_the_rest_are_excluded(root: Path) -> None:
    outcome = run_response(TWO, parse_options({"blocks": [1]}), read_disk_file, [root])
    assert [b.status for b in outcome.plan.blocks] == ["excluded", "failed"]
    with pytest.raises(RunRefused, match=r"^options.blocks: there is no block 2") as refused:
        run_response(TWO, parse_options({"blocks": [2]}), read_disk_file, [root])
    assert refused.value.key == "blocks"


def test_the_block_limit_is_one_check_worded_for_each_front_end(root: Path) -> None:
    options = parse_options({"maxBlocks": 1})
    assert too_many_blocks(1, options) is None
    with pytest.raises(RunRefused, match=r"has 2 blocks, more than maxBlocks \(1\); split it"):
        run_response(TWO, options, read_disk_file, [root])
    cli = parse_options({"maxBlocks": 1}, vocabulary=CLI)
    with pytest.raises(RunRefused, match=r"has 2 blocks, more than 1 \(--max-blocks\)$"):
        run_response(TWO, cli, read_disk_file, [root])


def test_a_response_over_the_size_limit_is_refused(root: Path) -> None:
    with pytest.raises(RunRefused, match="maxResponseBytes") as refused:
        run_response(TWO, EditOptions(max_response_bytes=10), read_disk_file, [root])
    assert refused.value.key == "maxResponseBytes"


def test_a_target_is_a_workspace_path_and_refused_outside_it(root: Path) -> None:
    (root / "src").mkdir()
    assert resolved_target(EditOptions(target="src/b.py"), [root]) == "src/b.py"
    uri = (root / "src" / "b.py").as_uri()
    assert resolved_target(EditOptions(target=uri), [root]) == "src/b.py"
    assert resolved_target(EditOptions(), [root]) is None
    for outside in ("../elsewhere.py", "/etc/passwd", ".git/config"):
        with pytest.raises(RunRefused, match=r"^options\.target: ") as refused:
            resolved_target(EditOptions(target=outside), [root])
        assert refused.value.key == "target"


def test_an_unnamed_fence_is_for_the_target(root: Path) -> None:
    (root / "b.py").write_text("one\ntwo\nthree\n", encoding="utf-8")
    fence = "Here is the whole file:\n\n```python\none\nTWO\nthree\n```\n"
    plain = run_response(fence, parse_options(None), read_disk_file, [root])
    assert plain.plan.blocks == []
    targeted = run_response(fence, parse_options({"target": "b.py"}), read_disk_file, [root])
    assert [(b.file, b.status) for b in targeted.plan.blocks] == [("b.py", "validated")]
