"""The test editors' own reading of positions and edits (lsp_server/testing/positions.py): the
end-to-end tests judge the server's edits with it, so it is checked against hand-made cases."""

from __future__ import annotations

import subprocess
import sys

import pytest
from lsprotocol import types

from lsp_server.testing.positions import apply_text_edits, end_position, offset_of

TEXT = "a😀b\r\nsecond\rthird\nlast"


def _at(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


@pytest.mark.parametrize(("encoding", "character", "offset"), [
    ("utf-16", 1, 1), ("utf-16", 3, 2), ("utf-16", 4, 3),  # 😀 is two UTF-16 units
    ("utf-8", 5, 2), ("utf-8", 6, 3),                      # and four UTF-8 bytes
    ("utf-32", 2, 2), ("utf-32", 3, 3),
    ("utf-16", 99, 3),                                     # past the end: the line's end
])
def test_a_character_counts_in_the_negotiated_encoding(encoding: str, character: int,
                                                       offset: int) -> None:
    assert offset_of(TEXT, _at(0, character), encoding) == offset


def test_every_line_break_ends_a_line() -> None:
    assert TEXT[offset_of(TEXT, _at(1, 0), "utf-16"):].startswith("second\r")
    assert TEXT[offset_of(TEXT, _at(2, 0), "utf-16"):].startswith("third\n")
    assert TEXT[offset_of(TEXT, _at(3, 0), "utf-16"):] == "last"
    assert offset_of(TEXT, _at(9, 0), "utf-16") == len(TEXT)
    assert end_position(TEXT, "utf-16") == _at(3, 4)
    assert end_position("x😀", "utf-16") == _at(0, 3)
    assert end_position("ends\n", "utf-8") == _at(1, 0)


def test_edits_apply_from_the_end_so_earlier_positions_stay_right() -> None:
    edits = [
        types.TextEdit(range=types.Range(start=_at(1, 0), end=_at(1, 6)), new_text="2nd"),
        types.TextEdit(range=types.Range(start=_at(0, 1), end=_at(0, 3)), new_text=""),
        types.TextEdit(range=types.Range(start=_at(3, 4), end=_at(3, 4)), new_text="\n"),
    ]
    assert apply_text_edits(TEXT, edits, "utf-16") == "ab\r\n2nd\rthird\nlast\n"


def test_the_product_never_loads_the_harness() -> None:
    code = ("import sys, lsp_server.server, lsp_server.cli; "
            "print(sorted(m for m in sys.modules if m.startswith(('lsp_server.testing', "
            "'pytest_lsp', 'pytest'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert run.stdout.strip() == "[]"
