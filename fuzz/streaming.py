"""Streaming sessions: a response streamed into a response document with
``applyWhileStreaming`` on, while the user edits it (docs/safety.md, "Response documents").

One session (``streaming_session``): a workspace of a few files, an answer of random blocks
(some failing, some naming the response document itself), streamed in random pieces into
``answer.llm.md`` by a real server; between pieces the user, at random, types inside text
already written, pastes a note above the blocks, or closes the document and opens it again.
The promises checked after every step:

- no ``workspace/applyEdit`` ever edits a response document;
- a user's edit, a paste or a reopened document applies nothing (only a block the stream
  completes applies on its own);
- no block is applied twice: applies never outnumber the blocks streamed;
- the server answers every request (its loop is never stuck, it never exits).

Deterministic per seed (``random.Random``): ``tests/e2e/test_fuzz.py`` runs a few seeds, the
long run more (``python -m fuzz.streaming --sessions 50``).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types

from lsp_server.testing.editor_session import EditorSession
from lsp_server.testing.positions import end_position

RESPONSE_DOCUMENT = "answer.llm.md"
FILES = ("a.py", "b.py", "c.py")


@dataclass
class SessionReport:
    seed: int
    blocks: int = 0
    applies: int = 0
    steps: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _file_text(name: str) -> str:
    return "".join(f"{name.split('.')[0]}_{n} = {n}\n" for n in range(12))


def _block(rng: random.Random, files: dict[str, str]) -> str:
    """One edit-v3 block: a line of a file changed, a line no file has, or the response
    document itself as its target."""
    choice = rng.random()
    path = RESPONSE_DOCUMENT if choice < 0.15 else rng.choice(FILES)
    lines = (files.get(path) or "Intro.\n").splitlines(keepends=True)
    old = "no such line\n" if choice > 0.85 else rng.choice(lines)
    new = old.replace("=", "= 1 +", 1) if "=" in old else "x = 1\n"
    return f"{path}\n««« EDIT\n{old}═══════ REPL\n{new}»»» EDIT END\n"


def _answer(rng: random.Random, files: dict[str, str], count: int) -> str:
    parts = ["Here is the change.\n\n"]
    for n in range(count):
        parts += [_block(rng, files), f"\nStep {n + 1} done.\n\n"]
    return "".join(parts)


class _Document:
    """The response document as the test editor holds it."""

    def __init__(self, editor: EditorSession) -> None:
        self.editor = editor
        self.uri = editor.uri(RESPONSE_DOCUMENT)

    def open(self, text: str) -> None:
        self.editor.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=self.uri, language_id="llm-response",
                                                 version=1, text=text)))
        self.editor.buffers[self.uri] = (text, 1)
        self.editor.history[self.uri] = {1: text}

    @property
    def text(self) -> str:
        return self.editor.buffers[self.uri][0]

    def replace(self, start: int, end: int, new: str) -> None:
        text, version = self.editor.buffers[self.uri]
        encoding = self.editor.encoding
        self.editor.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri,
                                                                version=version + 1),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=end_position(text[:start], encoding),
                                  end=end_position(text[:end], encoding)),
                text=new)]))
        self.editor.buffers[self.uri] = (text[:start] + new + text[end:], version + 1)

    async def settle(self) -> None:
        """Every validation and apply due has run (a request on the document waits for
        them)."""
        await self.editor.client.text_document_code_lens_async(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=self.uri)))


def _edits_document(params: types.ApplyWorkspaceEditParams, uri: str) -> bool:
    edit = params.edit
    uris = set((edit.changes or {}).keys())
    for change in edit.document_changes or ():
        document = getattr(change, "text_document", None)
        uris.add(getattr(document, "uri", None) or getattr(change, "uri", None)
                 or getattr(change, "new_uri", None))
    return uri in uris


async def _user_step(rng: random.Random, document: _Document, streamed: int,
                     report: SessionReport) -> None:
    """One thing the user does to the text written so far (``streamed`` characters of the
    answer), checked to apply nothing."""
    editor = document.editor
    await document.settle()
    before = len(editor.apply_requests)
    action = rng.choice(("type", "paste", "reopen"))
    report.steps.append(action)
    text = document.text
    if action == "type" and text:
        at = rng.randrange(len(text))
        document.replace(at, at, rng.choice("xyz ="))
    elif action == "paste":
        document.replace(0, 0, "A note pasted above.\n\n")
    else:
        editor.client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=document.uri)))
        document.open(text)
    await document.settle()
    if len(editor.apply_requests) != before:
        report.problems.append(f"{action} after {streamed} characters applied "
                               f"{editor.apply_requests[before].label}")


async def streaming_session(root: Path, seed: int, blocks: int = 6) -> SessionReport:
    """One session (see the module docstring); what it did and the promises broken."""
    rng = random.Random(seed)
    report = SessionReport(seed, blocks)
    files = {name: _file_text(name) for name in FILES}
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    answer = _answer(rng, files, blocks)
    editor = EditorSession(root, initialization_options={"applyWhileStreaming": True})
    await editor.start()
    try:
        document = _Document(editor)
        document.open("")
        at = 0
        while at < len(answer):
            step = rng.randrange(1, 60)
            document.replace(len(document.text), len(document.text), answer[at:at + step])
            at += step
            if rng.random() < 0.2:
                await _user_step(rng, document, at, report)
        await document.settle()
        report.applies = len(editor.apply_requests)
        if any(_edits_document(p, document.uri) for p in editor.apply_requests):
            report.problems.append("an applyEdit edited the response document")
        if report.applies > blocks:
            report.problems.append(f"{report.applies} applies for {blocks} blocks")
        if not await editor.ping():
            report.problems.append("the server stopped answering")
    finally:
        await editor.stop()
    return report


async def _run(sessions: int, first_seed: int) -> int:
    broken = 0
    for seed in range(first_seed, first_seed + sessions):
        with tempfile.TemporaryDirectory(prefix="llm-edits-stream-") as tmp:
            report = await streaming_session(Path(tmp).resolve(), seed)
        print(f"seed {seed}: {report.applies} applied, steps {report.steps}, "
              f"problems {report.problems or 'none'}")
        broken += bool(report.problems)
    return 1 if broken else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="the first session's seed")
    args = parser.parse_args(argv)
    return asyncio.run(_run(args.sessions, args.seed))


if __name__ == "__main__":
    raise SystemExit(main())
