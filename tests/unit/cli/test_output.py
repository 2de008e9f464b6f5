"""Plain output (lsp_server.cli.output): what is escaped for display, and JSON."""

from __future__ import annotations

import json
import sys
import unicodedata

import pytest

from lsp_server.cli.output import echo_json, shown, shown_path

BIDI_AND_ZERO_WIDTH = "\u202e\u2066\u200e\u061c\u200b\u200c\u200d\u2060\ufeff\U000e0041"


def test_every_invisible_code_point_of_this_python_is_escaped() -> None:
    # The list in output.py is Unicode 14's; a newer unicodedata may add code points: add
    # them there when this fails after a Python upgrade.
    invisible = [chr(c) for c in range(sys.maxunicode + 1)
                 if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp")]
    assert [c for c in invisible if shown(c) == c] == []


@pytest.mark.parametrize("char", BIDI_AND_ZERO_WIDTH)
def test_bidi_and_zero_width_characters_are_shown_escaped(char: str) -> None:
    escaped = shown_path(f"src/a{char}b.py")
    assert escaped.isascii() and escaped.startswith("src/a\\") and escaped.endswith("b.py")
    assert shown(f"x = 1{char}") == f"x = 1{escaped[5:-4]}"


def test_paths_escape_tabs_and_newlines_text_keeps_them() -> None:
    assert shown_path("a\tb\nc") == "a\\x09b\\x0ac"
    assert shown("a\tb\nc") == "a\tb\nc"
    assert shown("caf\u00e9 \U0001f600 \u05e9\u05dc\u05d5\u05dd") == (
        "caf\u00e9 \U0001f600 \u05e9\u05dc\u05d5\u05dd")  # visible letters stay


def test_json_escapes_invisible_characters_and_keeps_the_strings(capsys) -> None:
    data = {"path": f"a{BIDI_AND_ZERO_WIDTH}b", "text": "caf\u00e9 \x1b"}
    echo_json(data)
    out = capsys.readouterr().out
    assert json.loads(out) == data
    assert not any(c in out for c in BIDI_AND_ZERO_WIDTH)
    assert "\\u202e" in out and "caf\u00e9" in out


def test_a_lone_surrogate_is_shown_escaped_and_written_as_a_json_escape(capsys) -> None:
    assert shown("x\ud800y") == "x\\ud800y" and shown_path("\udfff") == "\\udfff"
    echo_json({"new": "x\ud800y"})
    out = capsys.readouterr().out
    assert "\\ud800" in out and json.loads(out) == {"new": "x\ud800y"}
