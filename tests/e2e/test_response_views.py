"""End to end: a response streamed into an ``llm-response`` document, chunk by chunk, through
the real server over stdio (pytest-lsp, the ``client`` fixture of conftest.py); after every
chunk its outline, hovers, path links, lenses and diagnostics are those of a full parse and
plan of the text so far."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_server import parse_response, plan_edits
from lsp_server.model import ParseResult, PlanResult
from lsp_server.workspace import read_disk_file

EMOJI = "\N{GRINNING FACE}"  # two UTF-16 units: columns after it differ from code points

APP = "".join(f"line {i}\n" for i in range(30))
UTIL = "def f():\n    return 1\n"
# Block 1 validates, block 2 fails (util.py returns 1), block 3 validates (a unified diff on
# the file block 1 changes too), block 4's path is refused (outside the workspace).
RESPONSE = (
    f"Here is the plan {EMOJI}: two changes to app.py, one to util.py.\n\n"
    "src/app.py\n««« EDIT\nline 5\n═══════ REPL\nfive\n»»» EDIT END\n\n"
    f"Then the helper {EMOJI}:\n\n"
    "src/util.py\n```python\n<<<<<<< SEARCH\n    return 2\n=======\n    return 3\n"
    ">>>>>>> REPLACE\n```\n\n"
    "And further down:\n\n```diff\n--- a/src/app.py\n+++ b/src/app.py\n@@ -20,3 +20,3 @@\n"
    " line 19\n-line 20\n+twenty\n line 21\n```\n\n"
    "../outside.py\n««« EDIT\na\n═══════ REPL\nb\n»»» EDIT END\n\nDone.\n"
)
CHUNK = 23  # characters: boundaries fall inside markers, paths and the emoji's line


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text(APP)
    (ws / "src" / "util.py").write_text(UTIL)
    return ws


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def end_of(text: str) -> types.Position:
    last = text.rsplit("\n", 1)[-1]
    return types.Position(line=text.count("\n"), character=utf16_units(last))


class ResponseDocument:
    """The llm-response document the test streams into."""

    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.client = client
        self.root = root
        self.uri = (root / "answer.llm.md").as_uri()
        self.text = ""
        self.version = 1

    def open(self) -> None:
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=self.uri, language_id="llm-response",
                                                 version=1, text="")))

    def append(self, piece: str) -> None:
        end = end_of(self.text)
        self.version += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri,
                                                                version=self.version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=end, end=end), text=piece)]))
        self.text += piece

    def insert_at_start(self, text: str) -> None:
        """The user types above the stream: ``text`` at the very start."""
        start = types.Position(line=0, character=0)
        self.version += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri,
                                                                version=self.version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=start, end=start), text=text)]))
        self.text = text + self.text

    def identifier(self) -> types.TextDocumentIdentifier:
        return types.TextDocumentIdentifier(uri=self.uri)

    async def symbols(self) -> list[types.DocumentSymbol]:
        return list(await self.client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=self.identifier())) or [])

    async def links(self) -> list[types.DocumentLink]:
        return list(await self.client.text_document_document_link_async(
            types.DocumentLinkParams(text_document=self.identifier())) or [])

    async def hover(self, line: int) -> str | None:
        found = await self.client.text_document_hover_async(types.HoverParams(
            text_document=self.identifier(), position=types.Position(line=line, character=0)))
        return None if found is None else found.contents.value

    async def lens_titles(self) -> dict[int, str]:
        """The status lens title at each line (the lens applying one block)."""
        lenses = await self.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=self.identifier()))
        lenses = [lens if lens.command is not None
                  else await self.client.code_lens_resolve_async(lens) for lens in lenses or []]
        return {lens.range.start.line: lens.command.title for lens in lenses or []
                if lens.command is not None and lens.command.command == "llmEdits.apply"
                and "options" in lens.command.arguments[0]}

    def diagnostics(self) -> list[types.Diagnostic]:
        return list(self.client.diagnostics.get(self.uri, []))


async def start(client: LanguageClient, root: Path) -> ResponseDocument:
    await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(
            general=types.GeneralClientCapabilities(position_encodings=["utf-16"]),
            text_document=types.TextDocumentClientCapabilities(
                document_symbol=types.DocumentSymbolClientCapabilities(
                    hierarchical_document_symbol_support=True),
                document_link=types.DocumentLinkClientCapabilities(tooltip_support=True),
                hover=types.HoverClientCapabilities(
                    content_format=[types.MarkupKind.Markdown]))),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")]))
    document = ResponseDocument(client, root)
    document.open()
    return document


def full_plan(text: str, root: Path) -> tuple[ParseResult, PlanResult]:
    """What a full parse and plan of ``text`` says, in this process (the files on disk):
    every block the parse closed is validated and shown (only applying while streaming waits
    for a block to be complete)."""
    parsed = parse_response(text)
    return parsed, plan_edits(parsed, read_disk_file, [root])


async def check_views(document: ResponseDocument) -> None:
    """The document's views against a full parse and plan of its text so far."""
    parsed, plan = full_plan(document.text, document.root)
    symbols = await document.symbols()
    titles = await document.lens_titles()
    pending = [w for w in parsed.warnings if w.pending]
    assert [s.name for s in symbols] == (
        [b.file for b in parsed.blocks] + [w.file or "(path not written yet)" for w in pending])
    complete = len(plan.blocks)
    for block, result, symbol in zip(parsed.blocks[:complete], plan.blocks, symbols[:complete],
                                    strict=True):
        assert symbol.selection_range.start.line == block.response_line
        assert symbol.range.end.line == block.end_line - 1
        assert symbol.detail == titles[block.response_line]  # the status as its lens says
        assert symbol.detail[0] == {"validated": "✓", "failed": "✗"}[result.status]
    for warning, symbol in zip(pending, symbols[len(parsed.blocks):], strict=True):
        assert symbol.detail == "⋯ writing"
        assert symbol.range.start.line == warning.response_line
    await check_hovers(document, parsed, plan)
    await check_links(document, parsed, plan)
    check_diagnostics(document, parsed, plan)


