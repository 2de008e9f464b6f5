"""A response through the real language server, as an editor would send it.

One ``python -m lsp_server`` process per response, rooted at a copy of the task's workspace,
driven over stdio by the project's scripted editor (``fuzz/lsp_session.py``: it answers
``workspace/applyEdit`` by writing the edits, so the files change exactly as the server's
edits say). Only the server's public commands are used: ``llmEdits.parse`` (the blocks and
their text, for the fault judgement), ``llmEdits.feedback`` (the retry text, asked before
applying so it describes this response against the files it was written for) and
``llmEdits.apply``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fuzz.lsp_session import EditorSession


@dataclass
class ServerOutcome:
    parsed: dict[str, Any]  # llmEdits.parse: blocks (with their text), warnings
    feedback: str  # llmEdits.feedback's text
    result: dict[str, Any]  # llmEdits.apply: blocks with status/reason/line, applied
    files_before: dict[str, str] = field(default_factory=dict)  # rel path → text

    @property
    def blocks(self) -> list[dict[str, Any]]:
        return list(self.result.get("blocks") or [])

    @property
    def warnings(self) -> list[dict[str, Any]]:
        return list(self.result.get("warnings") or [])


def _disk_texts(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_bytes().decode("utf-8", "replace")
            for p in sorted(root.rglob("*")) if p.is_file()}


async def run_through_server(workspace: Path, response: str, *, log_file: Path,
                             options: dict[str, Any] | None = None) -> ServerOutcome:
    """Parse, get feedback for, and apply ``response`` in ``workspace`` (edited in place)."""
    session = EditorSession(workspace, log_file=log_file)
    await session.start()
    try:
        argument = {"response": response, "options": dict(options or {})}
        before = _disk_texts(workspace)
        parsed = await session.run("llmEdits.parse", argument) or {}
        feedback = (await session.run("llmEdits.feedback", argument) or {}).get("text", "")
        result = await session.run("llmEdits.apply", argument) or {}
        return ServerOutcome(parsed, feedback, result, before)
    finally:
        await session.stop()


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
