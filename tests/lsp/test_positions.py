"""LSP lines and columns in each position encoding, against the model's code points."""

from __future__ import annotations

import random

import pytest
from lsprotocol import types

from lsp_server.lsp import positions
from lsp_server.lsp.positions import (
    TextLines,
    apply_content_changes,
    client_position,
    code_units,
    column_from_units,
    line_count,
    lines_with_breaks,
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
    assert lines_with_breaks(text) == ["a\r\n", "b\r", "c\x0cd\u2028e\n", "f"]
    assert split_lines("x\n") == ["x", ""]
    assert lines_with_breaks("x\n") == ["x\n", ""]


def test_lines_with_breaks_join_back_into_the_text() -> None:
    for text in texts_with_every_kind_of_line():
        lines = lines_with_breaks(text)
        assert "".join(lines) == text
        assert [line.removesuffix("\n").removesuffix("\r") for line in lines] == split_lines(
            text)


# The reference the batch is checked against: one change at a time on the whole string, as
# the server applied them before (every line offset counted again, the text copied).


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in positions._LINE_BREAK.finditer(text))]


def _offset_at(text: str, position: types.Position, encoding: str) -> int:
    starts = _line_starts(text)
    if position.line >= len(starts):
        return len(text)
    start = starts[position.line]
    end = len(text)
    if position.line + 1 < len(starts):
        end = starts[position.line + 1]
        end -= 2 if text.startswith("\r\n", end - 2) else 1
    return start + column_from_units(text[start:end], position.character, encoding)


def apply_content_change(text: str, change: types.TextDocumentContentChangeEvent,
                         encoding: str) -> str:
    change_range = getattr(change, "range", None)
    if change_range is None:
        return change.text
    start = _offset_at(text, change_range.start, encoding)
    end = max(start, _offset_at(text, change_range.end, encoding))
    return text[:start] + change.text + text[end:]


def test_the_reference_reads_positions_in_the_encoding_and_clamps() -> None:
    text = "😀b\r\nc"
    assert _offset_at(text, types.Position(line=0, character=2), UTF16) == 1
    assert _offset_at(text, types.Position(line=0, character=4), UTF8) == 1
    assert _offset_at(text, types.Position(line=0, character=99), UTF16) == 2  # before CRLF
    assert _offset_at(text, types.Position(line=1, character=1), UTF16) == 5
    assert _offset_at(text, types.Position(line=7, character=0), UTF16) == len(text)


@pytest.mark.parametrize("encoding", [UTF8, UTF16])
def test_incremental_change_after_emoji_in_each_encoding(encoding: str) -> None:
    text = "first\nsay('😀', x)\nlast\n"
    start = code_units("say('😀', ", encoding)
    change = types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(line=1, character=start),
                          end=types.Position(line=1, character=start + 1)),
        text="yy")
    assert apply_content_changes(text, [change], encoding) == "first\nsay('😀', yy)\nlast\n"


def test_incremental_change_keeps_form_feed_lines_apart_from_line_count() -> None:
    # str.splitlines would count the form feed as a line break and edit the wrong line.
    text = "a\x0cb\nsecond\n"
    change = types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(line=1, character=0),
                          end=types.Position(line=1, character=6)),
        text="2nd")
    assert apply_content_changes(text, [change], UTF16) == "a\x0cb\n2nd\n"


def test_whole_document_change_replaces_text() -> None:
    change = types.TextDocumentContentChangeWholeDocument(text="new")
    assert apply_content_changes("old", [change], UTF16) == "new"


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


def _random_change(rng: random.Random, text: str) -> types.TextDocumentContentChangeEvent:
    pieces = ["", "a", "😀", "é", "\n", "\r", "\r\n", "\x0c", "\u2028", "xy\nz", "\n\r"]
    if rng.random() < 0.03:
        return types.TextDocumentContentChangeWholeDocument(
            text="".join(rng.choice(pieces) for _ in range(rng.randrange(8))))
    lines = max(1, len(split_lines(text)))

    def position() -> types.Position:  # mostly inside, sometimes past the end
        return types.Position(line=rng.randrange(lines + 2), character=rng.randrange(8))

    start, end = position(), position()
    if rng.random() < 0.8 and (end.line, end.character) < (start.line, start.character):
        start, end = end, start  # mostly in order; some reversed, as a client may send
    return types.TextDocumentContentChangePartial(
        range=types.Range(start=start, end=end),
        text="".join(rng.choice(pieces) for _ in range(rng.randrange(4))))


@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_a_batch_of_changes_gives_the_text_of_applying_them_one_by_one(encoding: str) -> None:
    rng = random.Random(13)
    for text in texts_with_every_kind_of_line():
        changes = []
        expected = text
        for _ in range(rng.randrange(1, 30)):
            change = _random_change(rng, expected)
            changes.append(change)
            expected = apply_content_change(expected, change, encoding)
        assert apply_content_changes(text, changes, encoding) == expected, (text, changes)


def test_a_multi_cursor_batch_on_a_long_buffer() -> None:
    # 300 cursors, one per line from the bottom up, each inserting at the line's start (what
    # an editor's multi-cursor edit sends), on a long buffer with mixed line breaks.
    text = "".join(f"line {i}" + ("\r\n" if i % 3 else "\n") for i in range(5_000))
    changes = [types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(line=line, character=0),
                          end=types.Position(line=line, character=0)), text="# ")
        for line in range(4_900, 4_600, -1)]
    expected = text
    for change in changes:
        expected = apply_content_change(expected, change, UTF16)
    assert apply_content_changes(text, changes, UTF16) == expected