def check_diagnostics(document: ResponseDocument, parsed: ParseResult, plan: PlanResult) -> None:
    """On the response document: an error at each failed block's first line, a warning at
    each malformed block, nothing for the block being written; on a failed block's file: an
    error at its estimated line."""
    expected = sorted([(b.response_line, "failed") for b in plan.blocks if b.status == "failed"]
                      + [(w.response_line, "malformed-block") for w in parsed.warnings
                         if not w.pending])
    shown = sorted((d.range.start.line, d.code) for d in document.diagnostics())
    assert shown == expected
    for result in plan.blocks:
        if result.status == "failed" and result.path is not None:
            on_file = document.client.diagnostics.get(result.path.as_uri(), [])
            assert (result.line, "failed") in {(d.range.start.line, d.code) for d in on_file}


async def check_hovers(document: ResponseDocument, parsed: ParseResult,
                       plan: PlanResult) -> None:
    for block, result in zip(parsed.blocks, plan.blocks, strict=False):
        text = await document.hover(block.response_line)
        assert text is not None and text.startswith(f"**Block {block.index + 1}** · ")
        if result.status == "validated":
            assert "```diff\n--- a/src/app.py\n+++ b/src/app.py\n@@ " in text
        else:
            assert "```diff" not in text
    for block in parsed.blocks[len(plan.blocks):]:
        assert "Still being written" in (await document.hover(block.response_line) or "")
    if any(w.pending for w in parsed.warnings):
        last = document.text.count("\n")
        text = await document.hover(last)
        assert text is not None and "Still being written" in text


async def check_links(document: ResponseDocument, parsed: ParseResult,
                      plan: PlanResult) -> None:
    links = await document.links()
    linked = [(b, r) for b, r in zip(parsed.blocks, plan.blocks, strict=False)
              if r.path is not None]
    assert len(links) == len(linked)
    lines = document.text.split("\n")
    for link, (block, result) in zip(links, linked, strict=True):
        assert link.target == f"{result.path.as_uri()}#L{result.line + 1}"
        units = lines[link.range.start.line].encode("utf-16-le")
        written = units[2 * link.range.start.character:2 * link.range.end.character]
        assert written.decode("utf-16-le") == block.file
        assert block.response_line <= link.range.start.line < block.end_line


async def test_a_streamed_response_shows_each_blocks_state_after_every_chunk(
    client: LanguageClient, root: Path
) -> None:
    document = await start(client, root)
    for at in range(0, len(RESPONSE), CHUNK):
        document.append(RESPONSE[at:at + CHUNK])
        await check_views(document)
    symbols = await document.symbols()
    assert (symbols[0].name, symbols[0].detail) == ("src/app.py", "✓ src/app.py:6")
    assert symbols[1].detail.startswith("✗ ") and symbols[2].detail == "✓ src/app.py:20"
    assert symbols[3].detail.startswith("✗ Path refused")
    hover = await document.hover(symbols[0].selection_range.start.line + 1)
    assert "```diff\n--- a/src/app.py\n+++ b/src/app.py\n@@ -3,7 +3,7 @@\n" in hover
    assert "-line 5\n+five\n" in hover and "twenty" not in hover  # its own change only
    _, plan = full_plan(document.text, root)
    estimated = plan.blocks[1].line + 1
    links = await document.links()
    assert [(link.target, link.tooltip) for link in links] == [
        ((root / "src/app.py").as_uri() + "#L6", "Open src/app.py at line 6"),
        ((root / "src/util.py").as_uri() + f"#L{estimated}",
         f"Open src/util.py at line {estimated}"),
        ((root / "src/app.py").as_uri() + "#L20", "Open src/app.py at line 20")]


async def test_a_block_being_written_is_listed_hovered_and_not_linked(
    client: LanguageClient, root: Path
) -> None:
    document = await start(client, root)
    document.append("Intro.\n\nsrc/app.py\n««« EDIT\nline 5\n")
    symbols = await document.symbols()
    assert [(s.name, s.detail, s.kind) for s in symbols] == [
        ("src/app.py", "⋯ writing", types.SymbolKind.Event)]
    assert "Still being written" in (await document.hover(4) or "")
    assert await document.links() == []
    document.append("═══════ REPL\nfive\n»»» EDIT END\n")
    symbols = await document.symbols()
    assert [(s.name, s.detail) for s in symbols] == [("src/app.py", "✓ src/app.py:6")]
    assert [link.target for link in await document.links()] == [
        (root / "src/app.py").as_uri() + "#L6"]


async def test_text_typed_above_the_stream_moves_every_view_with_it(
    client: LanguageClient, root: Path
) -> None:
    document = await start(client, root)
    half = len(RESPONSE) // 2
    for at in range(0, half, 40):
        document.append(RESPONSE[at:min(at + 40, half)])
    await check_views(document)
    document.insert_at_start(f"A note {EMOJI} typed above.\n\n")
    await check_views(document)
    for at in range(half, len(RESPONSE), 40):
        document.append(RESPONSE[at:at + 40])
        await check_views(document)
    symbols = await document.symbols()
    assert [s.selection_range.start.line for s in symbols] == [
        b.response_line for b in parse_response(document.text).blocks]
