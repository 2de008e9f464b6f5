"""The one regex pass that finds every format's marker lines (lsp_server.formats names them)."""

from __future__ import annotations

from lsp_server.formats import FORMATS
from lsp_server.parsing.marker_scan import scan_markers


def test_whole_line_markers_and_their_line_numbers() -> None:
    text = "««« EDIT\nx ««« EDIT\n═══════ REPL \n\n<<<<<<< SEARCH\n======\n»»»\n>>>>>>> REPLACE"
    found = scan_markers(text)
    assert found.whole_lines["edit_markers"] == [(0, "««« EDIT"), (2, "═══════ REPL"),
                                                 (6, "»»»")]
    assert found.whole_lines["search_replace_markers"] == [
        (4, "<<<<<<< SEARCH"), (5, "======"), (7, ">>>>>>> REPLACE")]


def test_a_whole_line_marker_with_more_on_its_line_is_not_one() -> None:
    found = scan_markers("««« EDIT now\n=======x\n»»» EDIT END\t\n")
    assert found.whole_lines["edit_markers"] == [(2, "»»» EDIT END")]
    assert found.whole_lines["search_replace_markers"] == []


def test_line_start_markers_with_their_offsets() -> None:
    text = ("edit {\"path\": \"a\"}\n  edit {}\n```json\n## File `a` deleted.\n"
            "--- a/x\n+++ b/x\ndiff --git a/x b/x\n*** Begin Patch\n~~~JSON\n")
    starts = scan_markers(text).starts
    offset = {n: sum(len(line) + 1 for line in text.split("\n")[:n]) for n in range(10)}
    assert starts["edit_calls"] == [(0, 0)]  # an indented one is not a marker line
    assert starts["json_fences"] == [(2, offset[2]), (8, offset[8])]
    assert starts["file_sections"] == [(3, offset[3])]
    assert starts["minus_lines"] == [(4, offset[4])]
    assert starts["git_headers"] == [(6, offset[6])]
    assert starts["patch_markers"] == [(7, offset[7])]


def test_every_kind_of_the_registry_has_its_list_even_when_empty() -> None:
    found = scan_markers("no markers here\n")
    kinds = {marker.kind for fmt in FORMATS for marker in fmt.markers}
    assert set(found.whole_lines) | set(found.starts) == kinds
    assert not any(found.whole_lines.values()) and not any(found.starts.values())


def test_equal_marker_texts_are_one_string_object() -> None:
    # A response of many blocks keeps one copy of each marker text, not one per line.
    found = scan_markers("««« EDIT\n»»»\n" * 3)
    first_texts = [text for _, text in found.whole_lines["edit_markers"][::2]]
    assert all(text is first_texts[0] for text in first_texts)
