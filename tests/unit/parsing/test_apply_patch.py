"""apply-patch parsing (OpenAI Codex's patch grammar, docs/formats.md "apply-patch")."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lsp_server.model import Block, Hunk
from lsp_server.parsing import apply_patch, parse_response

from .hunk_strategies import (
    block_fields,
    blocks_of,
    found_by,
    hunks,
    near_valid_text,
    no_internal_errors,
    path,
    warnings_of,
)


def blocks(text: str) -> list[Block]:
    return blocks_of(apply_patch.find_blocks, text)


def warnings(text: str) -> list[str]:
    return warnings_of(apply_patch.find_blocks, text)


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


FULL = patch(
    "*** Add File: docs/new.md", "+# New", "+", "+Text.",
    "*** Delete File: old.txt",
    "*** Update File: src/app.py",
    "*** Move to: src/main.py",
    "@@ def f():",
    "-    pass",
    "+    return 1",
    "@@",
    " x = 1",
    "-y = 2",
    "+y = 3",
    "*** End of File",
)


def test_one_block_per_section() -> None:
    created, deleted, updated = blocks(FULL)
    assert (created.format, created.file, created.op, created.new) == (
        "apply-patch", "docs/new.md", "create", ["# New", "", "Text."])
    assert (created.hunks, created.create_text) == (None, None)
    assert (deleted.file, deleted.op) == ("old.txt", "delete")
    assert (updated.file, updated.op, updated.move_to) == ("src/app.py", "update", "src/main.py")
    first, second = updated.hunks
    assert (first.anchor, first.header, first.end_of_file) == ("def f():", "def f():", False)
    assert first.lines == [("-", "    pass"), ("+", "    return 1")]
    assert (second.anchor, second.header, second.end_of_file) == (None, "", True)
    assert (second.old, second.new) == (["x = 1", "y = 2"], ["x = 1", "y = 3"])


def test_lines_and_raw() -> None:
    text = "Here you go:\n\n" + FULL + "\nDone."
    [found] = found_by(apply_patch.find_blocks, text)
    lines = text.split("\n")
    assert (found.start, found.end) == (2, lines.index("*** End Patch") + 1)
    created, deleted, updated = found.blocks
    assert (created.response_line, created.end_line) == (3, 7)
    assert created.raw == "*** Add File: docs/new.md\n+# New\n+\n+Text."
    assert (deleted.response_line, deleted.end_line) == (7, 8)
    assert (updated.response_line, updated.end_line) == (8, lines.index("*** End Patch"))
    assert [h.response_line for h in updated.hunks] == [10, 13]


@pytest.mark.parametrize("begin", ["*** Begin Patch  ", " *** Begin Patch", "\t*** Begin Patch\t",
                                   "  *** Begin Patch "])
def test_marker_lines_may_be_padded(begin: str) -> None:
    text = f"Intro\n{begin}\n  *** Update File: a.py \n@@\n-a\n+b\n\t*** End Patch \n"
    [block] = blocks(text)
    assert (block.file, block.hunks[0].lines) == ("a.py", [("-", "a"), ("+", "b")])
    assert (block.response_line, block.hunks[0].response_line) == (2, 3)
    assert warnings(text) == []


# issue 23: after an update body a space-padded marker was read as a context line, so the
# patch never ended and was dropped as "may be incomplete".
@pytest.mark.parametrize("end", [" *** End Patch", "  *** End Patch\t", "\t*** End Patch"])
@pytest.mark.parametrize("fence", [False, True])
def test_a_padded_end_after_an_update_body_ends_the_patch(end: str, fence: bool) -> None:
    text = f"\t*** Begin Patch\n*** Update File: a.py\t\n@@\n x\n-a\n+b\n{end}\n"
    if fence:
        text = f"```\n{text}```\n"
    [block] = blocks(text)
    assert block.hunks[0].lines == [(" ", "x"), ("-", "a"), ("+", "b")]
    assert warnings(text) == []
    crlf = text.replace("\n", "\r\n")
    assert [b.hunks for b in blocks(crlf)] == [block.hunks]


def test_a_padded_file_marker_after_an_update_body_starts_the_next_section() -> None:
    text = patch("*** Update File: a.py\n@@\n-a\n+b\n *** Update File: b.py\n@@\n-c\n+d")
    assert [(b.file, b.hunks[0].lines) for b in blocks(text)] == [
        ("a.py", [("-", "a"), ("+", "b")]), ("b.py", [("-", "c"), ("+", "d")])]


def test_padded_and_unpadded_patches_are_read_in_response_order() -> None:
    text = patch("*** Delete File: one") + "  " + patch("*** Delete File: two") + patch(
        "*** Delete File: three")
    assert [b.file for b in blocks(text)] == ["one", "two", "three"]


def test_an_update_without_hunks_is_a_block_without_hunks() -> None:
    # planning fails it ("Empty update"): the user sees the block, not silence
    [block] = blocks(patch("*** Update File: app.py"))
    assert (block.file, block.op, block.hunks, block.move_to) == ("app.py", "update", [], None)
    assert warnings(patch("*** Update File: app.py")) == []


def test_a_file_marker_outside_every_patch_is_a_warning_naming_it() -> None:
    text = ("Here you go:\n*** Update File: app.py\n@@\n-a\n+b\n\n"
            + patch("*** Update File: x.py", "@@", "-a", "+b") + "*** Add File: n.txt\n")
    assert [b.file for b in blocks(text)] == ["x.py"]
    found = [w for f in found_by(apply_patch.find_blocks, text) for w in f.warnings]
    assert [(w.response_line, w.message) for w in found] == [
        (1, "apply-patch: '*** Update File: app.py' is not inside a '*** Begin Patch' … "
            "'*** End Patch' patch; nothing is applied from it"),
        (12, "apply-patch: '*** Add File: n.txt' is not inside a '*** Begin Patch' … "
             "'*** End Patch' patch; nothing is applied from it"),
    ]


def test_a_file_marker_quoted_inside_another_block_is_content() -> None:
    text = "notes.md\n««« EDIT\nold\n═══════ REPL\n*** Update File: a.py\n»»» EDIT END\n"
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["notes.md"] and result.warnings == []


def test_space_led_lines_in_an_update_body_are_context_unless_they_are_markers() -> None:
    # docs/formats.md: marker lines may be padded, the file markers too (issue 23)
    [block, deleted] = blocks(patch("*** Update File: notes.md", "@@", "-old", "+new",
                                    " *** Delete File: x"))
    assert block.hunks[0].lines == [("-", "old"), ("+", "new")]
    assert (deleted.file, deleted.op) == ("x", "delete")
    [block] = blocks(patch("*** Update File: notes.md", "@@", " *** not a marker", " ***",
                           "-old", "+new"))
    assert block.hunks[0].lines == [(" ", "*** not a marker"), (" ", "***"), ("-", "old"),
                                    ("+", "new")]


def test_first_chunk_may_omit_its_header() -> None:
    [block] = blocks(patch("*** Update File: a.py", " import foo", "+bar"))
    [hunk] = block.hunks
    assert (hunk.anchor, hunk.lines) == (None, [(" ", "import foo"), ("+", "bar")])


def test_empty_lines_inside_a_chunk_are_context_and_trailing_ones_are_dropped() -> None:
    [block, created] = blocks(patch("*** Update File: a.py", "@@", " def f():", "", "-    pass",
                                    "+    return 1", "", "", "@@ g", "-a", "+b", "",
                                    "*** Add File: n.txt", "+x", "", "+y", "", ""))
    assert [h.lines for h in block.hunks] == [
        [(" ", "def f():"), (" ", ""), ("-", "    pass"), ("+", "    return 1")],
        [("-", "a"), ("+", "b")],
    ]
    assert created.new == ["x", "", "y"]


def test_unified_style_chunk_header() -> None:
    [block] = blocks(patch("*** Update File: a.py", "@@ -3,2 +3,2 @@ class A:", "-a", "+b"))
    assert block.hunks[0].anchor == "class A:"


def test_move_only_is_a_rename_and_empty_add_is_an_empty_file() -> None:
    renamed, created = blocks(patch("*** Update File: a.py", "*** Move to: b/a.py",
                                    "*** Add File: empty.txt"))
    assert (renamed.op, renamed.file, renamed.move_to, renamed.hunks) == (
        "rename", "a.py", "b/a.py", None)
    assert (created.op, created.new) == ("create", [])


@pytest.mark.parametrize(("section", "message"), [
    (["*** Update File: a.py", "@@ class A", "@@ def f", "-a", "+b"],
     "this hunk has no lines (stacked '@@' headers are not supported)"),
    (["*** Update File: a.py", "@@", "-a", "unprefixed", "+b"], "not a patch line: 'unprefixed'"),
    (["*** Update File: a.py", "@@", "-a", "+b", "*** Move to: c.py"],
     "'*** Move to' must follow its '*** Update File' line"),
    (["*** Update File: a.py", "*** End of File"], "'*** End of File' does not follow a hunk"),
    (["*** Add File: a.py", "+x", " y"], "not a patch line: ' y'"),
    (["*** Add File: a.py", "@@", "+x"], "not a patch line: '@@'"),
    (["*** Update File: ", "@@", "-a", "+b"], "the marker names no file"),
])
def test_malformed_sections_are_skipped_and_the_others_kept(section: list[str],
                                                            message: str) -> None:
    text = patch("*** Delete File: before.txt", *section, "*** Delete File: after.txt")
    assert [b.file for b in blocks(text)] == ["before.txt", "after.txt"]
    [warning] = warnings(text)
    assert message in warning and warning.endswith("section skipped")


def test_truncated_stream_applies_only_complete_sections() -> None:
    text = "*** Begin Patch\n*** Update File: a.py\n@@\n-a\n+b\n*** Update File: b.py\n@@\n-c\n"
    assert [b.file for b in blocks(text)] == ["a.py"]
    assert warnings(text) == ["apply-patch section 'b.py' may be incomplete (the response ends "
                              "before '*** End Patch'); skipped"]
    assert blocks("*** Begin Patch\n*** Add File: a.txt\n+par") == []
    assert warnings("*** Begin Patch\n") == ["apply-patch has no '*** End Patch' (truncated?)"]


def test_missing_end_patch_before_prose_or_a_new_patch() -> None:
    text = "*** Begin Patch\n*** Delete File: a.txt\n```\nThen:\n" + patch("*** Delete File: b")
    found = found_by(apply_patch.find_blocks, text)
    assert [[b.file for b in f.blocks] for f in found] == [["a.txt"], ["b"]]
    assert [(f.start, f.end) for f in found] == [(0, 2), (4, 7)]
    assert [w.message for w in found[0].warnings] == [
        "apply-patch has no '*** End Patch'; the patch ends before this line"]
    text = "*** Begin Patch\n*** Delete File: a.txt\n" + patch("*** Delete File: b")
    assert [b.file for b in blocks(text)] == ["a.txt", "b"]
    assert warnings(text) == ["apply-patch has no '*** End Patch' before this '*** Begin Patch'"]


def test_stray_lines_outside_sections_and_empty_patch() -> None:
    text = patch("I will now patch:", "*** Delete File: a.txt")
    assert [b.file for b in blocks(text)] == ["a.txt"]
    assert warnings(text) == ["apply-patch line is not part of any file section: "
                              "'I will now patch:'"]
    assert warnings(patch()) == ["apply-patch has no file sections"]


def test_begin_patch_must_stand_alone_at_the_start_of_its_line() -> None:
    assert found_by(apply_patch.find_blocks, "Write *** Begin Patch first.\n") == []
    assert found_by(apply_patch.find_blocks, "*** Begin Patch now\n*** End Patch\n") == []


def test_mixed_with_other_formats_in_parse_response() -> None:
    text = "src/a.py\n««« EDIT\nx = 1\n═══════ REPL\nx = 2\n»»» EDIT END\n\n" + FULL
    result = parse_response(text)
    assert [(b.format, b.file) for b in result.blocks] == [
        ("edit-v3", "src/a.py"), ("apply-patch", "docs/new.md"), ("apply-patch", "old.txt"),
        ("apply-patch", "src/app.py")]


# ------------------------------------------------------------------ render and properties


def test_render() -> None:
    assert apply_patch.render(Block("apply-patch", "a.py", op="delete")) == (
        "*** Begin Patch\n*** Delete File: a.py\n*** End Patch\n")
    block = Block("apply-patch", "a.py", move_to="b.py",
                  hunks=[Hunk("f", [("-", "a"), ("+", "b")], anchor="f", end_of_file=True)])
    assert apply_patch.render(block) == (
        "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@ f\n-a\n+b\n"
        "*** End of File\n*** End Patch\n")
    line_format = Block("edit-v3", "a.py", anchor=["def f():"], old=["  pass"], new=["  ok"])
    [parsed] = blocks(apply_patch.render(line_format))
    assert (parsed.hunks[0].old, parsed.hunks[0].new) == (["def f():", "  pass"],
                                                          ["def f():", "  ok"])
    with pytest.raises(ValueError):
        apply_patch.render(Block("search-replace", "a.py", op="append"))


@st.composite
def apply_patch_blocks(draw: st.DrawFn) -> Block:
    op = draw(st.sampled_from(["update", "create", "delete", "rename"]))
    block = Block("apply-patch", draw(path), op=op)
    if op == "update":
        block.hunks = draw(hunks())
        for hunk in block.hunks:
            hunk.end_of_file = draw(st.booleans())
        block.move_to = draw(st.one_of(st.none(), path))
    elif op == "create":
        block.new = draw(st.lists(st.text(max_size=10).filter(lambda t: "\n" not in t
                                                              and "\r" not in t), max_size=4))
        while block.new and not block.new[-1]:
            block.new.pop()  # an empty last line of an Add File is a separator, by design
    elif op == "rename":
        block.move_to = draw(path)
    return block


@given(st.lists(apply_patch_blocks(), min_size=1, max_size=4))
@settings(max_examples=150, deadline=None)
def test_render_parse_round_trip(original: list[Block]) -> None:
    # A body line whose text is a marker (` *** Update File:` as a context line) cannot be
    # written in the format: padded marker lines are markers, as in Codex (FORMATS.md).
    assume(not any(text.strip().startswith("*** ") for b in original for h in b.hunks or []
                   for _, text in h.lines))
    text = "".join(apply_patch.render(b) for b in original)
    parsed = blocks(text)
    assert [block_fields(b) for b in parsed] == [block_fields(b) for b in original]
    assert warnings(text) == []


@given(st.text())
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_never_raises(text: str) -> None:
    found_by(apply_patch.find_blocks, text)
    found_by(apply_patch.find_blocks, "*** Begin Patch\n" + text)
    no_internal_errors(text)


@given(near_valid_text())
@settings(max_examples=300, deadline=None)
def test_near_valid_text_never_raises(text: str) -> None:
    found_by(apply_patch.find_blocks, text)
    no_internal_errors("*** Begin Patch\n" + text)


patch_line = st.one_of(
    st.sampled_from(["*** Add File: a.txt", "*** Update File: b.py", "*** Delete File: c",
                     "*** Move to: d.py", "*** Move to:  ", "*** End of File", "@@", "@@ def f():",
                     "@@ -1 +1 @@", "", " ", "+", "-", "prose", " *** End Patch"]),
    st.builds(lambda kind, text: kind + text, st.sampled_from(" -+"),
              st.text(alphabet="ab *@", max_size=5)),
)


short = st.text(alphabet="ab *@", max_size=4)
tidy_chunk = st.builds(
    lambda header, body: [header, *body],
    st.sampled_from(["@@", "@@ def f():", "@@ -1 +1 @@"]),
    st.lists(st.builds(lambda kind, text: kind + text, st.sampled_from(" -+"), short),
             min_size=1, max_size=3),
)


@st.composite
def patch_bodies(draw: st.DrawFn) -> list[str]:
    """Section sequences, mostly tidy (the fast path's case), with noise lines mixed in."""
    out: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["add", "update", "delete"]))
        if kind == "add":
            out += ["*** Add File: a.txt", *draw(st.lists(short.map("+".__add__), max_size=3))]
        elif kind == "update":
            out += ["*** Update File: b.py", *draw(st.lists(st.just("*** Move to: c.py"),
                                                            max_size=1))]
            out += [line for chunk in draw(st.lists(tidy_chunk, max_size=3)) for line in chunk]
            out += draw(st.lists(st.just("*** End of File"), max_size=1))
        else:
            out.append("*** Delete File: c")
        out += draw(st.lists(patch_line, max_size=1 if draw(st.booleans()) else 0))
    return out


