"""Concurrency: many previews and applies over one connection while the user types.

The editor (``fuzz/lsp_session.py``) answers ``workspace/applyEdit`` like VS Code: an edit
whose version is not the buffer's current one is refused, otherwise applied with the editor's
own position code. The test then checks what the user would see: every applied edit changed
exactly the one line its block named, in the text of the version it was computed for; no edit
was applied twice or lost; the server answered every request and is still responsive.
Latencies are printed (``-s``), not asserted.
"""

from __future__ import annotations

import asyncio
import random
import re
import sys
import time
from pathlib import Path

from lsprotocol import types

from lsp_server.server import LlmEditsServer, OpenBuffers

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the fuzz/ package

from fuzz.lsp_session import EditorSession, apply_text_edits

FILES = 6
LINES = 30
COMMANDS = 100


def _file_text(index: int) -> str:
    return "".join(f"line {j}: f{index}v0\n" for j in range(LINES))


def _response(rel: str, old_line: str, token: str) -> str:
    return f"{rel}\n<<<<<<< SEARCH\n{old_line}\n=======\n{old_line}|{token}\n>>>>>>> REPLACE\n"


def _one_line_changed(before: str, after: str, token: str) -> bool:
    """``after`` is ``before`` with exactly one line gaining ``|token`` at its end."""
    old, new = before.split("\n"), after.split("\n")
    if len(old) != len(new):
        return False
    diffs = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    return len(diffs) == 1 and diffs[0][1] == diffs[0][0] + "|" + token


