"""file_text: editor-compatible line splitting, EOL/BOM/final newline, edits from provenance."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.file_text import (
    LineOrigins,
    TextDoc,
    apply_text_edits,
    detect_eol,
    is_lf_text,
    parse_text,
    render_lines,
    render_segments,
    segment_edit,
)
from lsp_server.matching import LineIndex
from lsp_server.model import TextEdit


@pytest.mark.parametrize(
    ("text", "eol"),
    [("a\r\nb\nc\n", "\r\n"), ("a\nb\r\n", "\n"), ("a\rb", "\r"), ("abc", "\n"), ("", "\n")],
)
def test_dominant_eol_is_the_first_line_break(text: str, eol: str) -> None:
    assert detect_eol(text) == eol


def test_parse_text_bom_final_newline_and_uniformity() -> None:
    doc = parse_text("\ufeffx = 1\r\ny = 2")
    assert doc.has_bom and doc.text == "x = 1\r\ny = 2"
    assert doc.lines == ["x = 1", "y = 2"]
    assert doc.eol == "\r\n" and not doc.final_newline and doc.uniform_eol
    mixed = parse_text("a\r\nb\nc\n")
    assert mixed.final_newline and not mixed.uniform_eol


def _edits(doc: TextDoc, lines: list[str], origins: LineOrigins) -> list[TextEdit]:
    """The planner's edits for a file: one minimal edit per changed run."""
    return [segment_edit(doc, a, b, new) for a, b, new in origins.segments(lines, len(doc.lines))]


def _edit(doc_text: str, new_lines: list[str], replace: tuple[int, int, list]) -> tuple:
    doc = parse_text(doc_text)
    lines = list(doc.lines)
    origins = LineOrigins(len(lines))
    start, end, items = replace
    new = [lines[i] if isinstance(i, int) else i for i in items]
    origins.replace(start, end, items)
    lines[start:end] = new
    assert lines == new_lines
    edits = _edits(doc, lines, origins)
    return doc, lines, edits


def test_replacing_a_middle_line_is_one_minimal_edit() -> None:
    doc, lines, edits = _edit("a\nb\nc\n", ["a", "B", "c"], (1, 2, ["B"]))
    assert edits == [TextEdit(1, 0, 2, 0, "B\n")]
    assert render_lines(doc, lines, edits) == "a\nB\nc\n"


def test_kept_lines_are_not_rewritten() -> None:
    # lines 0 and 2 are kept (ints): only line 1 and the insertion produce edits
    doc, _lines, edits = _edit("a\nb\nc\nd\n", ["a", "x", "c", "y", "d"], (0, 3, [0, "x", 2, "y"]))
    assert edits == [TextEdit(1, 0, 2, 0, "x\n"), TextEdit(3, 0, 3, 0, "y\n")]
    assert apply_text_edits(doc.text, edits) == "a\nx\nc\ny\nd\n"


def test_crlf_file_gets_crlf_lines() -> None:
    doc, lines, edits = _edit("a\r\nb\r\n", ["a", "x", "b"], (1, 1, ["x"]))
    assert edits == [TextEdit(1, 0, 1, 0, "x\r\n")]
    assert render_lines(doc, lines, edits) == "a\r\nx\r\nb\r\n"


def test_last_line_without_newline_stays_without() -> None:
    doc, _lines, edits = _edit("a\nb", ["a", "B"], (1, 2, ["B"]))
    assert edits == [TextEdit(1, 0, 1, 1, "B")]
    assert apply_text_edits(doc.text, edits) == "a\nB"


def test_append_after_last_line_without_newline() -> None:
    doc, _lines, edits = _edit("a\nb", ["a", "b", "c"], (2, 2, ["c"]))
    assert edits == [TextEdit(1, 1, 1, 1, "\nc")]
    assert apply_text_edits(doc.text, edits) == "a\nb\nc"


def test_deleting_the_last_line_without_newline_drops_the_previous_break() -> None:
    doc, _lines, edits = _edit("a\nb", ["a"], (1, 2, []))
    assert edits == [TextEdit(0, 1, 1, 1, "")]
    assert apply_text_edits(doc.text, edits) == "a"


def test_filling_an_empty_file_ends_with_newline() -> None:
    doc, lines, edits = _edit("", ["x", "y"], (0, 0, ["x", "y"]))
    assert edits == [TextEdit(0, 0, 0, 0, "x\ny\n")]
    assert render_lines(doc, lines, edits) == "x\ny\n"


def test_no_change_no_edits() -> None:
    doc, lines, edits = _edit("a\nb\n", ["a", "b"], (0, 2, [0, 1]))
    assert edits == []
    assert render_lines(doc, lines, edits) == "a\nb\n"


def test_mixed_line_endings_keep_untouched_terminators() -> None:
    doc, lines, edits = _edit("a\r\nb\r\nc\nd\r\n", ["a", "B", "c", "d"], (1, 2, ["B"]))
    assert edits == [TextEdit(1, 0, 2, 0, "B\r\n")]
    assert render_lines(doc, lines, edits) == "a\r\nB\r\nc\nd\r\n"


def test_a_replaced_line_keeps_its_own_ending_in_a_mixed_file() -> None:
    # It took the file's dominant ending: an LF line of a CRLF file became CRLF.
    doc, lines, edits = _edit("a\r\nb\nc\r\n", ["a", "B", "c"], (1, 2, ["B"]))
    assert edits == [TextEdit(1, 0, 2, 0, "B\n")]
    assert render_lines(doc, lines, edits) == "a\r\nB\nc\r\n"


