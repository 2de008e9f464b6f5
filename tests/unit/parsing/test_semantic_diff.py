"""semantic-diff parsing (seed 004 and docs/formats.md "semantic-diff")."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from lsp_server.model import Block
from lsp_server.parsing import normalize_response, parse_response, semantic_diff
from lsp_server.parsing.semantic_diff import _STRUCTURE_RE, _Scanner

from .hunk_strategies import (
    block_fields,
    blocks_of,
    found_by,
    near_valid_text,
    no_internal_errors,
    path,
    warnings_of,
)


def blocks(text: str) -> list[Block]:
    return blocks_of(semantic_diff.find_blocks, text)


def warnings(text: str) -> list[str]:
    return warnings_of(semantic_diff.find_blocks, text)


def hunk(remove: list[str] | None, add: list[str] | None, number: int = 1,
         fence: str = "```python") -> list[str]:
    close = fence.rstrip("abcdefghijklmnopqrstuvwxyz")
    out = [f"### Hunk {number}:", "#### Lines to remove:"]
    if remove is not None:
        out += [fence, *remove, close]
    out += ["", "#### Lines to add:"]
    if add is not None:
        out += [fence, *add, close]
    return [*out, ""]


def modified(file: str, *hunks: list[str]) -> list[str]:
    return [f"## File `{file}` modified:", ""] + [line for h in hunks for line in h]


PATCH = "\n".join([
    "# Semantic Patch", "", "## Summary", "* **Modified**: `src/app.py`",
    "* **Created**: `docs/new.md`", "* **Deleted**: `legacy/old.sh`", "",
    *modified("src/app.py", hunk(["def f():", "    pass"], ["def f():", "    return 1"]),
              hunk(["x = 1"], ["x = 2"], number=2)),
    "## File `docs/new.md` created:", "", "### Hunk 1:", "#### Lines to remove:", "",
    "#### Lines to add:", "```markdown", "# New", "", "Text.", "```", "",
    "## File `legacy/old.sh` deleted.", "",
    "## File `a/b.md` moved to `c/b.md`.", "",
])


def test_seed_layout_one_block_per_hunk_and_per_file_operation() -> None:
    result = blocks(PATCH)
    assert [(b.file, b.op, b.move_to) for b in result] == [
        ("src/app.py", "update", None), ("src/app.py", "update", None),
        ("docs/new.md", "create", None), ("legacy/old.sh", "delete", None),
        ("a/b.md", "rename", "c/b.md")]
    first, second, created, _, _ = result
    assert (first.old, first.new) == (["def f():", "    pass"], ["def f():", "    return 1"])
    assert (first.anchor, first.trailing, first.hunks) == ([], [], None)
    assert (second.old, second.new) == (["x = 1"], ["x = 2"])
    assert created.new == ["# New", "", "Text."]
    assert all(b.format == "semantic-diff" for b in result)


def test_block_lines_and_raw() -> None:
    lines = PATCH.split("\n")
    first, second, created, deleted, moved = blocks(PATCH)
    assert lines[first.response_line] == "### Hunk 1:"
    assert lines[first.end_line - 1] == "```" and first.end_line == second.response_line - 1
    assert first.raw == "\n".join(lines[first.response_line:first.end_line])
    assert lines[created.response_line] == "## File `docs/new.md` created:"
    assert lines[created.end_line - 1] == "```"
    assert (deleted.end_line - deleted.response_line, moved.raw) == (
        1, "## File `a/b.md` moved to `c/b.md`.")
    found = found_by(semantic_diff.find_blocks, PATCH)
    assert (found[0].start, found[0].end) == (7, second.end_line)


def test_fence_content_is_verbatim_including_blank_lines_before_the_closer() -> None:
    [block] = blocks("\n".join(modified("a.py", hunk(["x = 1", "", ""], ["x = 2", ""]))))
    assert (block.old, block.new) == (["x = 1", "", ""], ["x = 2", ""])


def test_longer_fence_holds_a_shorter_one_and_headings_inside_fences_are_content() -> None:
    inner = ["```sh", "## File `fake.md` deleted.", "### Hunk 9:", "pip install x", "```"]
    text = "\n".join(modified("README.md", hunk(inner, [*inner[:3], "pip install y", *inner[4:]],
                                                fence="````markdown")))
    [block] = blocks(text)
    assert block.old == inner
    assert block.new == [*inner[:3], "pip install y", "```"]


def test_tilde_fences_and_a_closer_longer_than_its_opener() -> None:
    text = "\n".join(["## File `a.md` modified:", "### Hunk 1:", "#### Lines to remove:",
                      "~~~", "```", "old", "~~~~~", "#### Lines to add:", "~~~text", "new",
                      "~~~", ""])
    [block] = blocks(text)
    assert (block.old, block.new) == (["```", "old"], ["new"])


def test_indented_fence_content_loses_the_opener_indentation() -> None:
    text = "\n".join(["## File `a.py` modified:", "### Hunk 1:", "#### Lines to remove:",
                      "  ```", "    x = 1", " y", "  ```", "#### Lines to add:", "```",
                      "    x = 2", "```"])
    [block] = blocks(text)
    assert (block.old, block.new) == (["  x = 1", "y"], ["    x = 2"])


def test_backtick_in_info_string_is_not_a_fence_opener() -> None:
    text = "\n".join(["## File `a.py` modified:", "### Hunk 1:", "#### Lines to remove:",
                      "```a`b", "```", "old", "```", "#### Lines to add:", "```", "new", "```"])
    [block] = blocks(text)
    assert (block.old, block.new) == (["old"], ["new"])


def test_section_ends_at_another_heading_or_a_foreign_fence() -> None:
    text = "\n".join([*modified("a.py", hunk(["a"], ["b"])), "## Notes", "### Hunk 2:",
                      "#### Lines to remove:", "```", "c", "```", "#### Lines to add:", "```",
                      "d", "```"])
    assert [(b.old, b.new) for b in blocks(text)] == [(["a"], ["b"])]
    text = "\n".join([*modified("a.py", hunk(["a"], ["b"])), "Run it:", "```sh", "make", "```"])
    [found] = found_by(semantic_diff.find_blocks, text)
    assert found.end == text.split("\n").index("Run it:") - 1


def test_prose_between_hunks_and_parts_is_allowed() -> None:
    text = "\n".join(["## File `a.py` modified:", "", "First the import.", "", "### Hunk 1:",
                      "", "#### Lines to remove:", "", "```", "a", "```", "", "Becomes:", "",
                      "#### Lines to add:", "", "```", "b", "```", "", "Then:", "",
                      "### Hunk 2:", "#### Lines to remove:", "```", "c", "```",
                      "#### Lines to add:", "```", "d", "```"])
    assert [(b.old, b.new) for b in blocks(text)] == [(["a"], ["b"]), (["c"], ["d"])]


def test_lines_to_add_without_a_fence_deletes_the_lines() -> None:
    text = "\n".join([*modified("a.py", hunk(["dead()"], None)), "That is all."])
    [block] = blocks(text)
    assert (block.old, block.new) == (["dead()"], [])


@pytest.mark.parametrize(("lines", "message"), [
    (hunk(None, ["b"]), "hunk 1: it has no lines to remove, so it cannot be located"),
    (hunk([], ["b"]), "hunk 1: it has no lines to remove, so it cannot be located"),
    (["### Hunk 1:", "#### Lines to remove:", "```", "a", "```", "", "Some prose."],
     "hunk 1: it has no '#### Lines to add:' part"),
])
def test_malformed_hunks_are_skipped_with_a_warning(lines: list[str], message: str) -> None:
    text = "\n".join([*modified("a.py", lines, hunk(["c"], ["d"], number=2)), "Done."])
    assert [(b.old, b.new) for b in blocks(text)] == [(["c"], ["d"])]
    assert warnings(text) == [f"semantic-diff file 'a.py', {message}; skipped"]


def test_truncated_responses() -> None:
    complete = modified("a.py", hunk(["a"], ["b"]))
    cut_in_fence = "\n".join([*complete, "### Hunk 2:", "#### Lines to remove:", "```", "c"])
    assert [b.old for b in blocks(cut_in_fence)] == [["a"]]
    assert warnings(cut_in_fence) == [
        "semantic-diff file 'a.py', hunk 2: its code block is not closed (truncated?); skipped"]
    cut_after_heading = "\n".join([*complete, "### Hunk 2:", "#### Lines to remove:", "```",
                                   "c", "```", "#### Lines to add:", ""])
    assert warnings(cut_after_heading) == [
        "semantic-diff file 'a.py', hunk 2: the response ends before its lines to add "
        "(truncated?); skipped"]
    assert warnings("## File `a.py` modified:\n\n") == [
        "semantic-diff file 'a.py' (modified): the response ends after its heading "
        "(truncated?); skipped"]
    assert warnings("## File `n.py` created:\n### Hunk 1:\n#### Lines to add:\n```\nx = 1") == [
        "semantic-diff file 'n.py' (created): its code block is not closed (truncated?); "
        "skipped"]


def test_created_file_variants() -> None:
    direct = "## File `n.py` created:\n```python\nx = 1\n```\n"
    assert [(b.op, b.new) for b in blocks(direct)] == [("create", ["x = 1"])]
    empty = "## File `pkg/__init__.py` created:\n### Hunk 1:\n#### Lines to remove:\n\n" \
            "#### Lines to add:\n\nNothing in it.\n"
    assert [(b.op, b.new) for b in blocks(empty)] == [("create", [])]
    nothing = "## File `n.py` created:\n\nI will write it later.\n"
    assert warnings(nothing) == [
        "semantic-diff file 'n.py' (created): it has no lines to add; skipped"]


def test_header_variants() -> None:
    text = "## File `a b/c.py` modified\n### Hunk 1:\n#### Lines to remove:\n```\nx\n```\n" \
           "#### Lines to add:\n```\ny\n```\n## File `d.md` deleted\n" \
           "## File `e.md` moved to `f/e.md`\n   ## File `g.md` deleted.\n"
    assert [(b.file, b.op) for b in blocks(text)] == [
        ("a b/c.py", "update"), ("d.md", "delete"), ("e.md", "rename")]


def test_batch_limits_are_warnings_that_do_not_block() -> None:
    text = "\n".join([
        *modified("a.py", hunk(["a"], ["b"])), *modified("b.py", hunk(["a"], ["b"])),
        *modified("a.py", hunk(["c"], ["d"])), *modified("c.py", hunk(["a"], ["b"])),
        "## File `n1.py` created:", "```", "x", "```", "## File `n2.py` created:", "```", "y",
        "```", *[f"## File `old{i}.py` deleted." for i in range(6)],
        *[f"## File `m{i}.py` moved to `n{i}.py`." for i in range(6)],
    ])
    assert len(blocks(text)) == 4 + 2 + 12
    assert warnings(text) == [
        "semantic-diff batch limit: more than 2 file(s) modified in one patch (the protocol "
        "allows 2); applied anyway",
        "semantic-diff batch limit: more than 1 file(s) created in one patch (the protocol "
        "allows 1); applied anyway",
        "semantic-diff batch limit: more than 10 file(s) deleted or moved in one patch (the "
        "protocol allows 10); applied anyway",
    ]


def test_nested_section_heading_in_parse_response_and_other_formats_inside() -> None:
    diff = ["```diff", "--- a/x.py", "+++ b/x.py", "@@ -1 +1 @@", "-a", "+b", "```"]
    text = "\n".join(modified("docs/howto.md", hunk(["old"], ["Apply:", *diff],
                                                    fence="````markdown")))
    result = parse_response(text)
    assert [(b.format, b.file) for b in result.blocks] == [("semantic-diff", "docs/howto.md")]
    assert result.blocks[0].new == ["Apply:", *diff]


# ------------------------------------------------------------------ CommonMark fences


COMMONMARK = MarkdownIt("commonmark")
fence_line = st.one_of(
    st.sampled_from(["```", "````", "~~~", "~~~~", "```python", "````md", "~~~ x`y", "```a`b",
                     "  ```", "   ~~~", "    ```", "``` ", "```` \t", "##### Lines to add:",
                     "plain text", "", "\t```"]),
    st.builds(lambda indent, char, n, info: " " * indent + char * n + info,
              st.integers(0, 4), st.sampled_from("`~"), st.integers(3, 6),
              st.sampled_from(["", " ", "py", "`"])),
)


@given(st.lists(fence_line, min_size=1, max_size=10))
@settings(max_examples=400, deadline=None)
def test_plain_fence_reading_agrees_with_markdown_it(doc_lines: list[str]) -> None:
    """Our fence reading (plain-case shortcut, markdown-it for the rest, fed only the
    fence-like lines) gives CommonMark's answer for the whole text."""
    text = normalize_response("\n" + "\n".join(doc_lines) + "\n")
    scanner = _Scanner(text, [])
    m = _STRUCTURE_RE.search(text, 0)
    if m is None or m.group(1) is None:
        return
    opener = scanner._line(m)
    ours = scanner.fence(opener)
    tokens = [t for t in COMMONMARK.parse(text[opener[0]:] + "x\n") if t.map is not None]
    if not tokens or tokens[0].type != "fence" or tokens[0].map[0] != 0:
        assert ours is None
        return
    lines_after = text[opener[0]:].split("\n")
    end = tokens[0].map[1]
    if end >= len(lines_after):  # ran to the end: unclosed
        assert ours is not None and ours.close is None
    else:
        assert ours is not None and ours.close is not None
        assert text[ours.close[0]:ours.close[1]] == lines_after[end - 1]
        assert text[opener[0]:ours.close[1]].count("\n") == end - 1


