"""LSP lines and columns in each position encoding, against the model's code points."""

from __future__ import annotations

import random

import pytest
from lsprotocol import types

from lsp_server.lsp.protocol import positions
from lsp_server.lsp.protocol.positions import (
    TextLines,
    apply_content_changes,
    client_position,
    code_units,
    column_from_units,
    line_count,
    lines_with_breaks,
    split_lines,
)

from ..plans import (
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


def _spliced(text: str, change: types.TextDocumentContentChangePartial, encoding: str) -> str:
    """The general path: the text's lines, spliced, joined."""
    lines = positions._Lines(text)
    lines.change(change.range, change.text, encoding)
    return "".join(lines.lines)


def _counted(text: str, change: types.TextDocumentContentChangeEvent, encoding: str,
             known: bool) -> str:
    """The fast path (or its fallback), checking the breaks it keeps."""
    breaks = positions.lf_breaks(text) if known else None
    got, breaks_after = positions.apply_content_changes_counted(text, breaks, [change],
                                                                encoding)
    assert breaks_after in (None, positions.lf_breaks(got))
    return got


@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_one_change_found_from_an_end_equals_the_line_splice(encoding: str) -> None:
    rng = random.Random(29)
    texts = texts_with_every_kind_of_line()
    texts += [text.replace("\r", "") for text in texts]  # the texts the fast path takes
    for text in texts:
        for n in range(6):
            change = _random_change(rng, text)
            expected = apply_content_change(text, change, encoding)
            assert _counted(text, change, encoding, n % 2 == 0) == expected, (text, change)
            if hasattr(change, "range"):
                assert _spliced(text, change, encoding) == expected


@pytest.mark.parametrize("encoding", [UTF8, UTF16])
def test_one_change_on_a_long_text_anywhere(encoding: str) -> None:
    # Near either end (walked to), in the middle (further than the walk goes: the split).
    rng = random.Random(31)
    text = "".join(f"line {i} é😀\n" if i % 7 else "\n" for i in range(5_000)) + "tail"
    lines = 5_001
    for line in [0, 1, 2, 500, 2_500, 4_000, 4_990, 4_999, 5_000, 5_001, 6_000]:
        for _ in range(3):
            start = types.Position(line=line, character=rng.randrange(16))
            end = types.Position(line=min(lines + 1, line + rng.randrange(3)),
                                 character=rng.randrange(16))
            change = types.TextDocumentContentChangePartial(
                range=types.Range(start=start, end=end),
                text=rng.choice(["", "x\ny", "😀", "\r\n"]))
            expected = apply_content_change(text, change, encoding)
            assert _counted(text, change, encoding, True) == expected, change
            assert _spliced(text, change, encoding) == expected
            assert apply_content_changes(text, [change], encoding) == expected


def test_a_stream_of_appends_keeps_its_line_breaks_counted() -> None:
    rng = random.Random(37)
    text, breaks = "", positions.lf_breaks("")
    for _ in range(300):
        lines = text.split("\n")
        end = types.Position(line=len(lines) - 1, character=code_units(lines[-1], UTF16))
        piece = "".join(rng.choice(["a", "é", "😀", "\n", " "]) for _ in range(rng.randrange(9)))
        change = types.TextDocumentContentChangePartial(range=types.Range(start=end, end=end),
                                                        text=piece)
        text, breaks = positions.apply_content_changes_counted(text, breaks, [change], UTF16)
        assert breaks == text.count("\n")


def test_offset_at_walks_from_the_nearer_end_and_clamps() -> None:
    text = "ab\n😀c\n\nlast"
    for line in range(6):
        for character in range(6):
            position = types.Position(line=line, character=character)
            assert positions.offset_at(text, position, UTF16) == _offset_at(
                text, position, UTF16), position
    assert positions.offset_at("a\r\nb", types.Position(line=1, character=0), UTF16) is None
    far = "x\n" * 10
    assert positions.offset_at(far, types.Position(line=5, character=0), UTF16,
                               max_walk=3) is None
    assert positions.offset_at(far, types.Position(line=8, character=0), UTF16,
                               max_walk=3) == 16


def test_appending_to_a_long_text_neither_splits_nor_counts_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The fast path's point: a chunk appended to a long response never splits the text,
    # nor counts its lines when they are known.
    text = "line\n" * 50_000
    end = types.Position(line=50_000, character=0)
    change = types.TextDocumentContentChangePartial(range=types.Range(start=end, end=end),
                                                    text="more")

    def never(_: str) -> list[str]:
        raise AssertionError("split")

    monkeypatch.setattr(positions, "lines_with_breaks", never)
    monkeypatch.setattr(positions, "lf_breaks", never)
    assert positions.apply_content_changes_counted(text, 50_000, [change], UTF16) == (
        text + "more", 50_000)


def test_text_lines_near_the_ends_of_a_long_text_then_anywhere() -> None:
    text = "".join(f"l{i}é\n" for i in range(5_000)) + "end"
    expected = split_lines(text)
    lines = TextLines(text)
    for index in [0, 3, 299, 4_990, 5_000, 4_700, 2_500, 1, 4_999]:  # walks, then the split
        assert lines[index] == expected[index]


def test_text_lines_get_is_none_past_the_end() -> None:
    for text in texts_with_every_kind_of_line():
        expected = split_lines(text)
        lines = TextLines(text)
        for index in range(len(expected) + 3):
            assert lines.get(index) == (expected[index] if index < len(expected) else None)