def _edit_steps(edit: dict | None) -> list[tuple[str, int | None, list[types.TextEdit]]]:
    steps = []
    for change in (edit or {}).get("documentChanges", []):
        if "textDocument" in change:
            edits = [types.TextEdit(
                range=types.Range(
                    start=types.Position(**e["range"]["start"]),
                    end=types.Position(**e["range"]["end"])),
                new_text=e["newText"]) for e in change["edits"]]
            steps.append((change["textDocument"]["uri"], change["textDocument"]["version"],
                          edits))
    return steps


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def test_concurrent_previews_and_applies_while_buffers_change(tmp_path: Path) -> None:
    rng = random.Random(20240611)
    for i in range(FILES):
        (tmp_path / f"f{i}.txt").write_text(_file_text(i), encoding="utf-8")
    editor = EditorSession(tmp_path)
    await editor.start()
    try:
        for i in range(FILES):
            editor.open(f"f{i}.txt")
        commands_done = asyncio.Event()
        typed = [0]

        async def typist() -> None:
            """Until the commands are done: change values and shift lines (insert/delete a
            comment at the top), mostly in the two files the user is working in."""
            k = 0
            while not commands_done.is_set():
                k += 1
                rel = f"f{rng.randrange(2) if rng.random() < 0.8 else rng.randrange(FILES)}.txt"
                lines = (editor.text(rel) or "").split("\n")
                action = rng.random()
                if action < 0.5:
                    j = rng.randrange(LINES)
                    lines = [re.sub(r"v\d+", f"v{k}", line, count=1)
                             if line.startswith(f"line {j}:") else line for line in lines]
                elif action < 0.75:
                    lines.insert(0, f"# typed {k}")
                elif lines and lines[0].startswith("# typed"):
                    del lines[0]
                editor.change(rel, "\n".join(lines))
                typed[0] += 1
                await asyncio.sleep(0.02 + rng.random() * 0.04)

        pings: list[float] = []

        async def pinger() -> None:
            """How long a cheap request waits while the server is loaded."""
            while not commands_done.is_set():
                started = time.perf_counter()
                assert await editor.ping()
                pings.append(time.perf_counter() - started)
                await asyncio.sleep(0.02)

        results: list[tuple[str, str, str, dict]] = []  # (command, token, rel, result)
        latencies: list[float] = []

        async def one_command(n: int) -> None:
            await asyncio.sleep(rng.random() * 3.0)
            rel = f"f{rng.randrange(FILES)}.txt"
            j = rng.randrange(LINES)
            current = editor.text(rel) or ""
            old_line = next(line for line in current.split("\n")
                            if line.startswith(f"line {j}:"))
            token = f"c{n}"
            command = "llmEdits.apply" if rng.random() < 0.7 else "llmEdits.preview"
            started = time.perf_counter()
            result = await editor.run(command, {"response": _response(rel, old_line, token)})
            latencies.append(time.perf_counter() - started)
            results.append((command, token, rel, result))

        async def commands() -> None:
            await asyncio.gather(*(one_command(n) for n in range(COMMANDS)))
            commands_done.set()

        await asyncio.gather(typist(), pinger(), commands())
        assert len(results) == COMMANDS

        # Every edit a result carries was computed against the text of the version it names.
        for _command, token, rel, result in results:
            for uri, version, edits in _edit_steps(result.get("edit")):
                assert uri == editor.uri(rel)
                assert version is not None, "an open buffer's edit must carry its version"
                base = editor.history[uri][version]
                assert _one_line_changed(base, apply_text_edits(base, edits, editor.encoding),
                                         token), f"{token}: edit does not fit version {version}"

        # What the editor applied changed only the named line of the current text.
        applied_tokens: list[str] = []
        for record in editor.applies:
            if not record.applied:
                continue
            (uri,) = record.versions
            after = editor.history[uri][record.versions[uri] + 1]
            tokens = [t for _c, t, _r, _res in results
                      if re.search(rf"\|{t}(?=\||\n|$)", after)
                      and not re.search(rf"\|{t}(?=\||\n|$)", record.texts_before[uri])]
            assert len(tokens) == 1, f"applied edit added {tokens} (expected one token)"
            token = tokens[0]
            assert _one_line_changed(record.texts_before[uri], after, token)
            applied_tokens.append(token)

        # Results agree with the editor: applied ⇔ the editor applied it; refusals are stale.
        said_applied = sorted(t for c, t, _r, res in results
                              if c == "llmEdits.apply" and res.get("applied"))
        assert said_applied == sorted(applied_tokens)
        for command, token, _rel, result in results:
            statuses = [b["status"] for b in result["blocks"]]
            if command == "llmEdits.preview":
                assert statuses in (["validated"], ["failed"])
            elif result.get("applied"):
                assert statuses == ["applied"]
            elif result.get("edit") is not None:
                assert statuses == ["validated"]
                assert "stale" in result.get("failureReason", ""), result
            else:
                assert statuses == ["failed"], (token, result)

        # Nothing lost or doubled: every applied token is in the final buffers exactly once.
        final = "".join(editor.text(f"f{i}.txt") or "" for i in range(FILES))
        for token in applied_tokens:  # later applies may append to the same line
            assert len(re.findall(rf"\|{token}(?=\||\n|$)", final)) == 1, token
        assert await editor.ping()
        applied = len(applied_tokens)
        refused = sum(1 for r in editor.applies if not r.applied)
        failed = sum(1 for _c, _t, _r, res in results if res["blocks"][0]["status"] == "failed")
        print(f"\n{COMMANDS} commands, {typed[0]} changes typed meanwhile: {applied} applied, "
              f"{refused} refused as stale, {failed} failed (line changed first); "
              f"command latency p50 {_percentile(latencies, 0.5) * 1000:.0f} ms, "
              f"p99 {_percentile(latencies, 0.99) * 1000:.0f} ms; ping p99 "
              f"{_percentile(pings, 0.99) * 1000:.0f} ms over {len(pings)} pings")
        assert applied > 0, "the scenario should let some applies through"
    finally:
        await editor.stop()


def test_a_run_sees_the_buffers_as_they_were_when_it_started() -> None:
    # The planner reads buffers in a worker thread while didChange keeps arriving. It must
    # see one consistent (text, version) pair per buffer, fixed when the command started;
    # reading the live buffer could pair an old text with a newer version, and the editor
    # would then apply an edit computed for other text.
    server = LlmEditsServer()
    server.buffers = OpenBuffers()
    uri = Path("/tmp/ws/a.txt").as_uri()
    server.buffers.open(types.TextDocumentItem(uri=uri, language_id="plaintext", version=1,
                                               text="one\n"))
    reader = server.reader()
    server.buffers.change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="two\n")]), "utf-16")
    snapshot = reader(Path("/tmp/ws/a.txt"))
    assert (snapshot.text, snapshot.version) == ("one\n", 1)
    assert server.reader()(Path("/tmp/ws/a.txt")).version == 2
