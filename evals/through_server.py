"""A response through the real language server, as an editor would send it.

One ``python -m lsp_server`` process per response, rooted at a copy of the task's workspace,
driven over stdio by the project's scripted editor (``lsp_server.testing.editor_session``: it
answers ``workspace/applyEdit`` by writing the edits, so the files change exactly as the
server's edits say). Only the server's public surface is used.

When the server has live response documents (it advertises code lenses), the completion is
streamed into one, as an editor showing a model's answer would: a document with language id
``llm-response`` is opened empty beside the workspace and every chunk the model sends becomes
one ``didChange`` appending it; after each chunk that ends a line the document's lenses are
asked for (one status per block, ``⋯ writing`` while a block is still open), and their states
are counted. When the answer is complete, ``llmEdits.parse`` (the blocks and their text, for
the fault judgement), ``llmEdits.feedback`` (the retry text, asked before applying so it
describes this response against the files it was written for) and ``llmEdits.apply`` run on
the document (``responseUri``). A server without response documents gets the finished text
(``response``) instead.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_server.testing.editor_session import EditorSession
from lsp_server.testing.positions import end_position

RESPONSE_LANGUAGE = "llm-response"
# The first character of a block lens's title is its state (✓ ✗ ⊘ = ⋯, docs/protocol.md);
# the line-0 lens ("Apply all N ready blocks") and "Preview" are not states.
LENS_STATES = {"✓": "validated or applied", "✗": "failed", "⊘": "skipped",
               "=": "already applied", "⋯": "pending"}


@dataclass
class StreamRecord:
    """What a streamed answer looked like from the editor's side."""

    chunks: int = 0  # didChange notifications sent
    lens_answers: int = 0  # textDocument/codeLens answers read
    answers_with_pending: int = 0  # ... showing a block still being written
    lens_states: Counter[str] = field(default_factory=Counter)  # state → lenses seen
    final_states: list[str] = field(default_factory=list)  # the finished answer's, in order

    def as_dict(self) -> dict[str, Any]:
        return {"chunks": self.chunks, "lens_answers": self.lens_answers,
                "answers_with_pending": self.answers_with_pending,
                "lens_states": dict(self.lens_states), "final_states": self.final_states}


@dataclass
class ServerOutcome:
    parsed: dict[str, Any]  # llmEdits.parse: blocks (with their text), warnings
    feedback: str  # llmEdits.feedback's text
    result: dict[str, Any]  # llmEdits.apply: blocks with status/reason/line, applied
    files_before: dict[str, str] = field(default_factory=dict)  # rel path → text
    stream: StreamRecord | None = None  # None: the finished text was sent, not streamed

    @property
    def blocks(self) -> list[dict[str, Any]]:
        """The blocks the apply ran (a block still open at the end is in ``pending``)."""
        return [b for b in self.result.get("blocks") or [] if b.get("status") != "pending"]

    @property
    def pending(self) -> list[dict[str, Any]]:
        """Blocks started but not closed when the answer ended (cut by the token limit)."""
        return [b for b in self.result.get("blocks") or [] if b.get("status") == "pending"]

    @property
    def warnings(self) -> list[dict[str, Any]]:
        return list(self.result.get("warnings") or [])


def _disk_texts(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_bytes().decode("utf-8", "replace")
            for p in sorted(root.rglob("*")) if p.is_file()}


