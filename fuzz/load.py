"""Load with stale buffers: many previews and applies over ONE connection while the user types.

Shared by ``tests/e2e/test_concurrency.py`` (100 commands) and ``fuzz/run_fuzz.py`` (longer).
:func:`run_load` drives an :class:`~lsp_server.testing.editor_session.EditorSession` and
checks what the user would see, raising ``AssertionError`` on the first broken rule:

- every edit a result carries was computed against the text of the version it names;
- the editor applied only edits for its current version, and each changed exactly the one
  line its block named (``line j: X`` → ``line j: X|cN``);
- ``applied: true`` in a result ⇔ the editor applied that edit; a refusal says "stale";
- nothing lost or doubled: every applied token is in the final buffers exactly once;
- the server still answers.

Latencies (each command, and a cheap ``ping`` request sent every 20 ms meanwhile) are
returned for printing, never asserted.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types

from lsp_server.testing.editor_session import EditorSession
from lsp_server.testing.positions import apply_text_edits

LINES = 30


@dataclass
class LoadReport:
    commands: int = 0
    typed: int = 0
    applied: int = 0
    refused_stale: int = 0
    failed: int = 0
    latencies: list[float] = field(default_factory=list)
    pings: list[float] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.commands} commands, {self.typed} changes typed meanwhile: "
                f"{self.applied} applied, {self.refused_stale} refused as stale, {self.failed} "
                f"failed (line changed first); command latency p50 "
                f"{percentile(self.latencies, 0.5) * 1000:.0f} ms, p99 "
                f"{percentile(self.latencies, 0.99) * 1000:.0f} ms; ping p99 "
                f"{percentile(self.pings, 0.99) * 1000:.0f} ms over {len(self.pings)} pings")


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def file_text(index: int) -> str:
    return "".join(f"line {j}: f{index}v0\n" for j in range(LINES))


def _response(rel: str, old_line: str, token: str) -> str:
    return f"{rel}\n<<<<<<< SEARCH\n{old_line}\n=======\n{old_line}|{token}\n>>>>>>> REPLACE\n"


def _has_token(text: str, token: str) -> bool:
    return re.search(rf"\|{token}(?=\||\n|$)", text) is not None


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
                range=types.Range(start=types.Position(**e["range"]["start"]),
                                  end=types.Position(**e["range"]["end"])),
                new_text=e["newText"]) for e in change["edits"]]
            steps.append((change["textDocument"]["uri"], change["textDocument"]["version"],
                          edits))
    return steps


async def run_load(root: Path, *, files: int = 6, commands: int = 100, spread: float = 3.0,
                   seed: int = 0) -> LoadReport:
    """Write ``files`` files under ``root``, open them, and run the scenario (see above)."""
    rng = random.Random(seed)
    for i in range(files):
        (root / f"f{i}.txt").write_text(file_text(i), encoding="utf-8")
    editor = EditorSession(root)
    await editor.start()
    report = LoadReport(commands=commands)
    try:
        for i in range(files):
            editor.open(f"f{i}.txt")
        results = await _drive(editor, report, rng, files, commands, spread)
        _check(editor, report, files, results)
        assert await editor.ping()
    finally:
        await editor.stop()
    return report


Outcome = tuple[str, str, str, dict]  # (command, token, file, result)


async def _drive(editor: EditorSession, report: LoadReport, rng: random.Random, files: int,
                 commands: int, spread: float) -> list[Outcome]:
    done = asyncio.Event()
    results: list[Outcome] = []

    async def typist() -> None:
        """Until the commands are done: change values and shift lines (insert or delete a
        comment at the top), mostly in the two files the user is working in."""
        k = 0
        while not done.is_set():
            k += 1
            rel = f"f{rng.randrange(2) if rng.random() < 0.8 else rng.randrange(files)}.txt"
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
            editor.type(rel, "\n".join(lines))
            report.typed += 1
            await asyncio.sleep(0.02 + rng.random() * 0.04)

    async def pinger() -> None:
        while not done.is_set():
            started = time.perf_counter()
            assert await editor.ping()
            report.pings.append(time.perf_counter() - started)
            await asyncio.sleep(0.02)

    async def one_command(n: int) -> None:
        await asyncio.sleep(rng.random() * spread)
        rel = f"f{rng.randrange(files)}.txt"
        j = rng.randrange(LINES)
        old_line = next(line for line in (editor.text(rel) or "").split("\n")
                        if line.startswith(f"line {j}:"))
        command = "llmEdits.apply" if rng.random() < 0.7 else "llmEdits.preview"
        started = time.perf_counter()
        result = await editor.run(command, {"response": _response(rel, old_line, f"c{n}")})
        report.latencies.append(time.perf_counter() - started)
        results.append((command, f"c{n}", rel, result))

    async def all_commands() -> None:
        await asyncio.gather(*(one_command(n) for n in range(commands)))
        done.set()

    await asyncio.gather(typist(), pinger(), all_commands())
    return results


def _check(editor: EditorSession, report: LoadReport, files: int,
           results: list[Outcome]) -> None:
    assert len(results) == report.commands

    # Every edit a result carries was computed against the text of the version it names.
    for _command, token, rel, result in results:
        for uri, version, edits in _edit_steps(result.get("edit")):
            assert uri == editor.uri(rel)
            assert version is not None, "an open buffer's edit must carry its version"
            base = editor.history[uri][version]
            after = apply_text_edits(base, edits, editor.encoding)
            assert _one_line_changed(base, after, token), (
                f"{token}: the edit does not fit version {version} of {rel}")

    # What the editor applied changed only the named line of the then current text.
    applied_tokens: list[str] = []
    for record in editor.applies:
        if not record.applied:
            continue
        (uri,) = record.versions
        after = editor.history[uri][record.versions[uri] + 1]
        tokens = [t for _c, t, _r, _res in results
                  if _has_token(after, t) and not _has_token(record.texts_before[uri], t)]
        assert len(tokens) == 1, f"an applied edit added {tokens} (expected one token)"
        assert _one_line_changed(record.texts_before[uri], after, tokens[0])
        applied_tokens.append(tokens[0])

    # Results agree with the editor: applied ⇔ the editor applied it; refusals are stale.
    said_applied = sorted(t for c, t, _r, res in results
                          if c == "llmEdits.apply" and res.get("applied"))
    assert said_applied == sorted(applied_tokens)
    for command, token, _rel, result in results:
        statuses = [b["status"] for b in result["blocks"]]
        if command == "llmEdits.preview":
            assert statuses in (["validated"], ["failed"]), (token, result)
        elif result.get("applied"):
            assert statuses == ["applied"], (token, result)
        elif result.get("edit") is not None:
            assert statuses == ["validated"], (token, result)
            assert "stale" in result.get("failureReason", ""), (token, result)
        else:
            assert statuses == ["failed"], (token, result)

    # Nothing lost or doubled: every applied token is in the final buffers exactly once.
    final = "".join(editor.text(f"f{i}.txt") or "" for i in range(files))
    for token in applied_tokens:  # later applies may append to the same line
        assert len(re.findall(rf"\|{token}(?=\||\n|$)", final)) == 1, token
    report.applied = len(applied_tokens)
    report.refused_stale = sum(1 for r in editor.applies if not r.applied)
    report.failed = sum(1 for _c, _t, _r, res in results
                        if res["blocks"][0]["status"] == "failed")
