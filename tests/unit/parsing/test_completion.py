"""parsing.completion: a block counted complete is the block the finished response holds,
wherever the text is cut (inside a line, a marker, a character pair); and a block whose
closing line has arrived is counted complete, in every format."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.parsing import parse_response
from lsp_server.parsing.completion import complete_count
from lsp_server.parsing.incremental import IncrementalParse
from tests.unit.parsing.corpus_cases import CASE_FILES, needs_corpus, read_cases
from tests.unit.parsing.test_incremental import FORMAT_SETS, FRAGMENTS, _texts


def complete_count_of(text: str, formats: set[str] | None = None) -> int:
    """:func:`complete_count` of ``text`` parsed once (no parse kept between versions)."""
    parse = IncrementalParse(formats)
    parse.update(text)
    return complete_count(text, parse)


# Fragments whose blocks run on when more text comes: hunks after prose, a later section
# heading, a fence closing late.
MORE_FRAGMENTS = [
    "That was the first hunk.\n\n",
    "@@ -12,2 +12,2 @@\n ctx\n-old\n+new\n",
    "### Hunk 3:\n#### Lines to remove:\n```\nr\n```\n\n#### Lines to add:\n```\na\n```\n",
    "## Notes\n",
    "*** Begin Patch\n*** Update File: src/p.py\n@@\n-a\n+b\n",
    "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-a\n+b\n\n",
]


def _responses() -> st.SearchStrategy[str]:
    fragment = st.tuples(st.sampled_from(FRAGMENTS + MORE_FRAGMENTS), st.booleans()).map(
        lambda pair: pair[0].replace("\n", "\r\n") if pair[1] else pair[0])
    return st.one_of(_texts(), st.lists(fragment, max_size=14).map("".join))


def _check(prefix_parse: IncrementalParse, final_blocks: list, prefix: str) -> int:
    count = complete_count(prefix, prefix_parse)
    assert prefix_parse.result.blocks[:count] == final_blocks[:count], prefix
    return count


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_responses(), data=st.data(), formats=st.sampled_from(FORMAT_SETS))
def test_a_block_counted_complete_is_the_finished_responses_block(
        text: str, data: st.DataObject, formats: set[str] | None) -> None:
    final = parse_response(text, formats).blocks
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=10)))
    streamed = IncrementalParse(formats)
    counted = 0
    for end in cuts:
        prefix = text[:end]
        # A parse kept while the text grew (its settled spans carried over)...
        streamed.update(prefix)
        now = _check(streamed, final, prefix)
        assert now >= counted, prefix  # appended text never takes a complete block back
        counted = now
        # ... and one parse of the text so far count the same.
        assert complete_count_of(prefix, formats) == now, prefix
    streamed.update(text)
    assert complete_count(text, streamed, ended=True) == len(final)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_responses(), formats=st.sampled_from(FORMAT_SETS))
def test_cut_at_every_character(text: str, formats: set[str] | None) -> None:
    final = parse_response(text, formats).blocks
    streamed = IncrementalParse(formats)
    for end in range(len(text) + 1):
        streamed.update(text[:end], end - 1 if end else 0)
        _check(streamed, final, text[:end])


# A block of each format, then what ends it for good: a blank line and prose for the formats
# whose blocks close on their own line; a heading or the next section for semantic-diff (a
# later "### Hunk" after prose continues the section, and may move where its fence closed);
# a closing fence or another file's header for a unified diff (prose between hunks is read
# past, and another hunk may follow it).
PROSE = "\nThat is all.\n"
ENDED = {
    "edit-v3": ("src/a.py\n««« EDIT\nx\n═══════ REPL\ny\n»»» EDIT END\n", PROSE),
    "edit-v2": ("src/a.py\n««« EDIT\nanchor\n───────\nx\n═══════\ny\n───────\nt\n»»»\n", PROSE),
    "search-replace": ("src/a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n",
                       PROSE),
    "hunk-patch": ('edit {"path": "src/a.py", "op": "update", "diff": "@@\\n-x\\n+y\\n"}\n',
                   PROSE),
    "apply-patch": ("*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** End Patch\n",
                    PROSE),
    "whole-file": ("src/a.py\n```python\nx = 1\n```\n", PROSE),
    "semantic-diff": ("## File `src/a.py` modified:\n\n### Hunk 1:\n#### Lines to remove:\n"
                      "```\nx\n```\n\n#### Lines to add:\n```\ny\n```\n", "\n## Notes\n"),
    "unified-diff": ("```diff\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n",
                     "```\n"),
}

# The others are complete once their closing line is whole. A one-line edit call is complete
# once a non-blank line follows it: until then a SEARCH block after blank lines could take
# it as its path line and start there (the next test).
ENDED_BY_THE_LAST_LINE = {"semantic-diff", "unified-diff", "hunk-patch"}


@pytest.mark.parametrize("fmt", sorted(ENDED))
def test_a_block_is_complete_once_a_line_ends_it(fmt: str) -> None:
    block, ending = ENDED[fmt]
    formats = {fmt}
    parse = IncrementalParse(formats)
    parse.update(block)
    assert len(parse.result.blocks) == 1
    for end in range(len(ending) + 1):
        text = block + ending[:end]
        parse.update(text)
        expected = 1 if end == len(ending) or fmt not in ENDED_BY_THE_LAST_LINE else 0
        assert complete_count(text, parse) == expected, text
    # More text, even another block of the format, leaves it complete.
    parse.update(block + ending + block)
    assert complete_count(block + ending + block, parse) >= 1


@pytest.mark.parametrize("fmt", ["edit-v3", "search-replace", "apply-patch"])
def test_a_block_whose_closing_line_is_not_whole_yet_is_not_complete(fmt: str) -> None:
    block = ENDED[fmt][0].removesuffix("```\n")  # search-replace: its closing marker last
    assert complete_count_of(block[:-1], {fmt}) == 0  # the last line may still grow
    assert complete_count_of(block, {fmt}) == 1


def test_a_one_line_block_is_complete_once_a_non_blank_line_follows() -> None:
    deleted = "## File `old.txt` deleted.\n"
    search = "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
    # A SEARCH block with no path line of its own takes the section's line as its path
    # line and starts there: it replaces the section's block.
    assert parse_response(deleted + "\n" + search).blocks[0].format == "search-replace"
    for pending in ("", "\n", "\n\n```\n", "Pro"):
        assert complete_count_of(deleted + pending) == 0, pending
    assert complete_count_of(deleted + "\nProse.\n") == 1
    assert parse_response(deleted + "\nProse.\n" + search).blocks[0].format == "semantic-diff"


def test_a_block_below_one_still_open_is_not_complete() -> None:
    # The open edit-v3 block may close later and take the search-replace block as content.
    text = ("src/a.py\n««« EDIT\nx\n═══════ REPL\n"
            + ENDED["search-replace"][0] + PROSE)
    assert len(parse_response(text).blocks) == 1
    assert complete_count_of(text) == 0


def test_a_unified_diff_is_complete_after_its_look_ahead_of_prose() -> None:
    diff = "--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n\n"
    prose = "".join(f"line {n} of prose\n" for n in range(12))
    assert complete_count_of(diff + prose[:-len("line 11 of prose\n")]) == 0
    assert complete_count_of(diff + prose + "x") == 1


@needs_corpus
def test_the_corpus_cut_anywhere() -> None:
    """The shared corpus's responses (real ones, and the hand-written edge cases: truncations
    and quirks of every format), each streamed in random pieces cut inside lines: a block
    counted complete is the finished response's block."""
    rng = random.Random(14)
    for path in CASE_FILES:
        longest_piece = 60 if path.name == "edge.jsonl.gz" else 400
        for case in read_cases(path):
            text = case["response"]
            formats = case.get("options", {}).get("formats")
            formats = set(formats) if formats else None
            final = parse_response(text, formats).blocks
            streamed = IncrementalParse(formats)
            at = 0
            while at < len(text):
                at = min(len(text), at + rng.randrange(1, longest_piece))
                streamed.update(text[:at])
                _check(streamed, final, text[:at])