@given(patch_bodies(), st.booleans())
@settings(max_examples=400, deadline=None)
def test_tidy_body_fast_path_reads_like_the_state_machine(body: list[str], ended: bool) -> None:
    text = "\n".join(["*** Begin Patch", *body] + (["*** End Patch"] if ended else [])) + "\n"

    def summary() -> list[tuple]:
        return [(f.start, f.end, [(block_fields(b), b.response_line, b.end_line,
                                   [h.response_line for h in b.hunks or []]) for b in f.blocks],
                 [(w.response_line, w.message) for w in f.warnings])
                for f in found_by(apply_patch.find_blocks, text)]

    fast = summary()
    saved = apply_patch._PLAIN_ADD, apply_patch._PLAIN_UPDATE
    never = re.compile(r"(?!)")
    apply_patch._PLAIN_ADD = apply_patch._PLAIN_UPDATE = never
    try:
        assert summary() == fast
    finally:
        apply_patch._PLAIN_ADD, apply_patch._PLAIN_UPDATE = saved


# ------------------------------------------------------------------ hostile input (issue 13)


@pytest.mark.parametrize("hunk", ["@@\n+x\n", "@@\n+x\n\n", "@@ f\n x\n+y\n"])
def test_a_section_past_the_block_line_limit_stops_being_read(hunk: str) -> None:
    # tidy bodies (read in C) and untidy ones (line by line) alike
    text = ("*** Begin Patch\n*** Update File: a.py\n" + hunk * 8
            + "*** Add File: b.txt\n+x\n*** End Patch\n")
    result = parse_response(text, max_block_lines=6)
    assert [b.file for b in result.blocks] == ["b.txt"]
    (warning,) = result.warnings
    assert "section 'a.py': more than 6 lines (maxBlockLines)" in warning.message
    assert [b.file for b in parse_response(text).blocks] == ["a.py", "b.txt"]


def test_an_add_file_past_the_block_line_limit_is_skipped() -> None:
    text = patch("*** Add File: a.txt", *["+x"] * 5, "*** Delete File: b.txt")
    result = parse_response(text, max_block_lines=4)
    assert [b.file for b in result.blocks] == ["b.txt"]
    assert "more than 4 lines" in result.warnings[0].message


def test_a_patch_of_a_million_tiny_hunks_keeps_none_of_them() -> None:
    # ~2.8 million such hunks (16 MiB) peaked at 1.7 GB: the tidy-body regex's stack, then a
    # Hunk per hunk. Past the default limit (200,000 lines) the section is only skipped over.
    text = "*** Begin Patch\n*** Update File: a.py\n" + "@@\n+x\n" * 120_000 + "*** End Patch\n"
    result = parse_response(text)
    assert result.blocks == []
    assert "more than 200000 lines (maxBlockLines)" in result.warnings[0].message
