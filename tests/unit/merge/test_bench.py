"""The merge benchmark still runs and merges what it claims (tiny sizes; no figure asserted)."""

import pytest

from bench import merge_snippet
from lsp_server.merge import Merged, merge_code_block


@pytest.mark.parametrize("case", merge_snippet.CASES)
def test_each_benchmark_case_merges_as_it_checks(case: str) -> None:
    request, check = merge_snippet.CASES[case](800)
    result = merge_code_block(request)
    assert isinstance(result, Merged) and check(result.lines)
    assert result.match == "syntax" and result.lines != request.file_lines


def test_the_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    merge_snippet.main(["--lines", "400", "--repeat", "1"])
    assert "typescript method" in capsys.readouterr().out
