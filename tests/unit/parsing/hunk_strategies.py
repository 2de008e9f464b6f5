"""Helpers and Hypothesis strategies shared by the tests of the hunk and Markdown formats
(hunk-patch, semantic-diff, apply-patch, unified-diff)."""

from __future__ import annotations

from hypothesis import strategies as st

from lsp_server.formats import FindBlocks
from lsp_server.model import Block, Hunk
from lsp_server.parsing import ParsedSpan, normalize_response, parse_response

from .parser_calls import spans_of

# Marker lines of the four formats and the look-alikes models write.
MARKER_LINES = [
    "*** Begin Patch", "*** End Patch", "*** Add File: a.py", "*** Delete File: b.txt",
    "*** Update File: src/app.py", "*** Move to: lib/app.py", "*** End of File", "@@",
    "@@ def f():", "@@ -1,3 +1,4 @@", "@@ -0,0 +1 @@", "@@ -0,0 +0,0 @@", "--- a/src/app.py",
    "+++ b/src/app.py",
    "--- /dev/null", "+++ /dev/null", "diff --git a/x.py b/y.py", "rename from x.py",
    "rename to y.py", "new file mode 100644", "index 83db48f..bf269f4 100644",
    "\\ No newline at end of file", "## File `src/app.py` modified:",
    "## File `new.md` created:", "## File `old.md` deleted.",
    "## File `a.md` moved to `b.md`.", "### Hunk 1:", "#### Lines to remove:",
    "#### Lines to add:", "```", "```python", "````", "````markdown", "~~~", "```json",
    'edit {"path": "a.py", "op": "update", "diff": "@@\\n-a\\n+b\\n"}',
    'edit {"path": "a.py", "op": "create", "diff": "x"}', 'edit {"path": "a.py", "op": "delete"}',
    'edit {"path": "a.py", "op": "upd', '{"path": "c.py", "op": "delete"}', "[", "]", "",
    "   ", " *** End Patch", "*** End Patch  ", "# Semantic Patch", "## Summary",
]
BODY_LINES = [" context", "-removed", "+added", " ", "-", "+", "    x = 1", "prose line"]

content_line = st.text(
    alphabet=st.one_of(
        st.sampled_from(" \t+-@*#`~{}\"\\:/"),
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
    ),
    max_size=25,
)


def near_valid_text() -> st.SearchStrategy[str]:
    """Responses assembled from the formats' marker lines, body lines and random lines."""
    line = st.one_of(st.sampled_from(MARKER_LINES), st.sampled_from(BODY_LINES), content_line)
    return st.lists(line, max_size=40).map("\n".join)


def found_by(find_blocks: FindBlocks, text: str) -> list[ParsedSpan]:
    """What one format module finds in ``text`` (normalised as parse_response does)."""
    return spans_of(find_blocks, normalize_response(text))


def blocks_of(find_blocks: FindBlocks, text: str) -> list[Block]:
    return [b for f in found_by(find_blocks, text) for b in f.blocks]


def warnings_of(find_blocks: FindBlocks, text: str) -> list[str]:
    return [w.message for f in found_by(find_blocks, text) for w in f.warnings]


def no_internal_errors(text: str) -> None:
    """parse_response must not raise, and no parser may have raised inside it."""
    result = parse_response(text)
    assert not [w for w in result.warnings if "internal error" in w.message]


def hunk_fields(hunk: Hunk) -> tuple:
    return (hunk.anchor, hunk.lines, hunk.end_of_file)


def block_fields(block: Block) -> tuple:
    """What a render → parse round trip must keep."""
    hunks = None if block.hunks is None else [hunk_fields(h) for h in block.hunks]
    return (block.format, block.file, block.op, block.move_to, block.old, block.new, hunks)


# Lines a round-tripped hunk body may hold (no line is empty: an empty line at the end of a
# body is dropped by design, and kind " " with text "" renders as " ").
body_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
    max_size=20,
)
path = st.builds(
    lambda parts, ext: "/".join(parts) + "." + ext,
    st.lists(st.text(alphabet="abcxyz019_-", min_size=1, max_size=6), min_size=1, max_size=3),
    st.sampled_from(["py", "md", "ts", "txt"]),
)


@st.composite
def hunks(draw: st.DrawFn, *, anchors: bool = True, min_size: int = 1) -> list[Hunk]:
    """Hunks with at least one change each; anchors drawn when the format has them."""
    out = []
    for _ in range(draw(st.integers(min_size, 3))):
        context_before = draw(st.lists(body_text, max_size=2))
        removed = draw(st.lists(body_text, max_size=3))
        added = draw(st.lists(body_text, min_size=0 if removed else 1, max_size=3))
        context_after = draw(st.lists(body_text, max_size=2))
        anchor = draw(st.one_of(st.none(), body_text.filter(_usable_anchor))) if anchors else None
        hunk = Hunk(header=anchor or "", anchor=anchor)
        hunk.lines = ([(" ", t) for t in context_before] + [("-", t) for t in removed]
                      + [("+", t) for t in added] + [(" ", t) for t in context_after])
        out.append(hunk)
    return out


def _usable_anchor(text: str) -> bool:
    """An anchor that survives ``@@ ANCHOR`` (not blank, not read as unified numbers)."""
    stripped = text.strip()
    return bool(stripped) and stripped != "@@" and not stripped.startswith("-")