@st.composite
def sections(draw: st.DrawFn) -> str:
    """Modified-file sections with hunks in the seed's layout (the fast path's case), with
    look-alikes and noise mixed in."""
    fence = st.sampled_from(["```", "```python", "````", "~~~", "```a`b", "  ```", "~~~~"])
    content = st.lists(st.sampled_from(["x = 1", "", "```", "# heading", "### Hunk 3:",
                                        "   ", "~~~"]), max_size=3)
    out: list[str] = []
    for n in range(draw(st.integers(1, 3))):
        out += [f"## File `f{n}.py` modified:", *draw(st.lists(st.just(""), max_size=2))]
        for k in range(draw(st.integers(0, 3))):
            if draw(st.booleans()):  # the seed's layout exactly
                opener = draw(st.sampled_from(["```", "```python", "````md", "~~~"]))
                closer = opener.rstrip("mdpython")
                out += ["### Hunk 1:", "#### Lines to remove:", opener, *draw(content),
                        closer, *draw(st.lists(st.just(""), max_size=1)),
                        "#### Lines to add:", opener, *draw(content), closer]
                continue
            for heading in ("### Hunk 1:", "#### Lines to remove:", "#### Lines to add:"):
                out.append(draw(st.sampled_from([heading, heading, heading, heading.upper(),
                                                 "Prose."])))
                out += draw(st.lists(st.just(""), max_size=1))
                if heading != "### Hunk 1:":
                    opener = draw(fence)
                    closer = draw(st.sampled_from([opener.strip(" ").rstrip("apython`"),
                                                   "```", "````", "~~~"]))
                    out += [opener, *draw(content), closer]
                    out += draw(st.lists(st.just(""), max_size=1))
            out += draw(st.lists(st.sampled_from(["Done.", "## Notes", "```sh", "x"]),
                                 max_size=1 if k % 2 else 0))
    return "\n".join(out) + draw(st.sampled_from(["", "\n"]))


