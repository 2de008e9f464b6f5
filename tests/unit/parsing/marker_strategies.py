"""Hypothesis strategies shared by the tests of the marker-line formats (v3, v2, search-replace)."""

from __future__ import annotations

import re

from hypothesis import strategies as st

from lsp_server.model import Block, ParseResult
from lsp_server.parsing import edit_v2, edit_v3, normalize_response, search_replace

from .parser_calls import spans_of

# Every marker of the three formats, plus the look-alikes models produce.
MARKER_LINES = [
    "««« EDIT", "═══════ REPL", "»»» EDIT END", "───────", "═══════", "»»»",
    "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "<<<<< SEARCH", "=========",
    ">>>>>>>>> REPLACE", "««« EDIT  ", "»»» EDIT END\t", " ««« EDIT", "<<<<<<<<<< SEARCH",
]
DECOR_LINES = [
    "src/app.py", "`src/app.py`", "**src/app.py**", "File: src/app.py", "src/app.py:",
    "## src/app.py", "Here is the change:", "Done.", "```", "```python", "~~~", "<source>python",
    "</source>", "", "   ", "x = 1", "    return a + b", "*** Begin Patch", "@@", "--- a/x",
]

# A content line must not be a marker of the format under test (a marker line cannot be
# written as content in these formats).
_ANY_MARKER = re.compile(
    r"(?:««« EDIT|═══════(?: REPL)?|»»»(?: EDIT END)?|───────"
    r"|<{5,9} SEARCH>?|={5,9}|>{5,9} REPLACE)\s*"
)

content_line = st.text(
    alphabet=st.one_of(
        st.sampled_from(" \tx=:`#*<>«»═─-"),  # characters that make up markers and paths
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
    ),
    max_size=30,
).filter(lambda line: _ANY_MARKER.fullmatch(line) is None)
content_lines = st.lists(content_line, max_size=6)

_segment = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from("abcXYZ"),
    st.text(alphabet="abz09_- ", max_size=8),
)
path = st.builds(
    lambda segments, ext: "/".join(segments) + "." + ext,
    st.lists(_segment, min_size=1, max_size=3),
    st.sampled_from(["py", "ts", "md", "go", "txt"]),
)


def near_valid_text() -> st.SearchStrategy[str]:
    """Responses assembled from marker lines, path/prose/fence lines and random content."""
    line = st.one_of(st.sampled_from(MARKER_LINES), st.sampled_from(DECOR_LINES), content_line)
    return st.lists(line, max_size=40).map("\n".join)


def fields(block: Block) -> tuple:
    """What a round trip must preserve."""
    return (block.format, block.file, block.op, block.anchor, block.old, block.new,
            block.trailing)


def parse_directly(text: str) -> None:
    """Run the three parsers themselves (parse_response would turn an exception into a
    warning), on the text as parse_response prepares it."""
    text = normalize_response(text)
    for module in (edit_v3, edit_v2, search_replace):
        spans_of(module.find_blocks, text)


def assert_no_internal_error(result: ParseResult) -> None:
    for fmt in ("edit-v3", "edit-v2", "search-replace"):
        assert not any(f"parsing {fmt} blocks" in w.message for w in result.warnings)
