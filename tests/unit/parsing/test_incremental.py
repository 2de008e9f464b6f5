"""IncrementalParse: every update equals a full parse_response of the same text, and appended
text is re-read from the last settled block, not from the start."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.parsing import parse_response
from lsp_server.parsing.incremental import IncrementalParse

# Real block fragments of every format (fenced and not, with and without path lines), prose,
# shell lines, blocks left open, non-ASCII and astral characters.
FRAGMENTS = [
    "src/app.py\n```python\n<<<<<<< SEARCH\nold = 1\n=======\nnew = 2\n>>>>>>> REPLACE\n```\n",
    "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n",
    "src/a.py\n<<<<<< SEARCH\na\n======\nb\n>>>>>> REPLACE\n",
    "src/app.py\n<<<<<<< SEARCH\nonly the head\n",
    "lib/util.ts\n««« EDIT\nfunction f() {\n═══════ REPL\nfunction g() {\n»»» EDIT END\n",
    "««« EDIT\nanchor\n───────\nold\n═══════\nnew\n───────\ntrail\n»»»\n",
    "docs/read.md\n««« EDIT\nunclosed\n═══════ REPL\n",
    'edit {"path": "src/app.py", "op": "update", "diff": "@@ def f\\n-a\\n+b\\n"}\n',
    'edit {"path": "src/new.py", "op": "create", "diff": "print(1)\\n"}\n',
    'edit {"path": "src/x.py", "op": "update", "diff": "@@\\n-x',
    '```json\n{"path": "src/j.py", "op": "delete"}\n```\n',
    "## File `src/app.py` modified:\n\n### Hunk 1:\n#### Lines to remove:\n```python\nold\n```\n"
    "\n#### Lines to add:\n```python\nnew\n```\n",
    "## File `docs/guide.md` modified:\n\n### Hunk 1:\n#### Lines to remove:\n````markdown\n"
    "```bash\nrm -rf build\n```\n````\n\n#### Lines to add:\n````markdown\n```sh\nmake\n```\n"
    "````\n",
    "## File `old.txt` deleted.\n",
    "## File `a.txt` moved to `b.txt`.\n",
    "## File `src/c.py` created:\n\n#### Lines to add:\n```\nc = 1\n```\n",
    "*** Begin Patch\n*** Update File: src/app.py\n@@ def f():\n-    a\n+    b\n*** End Patch\n",
    "*** Begin Patch\n*** Add File: src/n.py\n+line\n",
    "*** Update File: stray.py\n",
    "```diff\n--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n```\n",
    "--- a/src/u.py\n+++ b/src/u.py\n@@ -3 +3 @@\n-u\n+v\n",
    "diff --git a/r.py b/s.py\nrename from r.py\nrename to s.py\n",
    "Some prose about `src/app.py`.\n",
    "Now update **lib/util.ts** as follows:\n",
    "\n",
    "\n\n",
    "Then run `git rm old.py` and:\n$ mkdir -p build/out\n",
    "```bash\nrm -rf dist\ngit mv a b\n```\n",
    "```bash\nnot closed\n",
    "src/whole.py\n```python\nprint('whole')\n```\n",
    "Prose with é, 中文 and an emoji 😀 (astral).\n",
    "A line with a replacement character \ufffd here.\n",
    "```\n",
    "### Hunk 2:\n",
    "@@ -7 +7 @@\n-p\n+q\n",
    "*** End Patch\n",
    "»»» EDIT END\n",
]

FORMAT_SETS = [None, {"search-replace", "whole-file", "semantic-diff", "unified-diff"}]


def _texts() -> st.SearchStrategy[str]:
    fragment = st.tuples(st.sampled_from(FRAGMENTS), st.booleans()).map(
        lambda pair: pair[0].replace("\n", "\r\n") if pair[1] else pair[0])
    return st.lists(fragment, max_size=14).map("".join)


def _full(text: str, formats: set[str] | None) -> object:
    return parse_response(text, formats)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts(), data=st.data(), formats=st.sampled_from(FORMAT_SETS))
def test_streaming_in_any_chunks_equals_a_full_parse(text: str, data: st.DataObject,
                                                     formats: set[str] | None) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=12)))
    incremental = IncrementalParse(formats)
    previous = 0
    for end in [*cuts, len(text)]:
        given_offset = data.draw(st.booleans())
        result = incremental.update(text[:end], previous if given_offset else None)
        assert result == _full(text[:end], formats), (text[:end], incremental.last_reparse_from)
        assert incremental.result is result
        previous = end


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts(), data=st.data(), formats=st.sampled_from(FORMAT_SETS))
def test_edits_anywhere_while_streaming_equal_a_full_parse(text: str, data: st.DataObject,
                                                           formats: set[str] | None) -> None:
    incremental = IncrementalParse(formats)
    current = ""
    rest = text
    for _ in range(data.draw(st.integers(1, 6))):
        take = data.draw(st.integers(0, len(rest)))
        current, rest = current + rest[:take], rest[take:]
        incremental.update(current)
        start = data.draw(st.integers(0, len(current)))
        stop = data.draw(st.integers(start, min(len(current), start + 40)))
        inserted = data.draw(st.sampled_from(["", "x", "\n", "\r", "😀", "```\n", *FRAGMENTS]))
        current = current[:start] + inserted + current[stop:]
        result = incremental.update(current, start if data.draw(st.booleans()) else None)
        assert result == _full(current, formats), (current, incremental.last_reparse_from)
    assert incremental.update(current + rest) == _full(current + rest, formats)


def _blocks(n: int) -> str:
    return "".join(f"Change {i}:\n\nsrc/m{i}.py\n```\n<<<<<<< SEARCH\nold {i}\n=======\n"
                   f"new {i}\n>>>>>>> REPLACE\n```\n\n" for i in range(n))


def test_appended_text_is_reparsed_from_the_last_settled_block() -> None:
    incremental = IncrementalParse()
    text = _blocks(3)
    incremental.update(text)
    result = incremental.update(text + "src/m3.py\n```\n<<<<<<< SEARCH\nold", len(text))
    # Blocks 0-2 are closed, and block 2 is the last before the changed line: the tail is
    # read from its path line (blocks 0 and 1 are carried over).
    assert incremental.last_reparse_from == result.blocks[2].response_line > 0
    assert result == parse_response(text + "src/m3.py\n```\n<<<<<<< SEARCH\nold")


def test_streaming_a_long_response_never_reparses_from_the_start() -> None:
    text = _blocks(200)
    incremental = IncrementalParse()
    lines_reread = []
    for end in range(500, len(text) + 500, 500):
        result = incremental.update(text[: min(end, len(text))])
        lines_reread.append(text.count("\n", 0, min(end, len(text)))
                            - incremental.last_reparse_from)
    assert result == parse_response(text)
    # Each update re-reads the chunk (about 40 lines), the block being written and the last
    # complete one before it: about 80 lines, wherever the stream is (2,600 lines at the end).
    assert max(lines_reread) < 100
    assert max(lines_reread[-20:]) <= max(lines_reread[:20])


def test_a_block_left_open_keeps_the_cut_above_it() -> None:
    # An unclosed edit-v3 block may close later and swallow the blocks after it as content.
    head = "src/a.py\n««« EDIT\nold\n═══════ REPL\nnew\n\n" + _blocks(3)
    incremental = IncrementalParse()
    incremental.update(head)
    result = incremental.update(head + "more\n", len(head))
    assert incremental.last_reparse_from == 0
    assert [w.pending for w in result.warnings] == [True]
    closed = head + "»»» EDIT END\n"
    assert incremental.update(closed, len(head)) == parse_response(closed)


def test_a_unified_diff_followed_by_a_few_lines_of_prose_is_read_again() -> None:
    # Up to 12 lines of text between two hunks are looked past: until they are all there (or
    # a line that ends a diff, like the next block's marker), a hunk header may join the diff.
    head = _blocks(2)
    diff = "--- a/u.py\n+++ b/u.py\n@@ -1 +1 @@\n-a\n+b\n\nThat was the first hunk.\n"
    incremental = IncrementalParse()
    incremental.update(head + diff)
    grown = head + diff + "@@ -9 +9 @@\n-c\n+d\n"
    result = incremental.update(grown, len(head + diff))
    assert incremental.last_reparse_from == head.count("\n")  # the diff's first line
    assert result == parse_response(grown)
    assert len(result.blocks[-1].hunks) == 2


def test_an_edit_above_the_cut_parses_the_whole_text() -> None:
    text = _blocks(5)
    incremental = IncrementalParse()
    incremental.update(text)
    incremental.update(text + "tail\n")
    edited = text.replace("old 1", "old one") + "tail\n"
    assert incremental.update(edited, text.index("old 1")) == parse_response(edited)
    assert incremental.last_reparse_from == 0


def test_pending_warnings_name_format_and_file() -> None:
    cases = {
        "edit-v3": "src/a.py\n««« EDIT\nx\n═══════ REPL\ny\n",
        "search-replace": "src/a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n",
        "hunk-patch": 'edit {"path": "src/a.py", "op": "update", "diff": "@@\\n-x',
        "semantic-diff": "## File `src/a.py` modified:\n\n### Hunk 1:\n#### Lines to remove:\n"
                         "```\nx\n",
        "apply-patch": "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n",
        "unified-diff": "--- a/src/a.py\n+++ b/src/a.py\n@@ -1,2 +1,2 @@\n-x\n+y\n",
        "whole-file": "src/a.py\n```python\nx = 1\n",
    }
    for fmt, text in cases.items():
        warnings = parse_response(text, {fmt}).warnings
        assert [(w.pending, w.format, w.file) for w in warnings] == [(True, fmt, "src/a.py")]
        closed_elsewhere = parse_response(text + "\nmore prose\n" * 3 + "## Notes\n", {fmt})
        assert all(w.format in (None, fmt) for w in closed_elsewhere.warnings)
    stray = parse_response("*** Update File: stray.py\n").warnings
    assert [w.pending for w in stray] == [False]
