"""The outline, hovers and path links of a response document, from real parses and plans
(lsp_server/lsp/response_views.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from lsprotocol import types
from lsprotocol.converters import get_converter

from lsp_server.block_spans import BlockSpans
from lsp_server.lsp.live import views as response_views
from lsp_server.lsp.live.block_diff import changes_in
from lsp_server.lsp.live.code_lens import status_title
from lsp_server.lsp.live.views import ResponseView, escape_markdown, fenced
from lsp_server.lsp.protocol.positions import TextLines
from lsp_server.model import FileSnapshot, ParseWarning
from lsp_server.parsing import parse_response
from lsp_server.planning import plan_edits

from ..plans import UTF8, UTF16

ROOT = Path("/ws")
CONVERTER = get_converter()
TWENTY = "".join(f"line {i}\n" for i in range(20))
FILES = {"src/app.py": TWENTY, "src/util.py": "def f():\n    return 1\n"}


def edit_v3(path: str, old: list[str], new: list[str]) -> str:
    return (f"{path}\n««« EDIT\n" + "".join(f"{line}\n" for line in old) + "═══════ REPL\n"
            + "".join(f"{line}\n" for line in new) + "»»» EDIT END\n")


# Block 1 validates, block 2 fails (its old line is not in the file), block 3 is refused.
RESPONSE = ("Here are the changes.\n\n"
            + edit_v3("src/app.py", ["line 15"], ["fifteen"])
            + "\nThen the helper:\n\n"
            + edit_v3("src/util.py", ["    return 2"], ["    return 3"])
            + "\n" + edit_v3("../outside.py", ["a"], ["b"]))


def document_symbols(view: ResponseView) -> list[types.DocumentSymbol]:
    """The outline, read back as LSP objects (the JSON must be a valid answer)."""
    return CONVERTER.structure(response_views.document_symbols(view), list[types.DocumentSymbol])


def document_links(view: ResponseView) -> list[types.DocumentLink]:
    return CONVERTER.structure(response_views.document_links(view), list[types.DocumentLink])


def hover(view: ResponseView, position: types.Position) -> types.Hover | None:
    found = response_views.hover(view, position)
    return None if found is None else CONVERTER.structure(found, types.Hover)


def view_of(response: str, encoding: str = UTF16, files: dict[str, str] | None = None,
            planned: bool = True) -> ResponseView:
    texts = {ROOT / name: text for name, text in (files or FILES).items()}
    parsed = parse_response(response)
    if not planned:
        return ResponseView(TextLines(response), parsed, [], lambda p: p.as_uri(), encoding)
    spans = BlockSpans()
    plan = plan_edits(parsed, lambda p: FileSnapshot(texts.get(p)), [ROOT],
                      on_change=spans.record)
    return ResponseView(TextLines(response), parsed, plan.blocks, lambda p: p.as_uri(),
                        encoding, changes_in(plan, spans))


def test_the_outline_has_one_symbol_per_block_named_by_file_with_its_status() -> None:
    view = view_of(RESPONSE)
    symbols = document_symbols(view)
    assert [s.name for s in symbols] == ["src/app.py", "src/util.py", "../outside.py"]
    # The status as the block's lens shows it.
    assert [s.detail for s in symbols] == [status_title(r) for r in view.block_results]
    assert symbols[0].detail == "✓ src/app.py:16"
    assert [s.detail[0] for s in symbols] == ["✓", "✗", "✗"]
    first = view.parsed.blocks[0]
    assert symbols[0].range.start == types.Position(line=first.response_line, character=0)
    assert symbols[0].range.end == types.Position(line=first.end_line - 1,
                                                  character=len("»»» EDIT END"))
    assert symbols[0].selection_range.start.line == first.response_line
    assert symbols[0].selection_range.end.character == len("src/app.py")
    assert all(s.kind == types.SymbolKind.File for s in symbols)


def test_the_block_being_written_is_in_the_outline_as_writing() -> None:
    response = RESPONSE + "\nsrc/app.py\n««« EDIT\nline 3\n"
    view = view_of(response)
    view.parsed.warnings[:] = [ParseWarning(len(TextLines(response)) - 4, "not closed",
                                            pending=True, format="edit-v3", file="src/app.py")]
    symbols = document_symbols(view)
    assert len(symbols) == 4
    assert (symbols[3].name, symbols[3].detail, symbols[3].kind) == (
        "src/app.py", "⋯ writing", types.SymbolKind.Event)
    assert symbols[3].range.end.line == len(TextLines(response)) - 1


def test_hover_on_a_validated_block_shows_its_own_diff_with_file_line_numbers() -> None:
    view = view_of(RESPONSE)
    block = view.parsed.blocks[0]
    found = hover(view, types.Position(line=block.response_line + 2, character=0))
    assert found is not None and found.contents.kind == types.MarkupKind.Markdown
    text = found.contents.value
    assert text.startswith("**Block 1** · edit-v3 · ✓ src/app.py:16")
    assert "```diff\n--- a/src/app.py\n+++ b/src/app.py\n@@ -13,7 +13,7 @@\n" in text
    assert "-line 15\n+fifteen\n" in text
    assert found.range.start.line == block.response_line
    assert found.range.end.line == block.end_line - 1


def test_hover_on_a_failed_block_gives_the_reason_and_the_did_you_mean() -> None:
    view = view_of(RESPONSE)
    block, result = view.parsed.blocks[1], view.block_results[1]
    found = hover(view, types.Position(line=block.response_line, character=3))
    text = found.contents.value
    assert result.hint and "did you mean" in result.hint
    assert escape_markdown(result.reason) in text
    assert "```text\n" + result.hint + "\n```" in text
    assert "```diff" not in text


def test_hover_outside_every_block_is_nothing_and_a_pending_block_is_still_being_written(
) -> None:
    view = view_of(RESPONSE)
    assert hover(view, types.Position(line=0, character=0)) is None
    between = view.parsed.blocks[0].end_line  # the blank line after block 1
    assert hover(view, types.Position(line=between, character=0)) is None
    response = RESPONSE + "\nsrc/app.py\n««« EDIT\n"
    view = view_of(response)
    last = len(TextLines(response)) - 1
    view.parsed.warnings[:] = [ParseWarning(last - 2, "not closed", pending=True,
                                            file="src/app.py")]
    found = hover(view, types.Position(line=last, character=0))
    assert "⋯ writing" in found.contents.value and "Still being written" in found.contents.value
    assert "**Block 4**" in found.contents.value


def test_a_skipped_block_hover_says_why() -> None:
    response = (edit_v3("src/app.py", ["nowhere"], ["x"])
                + edit_v3("src/app.py", ["line 3"], ["three"]))
    view = view_of(response)
    assert [b.status for b in view.block_results] == ["failed", "skipped"]
    text = hover(view, types.Position(line=view.parsed.blocks[1].response_line,
                                      character=0)).contents.value
    assert "⊘ skipped" in text and escape_markdown(view.block_results[1].reason) in text


def test_links_open_the_target_at_the_edits_line_and_refused_paths_have_none() -> None:
    view = view_of(RESPONSE)
    links = document_links(view)
    app, util = (ROOT / "src/app.py").as_uri(), (ROOT / "src/util.py").as_uri()
    failed_line = view.block_results[1].line + 1
    assert [(link.target, link.tooltip) for link in links] == [
        (f"{app}#L16", "Open src/app.py at line 16"),
        (f"{util}#L{failed_line}", f"Open src/util.py at line {failed_line}"),
    ]
    first = view.parsed.blocks[0].response_line
    assert links[0].range == types.Range(start=types.Position(line=first, character=0),
                                         end=types.Position(line=first, character=10))


def test_a_link_covers_the_path_as_written_in_the_clients_units() -> None:
    response = "Edit `src/é😀.py` now:\n\n```diff\n--- a/src/é😀.py\n+++ b/src/é😀.py\n" \
               "@@ -1,1 +1,1 @@\n-x\n+y\n```\n"
    files = {"src/é😀.py": "x\n"}
    for encoding, length in ((UTF16, 10), (UTF8, 13)):  # é: 1 / 2 units, 😀: 2 / 4
        view = view_of(response, encoding, files)
        assert [b.status for b in view.block_results] == ["validated"]
        (link,) = document_links(view)
        written = view.parsed.blocks[0].response_line
        line = response.split("\n")[written]
        column = line.index("src/")
        units = len(line[:column].encode("utf-16-le")) // 2 if encoding == UTF16 else len(
            line[:column].encode())
        assert link.range.start == types.Position(line=written, character=units)
        assert link.range.end.character - units == length
        assert link.target.endswith("#L1")


def test_a_path_inside_a_longer_word_is_not_the_link() -> None:
    response = "b.py\n```python\n<<<<<<< SEARCH\nab.py = 1\n=======\nab.py = 2\n" \
               ">>>>>>> REPLACE\n```\n"
    view = view_of(response, files={"b.py": "ab.py = 1\n"})
    (link,) = document_links(view)
    assert link.range.start == types.Position(line=0, character=0)


def test_before_the_first_validation_blocks_are_listed_but_not_linked() -> None:
    view = view_of(RESPONSE, planned=False)
    assert [s.detail for s in document_symbols(view)] == ["not checked yet"] * 3
    assert document_links(view) == []
    assert "not checked yet" in hover(view, types.Position(
        line=view.parsed.blocks[0].response_line, character=0)).contents.value


def test_fences_outgrow_the_backticks_inside_and_markdown_is_escaped() -> None:
    assert fenced("a\n```\nb", "diff") == "````diff\na\n```\nb\n````"
    assert fenced("x", "text") == "```text\nx\n```"
    assert escape_markdown("a_b *c* `d` [e]") == r"a\_b \*c\* \`d\` \[e\]"


def test_a_path_written_above_the_blocks_lines_is_the_link() -> None:
    # A semantic diff names its file in a heading above its hunks (the block's lines).
    response = ("Intro.\n\n## File `src/util.py` modified:\n\n### Hunk 1:\n"
                "#### Lines to remove:\n```python\n    return 1\n```\n"
                "#### Lines to add:\n```python\n    return 2\n```\n")
    view = view_of(response)
    block = view.parsed.blocks[0]
    assert (block.format, view.block_results[0].status) == ("semantic-diff", "validated")
    assert block.response_line > 2
    (link,) = document_links(view)
    assert link.range == types.Range(start=types.Position(line=2, character=9),
                                     end=types.Position(line=2, character=20))



async def test_an_answer_is_the_same_json_built_here_or_in_a_worker_thread() -> None:
    view = view_of(RESPONSE)
    here = await response_views.answer(view, response_views.symbols_json, default="[]")
    there = await response_views.answer(view, response_views.symbols_json, default="[]",
                                        inline=False)
    assert here.text == there.text == json.dumps(response_views.document_symbols(view))
    assert (await response_views.answer(None, response_views.hover_json, default="null")
            ).text == "null"


def stream_views(chunks: list[str], kept: response_views.KeptViews | None):
    """The outline and links JSON after each chunk of a response streamed into a parse and
    plan kept between chunks, as a response document keeps them."""
    from lsp_server.parsing.incremental import IncrementalParse
    from lsp_server.streaming_plan import StreamingPlan

    texts = {ROOT / name: text for name, text in FILES.items()}
    parse, text, out = IncrementalParse(), "", []
    plan = StreamingPlan(lambda p: FileSnapshot(texts.get(p)), [ROOT])
    for chunk in chunks:
        changed_from, text = len(text), text + chunk
        parsed = parse.update(text, changed_from)
        results = plan.update(parsed.blocks)
        view = ResponseView(TextLines(text), parsed, results, lambda p: p.as_uri(), UTF16,
                            kept=kept)
        out.append((json.loads(response_views.symbols_json(view)),
                    json.loads(response_views.links_json(view))))
    return out


def test_kept_outline_and_links_equal_those_built_whole_after_every_chunk() -> None:
    response = RESPONSE + "".join(edit_v3("src/app.py", [f"line {i}"], [f"L{i}"])
                                  for i in range(20, 26))
    chunks = [response[i:i + 17] for i in range(0, len(response), 17)]
    kept = response_views.KeptViews()
    built = []
    original = response_views.block_symbol

    def counting(view: ResponseView, block) -> dict:
        built.append(block.index)
        return original(view, block)

    response_views.block_symbol = counting
    try:
        with_kept = stream_views(chunks, kept)
        kept_builds = len(built)
        whole = stream_views(chunks, None)
    finally:
        response_views.block_symbol = original
    assert with_kept == whole
    blocks = len(parse_response(response).blocks)
    assert blocks == 9 and with_kept[-1][0][8]["name"] == "src/app.py"
    # A block's entry is built again while it is the last one or its result is new, not on
    # every chunk from then on as the whole outline is.
    assert kept_builds < (len(built) - kept_builds) / 3


def test_kept_views_start_again_for_another_encoding() -> None:
    kept = response_views.KeptViews()
    text = ("```diff\n--- a/src/é😀.py\n+++ b/src/é😀.py\n@@ -1,1 +1,1 @@\n-x\n+y\n```\n\n"
            + edit_v3("src/app.py", ["line 5"], ["five"]))  # the first block is not the last
    files = {"src/é😀.py": "x\n", "src/app.py": TWENTY}
    utf16 = view_of(text, UTF16, files)
    utf8 = replace(utf16, encoding=UTF8)  # the same blocks and results
    first = json.loads(response_views.links_json(replace(utf16, kept=kept)))
    again = json.loads(response_views.links_json(replace(utf8, kept=kept)))
    assert first == response_views.document_links(utf16)
    assert again == response_views.document_links(utf8) != first
    assert len(again) == 2 and again[0]["range"] != first[0]["range"]
