"""model: the package's one line splitter and its inverse."""

from __future__ import annotations

import pytest

from lsp_server.model import lines_to_text, text_to_lines


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("a", ["a"]),
        ("a\n", ["a"]),
        ("a\nb", ["a", "b"]),
        ("a\r\nb\r\n", ["a", "b"]),
        ("a\rb\r", ["a", "b"]),  # a lone CR is a line break, as in editors
        ("a\rb\rc\n", ["a", "b", "c"]),
        ("a\r\n\rb", ["a", "", "b"]),
        ("\n", [""]),
        ("\n\n", ["", ""]),
        ("\r", [""]),
        (
            "a\x0bb\x0cc\u2028d\x85e",
            ["a\x0bb\x0cc\u2028d\x85e"],
        ),  # only CR/LF break lines (unlike splitlines)
    ],
)
def test_text_to_lines_splits_like_an_editor(text: str, lines: list[str]) -> None:
    assert text_to_lines(text) == lines


@pytest.mark.parametrize("lines", [[], ["a"], ["", ""], ["a", "", "b"], ["x\ty", " "]])
def test_text_to_lines_inverts_lines_to_text(lines: list[str]) -> None:
    assert text_to_lines(lines_to_text(lines)) == lines
