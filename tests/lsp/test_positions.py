"""LSP lines and columns in each position encoding, against the model's code points."""

from __future__ import annotations

import pytest
from lsprotocol import types

from lsp_server.lsp import positions
from lsp_server.lsp.positions import (
    TextLines,
    apply_content_change,
    client_position,
    code_units,
    column_from_units,
    line_count,
    line_starts,
    offset_at,
    split_lines,
)

from .plans import (
    UTF8,
    UTF16,
    UTF32,
    texts_with_every_kind_of_line,
)


@pytest.mark.parametrize(("encoding", "units"), [(UTF16, 4), (UTF8, 7), (UTF32, 3)])
def test_code_units_count_non_bmp_characters_per_encoding(encoding: str, units: int) -> None:
    assert code_units("a😀é", encoding) == units


@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_column_from_units_inverts_code_units(encoding: str) -> None:
    line = "x = '😀é' # ok"
    for column in range(len(line) + 1):
        assert column_from_units(line, code_units(line[:column], encoding),
                                      encoding) == column
    assert column_from_units(line, 999, encoding) == len(line)


def test_lines_break_only_at_lsp_terminators() -> None:
    text = "a\r\nb\rc\x0cd\u2028e\nf"
    assert split_lines(text) == ["a", "b", "c\x0cd\u2028e", "f"]
    assert line_starts(text) == [0, 3, 5, 11]
    assert split_lines("x\n") == ["x", ""]


def test_offset_at_uses_encoding_and_clamps() -> None:
    text = "😀b\r\nc"
    assert offset_at(text, types.Position(line=0, character=2), UTF16) == 1
    assert offset_at(text, types.Position(line=0, character=4), UTF8) == 1
    assert offset_at(text, types.Position(line=0, character=99), UTF16) == 2  # before CRLF
    assert offset_at(text, types.Position(line=1, character=1), UTF16) == 5
    assert offset_at(text, types.Position(line=7, character=0), UTF16) == len(text)


@pytest.mark.parametrize("encoding", [UTF8, UTF16])
def test_incremental_change_after_emoji_in_each_encoding(encoding: str) -> None:
    text = "first\nsay('😀', x)\nlast\n"
    start = code_units("say('😀', ", encoding)
    change = types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(line=1, character=start),
                          end=types.Position(line=1, character=start + 1)),
        text="yy")
    assert apply_content_change(text, change, encoding) == "first\nsay('😀', yy)\nlast\n"


def test_incremental_change_keeps_form_feed_lines_apart_from_line_count() -> None:
    # str.splitlines would count the form feed as a line break and edit the wrong line.
    text = "a\x0cb\nsecond\n"
    change = types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(line=1, character=0),
                          end=types.Position(line=1, character=6)),
        text="2nd")
    assert apply_content_change(text, change, UTF16) == "a\x0cb\n2nd\n"


def test_whole_document_change_replaces_text() -> None:
    change = types.TextDocumentContentChangeWholeDocument(text="new")
    assert apply_content_change("old", change, UTF16) == "new"


def test_client_position_past_the_end_is_the_end_of_the_text() -> None:
    lines = split_lines("ab\ncd")
    assert client_position(lines, 5, 0, UTF16) == types.Position(line=1, character=2)




def test_text_lines_are_the_split_lines() -> None:
    for text in texts_with_every_kind_of_line():
        expected = split_lines(text)
        assert expected == positions._LINE_BREAK.split(text)
        assert len(TextLines(text)) == len(expected) == line_count(text)
        # The last line alone (found from the end), then every line (after a split).
        assert TextLines(text)[len(expected) - 1] == expected[-1]
        lines = TextLines(text)
        assert [lines[i] for i in range(len(expected))] == expected


@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_client_position_on_text_lines_counts_units_of_the_line_prefix(encoding: str) -> None:
    for text in texts_with_every_kind_of_line():
        lines = split_lines(text)
        for line in range(len(lines) + 2):
            for column in range(-1, 8):
                shift = 3 if line % 2 else 0
                got = client_position(TextLines(text), line, column, encoding, shift)
                end = line >= len(lines)
                at = len(lines) - 1 if end else line
                prefix = lines[at] if end else lines[at][:max(0, column)]
                units = code_units(prefix, encoding) + (shift if at == 0 else 0)
                assert got == types.Position(line=at, character=units), (text, line, column)