class ServerRun:
    """One response through one server: fed chunk by chunk (:meth:`feed`), then parsed,
    given feedback for and applied (:meth:`finish`). ``async with`` starts and stops it."""

    def __init__(self, workspace: Path, *, log_file: Path,
                 options: dict[str, Any] | None = None, stream: bool = True) -> None:
        self.workspace = workspace
        self.options = dict(options or {})
        # The options are the server's settings too: a live document is read with them (an
        # opt-in format such as whole-file is detected only when ``formats`` names it).
        self.session = EditorSession(workspace, log_file=log_file,
                                     initialization_options=self.options or None)
        self.want_stream = stream
        self.record: StreamRecord | None = None  # set when the document is live
        # Beside the workspace, never in it: the response is not one of the task's files.
        self.uri = (workspace.parent / f"{workspace.name}-response.llm.md").as_uri()
        self._text = ""

    async def __aenter__(self) -> ServerRun:
        initialized = await self.session.start()
        if self.want_stream and initialized.capabilities.code_lens_provider is not None:
            self._open_document()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.session.stop()

    @property
    def live(self) -> bool:
        return self.record is not None

    def _open_document(self) -> None:
        self.session.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=self.uri, language_id=RESPONSE_LANGUAGE,
                                                 version=1, text="")))
        self.session.buffers[self.uri] = ("", 1)
        self.record = StreamRecord()

    async def feed(self, chunk: str) -> None:
        """Append ``chunk`` to the live document (nothing when the server has none)."""
        if self.record is None or not chunk:
            return
        version = self.session.buffers[self.uri][1] + 1
        end = end_position(self._text, self.session.encoding)
        self.session.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=end, end=end), text=chunk)]))
        self._text += chunk
        self.session.buffers[self.uri] = (self._text, version)
        self.record.chunks += 1
        if "\n" in chunk:  # block states change at line ends; asking per token costs more
            await self._read_lenses()

    async def _read_lenses(self) -> list[str]:
        """The document's block states now, in response order (and counted)."""
        assert self.record is not None
        lenses = await self.session.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=self.uri)))
        lenses = sorted(lenses or [], key=lambda lens: (lens.range.start.line,
                                                        lens.range.start.character))
        # A block's lenses come unresolved (docs/protocol.md, "Code lenses"): the status
        # lens (data[2] == 0) is resolved for its title, as an editor showing it would.
        client = self.session.client
        lenses = [await client.code_lens_resolve_async(lens)
                  if lens.command is None and isinstance(lens.data, list) and lens.data[-1] == 0
                  else lens for lens in lenses]
        titles = [lens.command.title for lens in lenses if lens.command]
        states = [LENS_STATES[t[0]] for t in titles if t and t[0] in LENS_STATES]
        self.record.lens_answers += 1
        self.record.lens_states.update(states)
        self.record.answers_with_pending += LENS_STATES["⋯"] in states
        return states

    async def finish(self, response: str) -> ServerOutcome:
        """Parse, get feedback for, and apply the whole ``response`` (edits the workspace)."""
        if self.record is not None:
            if self._text != response:  # a chunk lost on the way: say so, never guess
                raise RuntimeError("the response document does not hold the streamed answer")
            self.record.final_states = await self._read_lenses()
            argument: dict[str, Any] = {"responseUri": self.uri, "options": self.options}
        else:
            argument = {"response": response, "options": self.options}
        before = _disk_texts(self.workspace)
        parsed = await self.session.run("llmEdits.parse", argument) or {}
        feedback = (await self.session.run("llmEdits.feedback", argument) or {}).get("text", "")
        result = await self.session.run("llmEdits.apply", argument) or {}
        return ServerOutcome(parsed, feedback, result, before, self.record)


async def run_through_server(workspace: Path, response: str | list[str], *, log_file: Path,
                             options: dict[str, Any] | None = None,
                             stream: bool = True) -> ServerOutcome:
    """``response`` (whole, or as the chunks a model streamed) through the server in
    ``workspace`` (edited in place); ``stream=False`` sends the finished text."""
    chunks = [response] if isinstance(response, str) else response
    async with ServerRun(workspace, log_file=log_file, options=options, stream=stream) as run:
        for chunk in chunks:
            await run.feed(chunk)
        return await run.finish("".join(chunks))


async def instructions_from_server(workspace: Path, formats: list[str], *,
                                   log_file: Path) -> dict[str, str]:
    """The system prompt for each format, as ``llmEdits.instructions`` gives it."""
    session = EditorSession(workspace, log_file=log_file)
    await session.start()
    try:
        return {name: (await session.run("llmEdits.instructions", {"format": name}))["text"]
                for name in formats}
    finally:
        await session.stop()