def test_lines_beyond_those_replaced_take_the_dominant_ending() -> None:
    # CRLF is the majority (3 of 4); the first break is LF.
    doc, lines, edits = _edit("a\nb\r\nc\r\nd\r\n", ["A", "B", "X", "c", "d"],
                              (0, 2, ["A", "B", "X"]))
    assert doc.eol == "\r\n"
    assert edits == [TextEdit(0, 0, 2, 0, "A\nB\r\nX\r\n")]
    assert render_lines(doc, lines, edits) == "A\nB\r\nX\r\nc\r\nd\r\n"


def test_a_mixed_file_without_final_newline_keeps_it_missing() -> None:
    doc, lines, edits = _edit("a\r\nb\nc", ["a", "B", "X", "Y"], (1, 3, ["B", "X", "Y"]))
    assert render_lines(doc, lines, edits) == "a\r\nB\nX\r\nY"  # a tie: the first, CRLF
    doc, lines, edits = _edit("a\r\nb\nc", ["a", "b", "C"], (2, 3, ["C"]))
    assert render_lines(doc, lines, edits) == "a\r\nb\nC"
    doc, lines, edits = _edit("a\r\nb\nc", ["a", "b", "c", "d"], (3, 3, ["d"]))
    assert render_lines(doc, lines, edits) == "a\r\nb\nc\r\nd"


@pytest.mark.parametrize(("text", "eol"), [
    ("a\r\nb\nc\n", "\n"), ("a\nb\r\nc\r\n", "\r\n"), ("a\rb\rc\n", "\r"),
    ("a\r\nb\n", "\r\n"), ("a\nb\r\n", "\n"), ("a\nb\n", "\n"), ("a\r\n\r\n", "\r\n")])
def test_the_dominant_ending_is_the_most_frequent_the_first_on_a_tie(text: str,
                                                                      eol: str) -> None:
    assert parse_text(text).eol == eol


def test_apply_text_edits_rejects_overlaps() -> None:
    with pytest.raises(ValueError):
        apply_text_edits("abc\n", [TextEdit(0, 0, 0, 2, "x"), TextEdit(0, 1, 0, 3, "y")])


def test_line_origins_track_runs() -> None:
    origins = LineOrigins(10)
    origins.replace(2, 4, ["x"])  # lines 2,3 → one new line
    assert origins.pieces == [(0, 2), (None, 1), (4, 6)]
    assert origins.origin(1) == 1 and origins.origin(2) is None and origins.origin(3) == 4
    origins.replace(0, 3, [0, "y", 2])  # keep line 0 and the new line, replace line 1
    assert origins.pieces == [(0, 1), (None, 2), (4, 6)]


# A random sequence of replacements, composed, must give edits that turn the original into
# exactly the final text, for every EOL style and final-newline state.
_line = st.text(alphabet="ab ", max_size=3)


@settings(max_examples=300, deadline=None)
@given(
    original=st.lists(_line, max_size=8),
    eol=st.sampled_from(["\n", "\r\n", "\r"]),
    final_newline=st.booleans(),
    steps=st.lists(
        st.tuples(
            st.integers(0, 10), st.integers(0, 4), st.lists(st.one_of(_line, st.none()), max_size=4)
        ),
        max_size=5,
    ),
)
def test_composed_edits_reproduce_the_final_text(original, eol, final_newline, steps) -> None:
    text = eol.join(original) + (eol if final_newline and original else "")
    doc = parse_text(text)
    lines = list(doc.lines)
    origins = LineOrigins(len(lines))
    for start, length, spec in steps:
        start = min(start, len(lines))
        end = min(len(lines), start + length)
        # None in spec keeps the next line of the replaced range (in order), text writes text
        keep = iter(range(start, end))
        items: list[int | str] = []
        for s in spec:
            if s is None:
                k = next(keep, None)
                if k is not None:
                    items.append(k)
            else:
                items.append(s)
        new = [lines[i] if isinstance(i, int) else i for i in items]
        origins.replace(start, end, items)
        lines[start:end] = new
    edits = _edits(doc, lines, origins)
    result = apply_text_edits(doc.text, edits)
    # the file's own EOL and final-newline state (a file that was empty gains a final newline)
    final = doc.final_newline if doc.lines else True
    assert result == doc.eol.join(lines) + (doc.eol if final and lines else "")
    assert render_lines(doc, lines, edits) == result
    # From slices of the original text (LF text with a final newline only).
    by_slices = render_segments(doc, origins.segments(lines, len(doc.lines)),
                                LineIndex(doc.lines).newline_before)
    assert by_slices == (result if is_lf_text(doc) else None)


def test_line_origins_replace_agrees_with_a_per_line_model() -> None:
    """replace (bisection over the pieces) keeps exactly the origins a plain per-line list
    would: kept items carry their line's origin, new text has none."""
    import random

    rng = random.Random(5)
    for _ in range(500):
        count = rng.randint(0, 12)
        origins = LineOrigins(count)
        model: list[int | None] = list(range(count))
        for _ in range(rng.randint(1, 8)):
            start = rng.randint(0, len(model))
            end = min(len(model), start + rng.randint(0, 4))
            items: list[int | str] = []
            for line in range(start, end):
                if rng.random() < 0.5:
                    items.append(line)
                if rng.random() < 0.4:
                    items.append("new")
            if rng.random() < 0.3:
                items.append("new")
            origins.replace(start, end, items)
            model[start:end] = [model[i] if isinstance(i, int) else None for i in items]
            assert [origins.origin(k) for k in range(len(model))] == model, origins.pieces
            assert sum(length for _, length in origins.pieces) == len(model)
            assert all(length > 0 for _, length in origins.pieces)