@given(sections())
@settings(max_examples=400, deadline=None)
def test_plain_hunk_fast_path_reads_like_the_state_machine(text: str) -> None:
    def summary() -> list[tuple]:
        return [(f.start, f.end, [(block_fields(b), b.response_line, b.end_line, b.raw)
                                  for b in f.blocks],
                 [(w.response_line, w.message) for w in f.warnings])
                for f in found_by(semantic_diff.find_blocks, text)]

    fast = summary()
    saved = semantic_diff._PLAIN_HUNK
    semantic_diff._PLAIN_HUNK = re.compile(r"(?!)")
    try:
        assert summary() == fast
    finally:
        semantic_diff._PLAIN_HUNK = saved


# ------------------------------------------------------------------ render and properties


def test_render_each_op_and_nested_fences() -> None:
    block = Block("semantic-diff", "docs/a.md", old=["```sh", "x", "```"], new=["y"])
    text = semantic_diff.render(block)
    assert text.startswith("## File `docs/a.md` modified:\n\n### Hunk 1:\n#### Lines to remove:"
                           "\n````markdown\n```sh\n")
    [parsed] = blocks(text)
    assert (parsed.old, parsed.new) == (block.old, block.new)
    assert semantic_diff.render(Block("semantic-diff", "a.py", op="delete")) == (
        "## File `a.py` deleted.\n")
    assert semantic_diff.render(Block("semantic-diff", "a.py", op="rename", move_to="b.py")) == (
        "## File `a.py` moved to `b.py`.\n")
    with pytest.raises(ValueError):
        semantic_diff.render(Block("hunk-patch", "a.py", hunks=[]))


