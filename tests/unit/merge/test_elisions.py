import pytest

from lsp_server.merge import is_elision_line
from lsp_server.merge.elisions import elision_indexes, split_runs


@pytest.mark.parametrize("line", [
    "# ... existing code ...",
    "    // ...existing code...",
    "/* ... */",
    "<!-- rest of the document unchanged -->",
    "{/* ... */}",
    "-- omitted",
    "...",
    "  …",
    "# Rest of the class stays the same as before",
    "// same as before",
    "# (unchanged)",
])
def test_elision_lines(line: str) -> None:
    assert is_elision_line(line)


@pytest.mark.parametrize("line", [
    "x = ...",  # code, not only a comment
    "print('...')",
    "# compute the total",
    "// TODO",
    "#!/usr/bin/env python",
    "/* existing",  # not a whole comment
    "# " + "existing " * 40,  # prose, not a marker
    "",
])
def test_not_elision_lines(line: str) -> None:
    assert not is_elision_line(line)


def test_an_elision_like_comment_the_file_has_is_code() -> None:
    file_lines = ["def f():", "    # skip existing rows", "    pass"]
    code = ["def f():", "    # skip existing rows", "    # ...", "    return 1"]
    assert elision_indexes(code, file_lines) == [2]


def test_runs_between_elisions_without_blank_ends() -> None:
    code = ["", "a", "", "# ...", "", "b", "c", "# ...", "", "# ..."]
    assert split_runs(code, [3, 7, 9]) == [(1, 2), (5, 7)]