content = st.lists(st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
            max_size=15),
    st.sampled_from(["```", "````py", "~~~", "## File `x` deleted.", "### Hunk 2:", ""]),
), max_size=5)


@st.composite
def semantic_blocks(draw: st.DrawFn) -> Block:
    op = draw(st.sampled_from(["update", "create", "delete", "rename"]))
    block = Block("semantic-diff", draw(path), op=op)
    if op == "update":
        block.old = draw(content.filter(bool))
        block.new = draw(content)
    elif op == "create":
        block.new = draw(content)
    elif op == "rename":
        block.move_to = draw(path)
    return block


@given(st.lists(semantic_blocks(), min_size=1, max_size=4))
@settings(max_examples=150, deadline=None)
def test_render_parse_round_trip(original: list[Block]) -> None:
    text = "".join(semantic_diff.render(b) + "\n" for b in original)
    parsed = blocks(text)
    assert [block_fields(b) for b in parsed] == [block_fields(b) for b in original]


@given(st.text())
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_never_raises(text: str) -> None:
    found_by(semantic_diff.find_blocks, text)
    found_by(semantic_diff.find_blocks, "## File `a.py` modified:\n" + text)
    no_internal_errors(text)


@given(near_valid_text())
@settings(max_examples=300, deadline=None)
def test_near_valid_text_never_raises(text: str) -> None:
    found_by(semantic_diff.find_blocks, text)
    no_internal_errors(text)
