"""What must hold for ANY model output, checked through the real server.

:func:`apply_and_verify` previews a response (with the full new text of every file), applies
it, and asserts the invariants no model can excuse: the server answers, preview changes
nothing, apply's statuses are preview's (``validated`` becoming ``applied``), later blocks of
a file whose block failed are skipped, and the files on disk afterwards are exactly the
preview's new texts for the files it edits and untouched everywhere else, so files change
only where blocks validated.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parents[2]

from lsp_server.testing.editor_session import EditorSession  # noqa: E402

# What llmEdits.apply may say of a block: "validated" when it matched but changed nothing (no
# edit is sent), "already-applied" when its new text was already in the file.
STATUSES = {"applied", "validated", "already-applied", "failed", "skipped"}


def disk_texts(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_bytes().decode("utf-8")
            for p in sorted(root.rglob("*")) if p.is_file()}


def _relative(uri: str, root: Path) -> str:
    return Path(unquote(urlparse(uri).path)).relative_to(root.resolve()).as_posix()


def expected_texts(before: dict[str, str], preview: dict[str, Any], root: Path
                   ) -> dict[str, str]:
    """The workspace as the preview says the apply will leave it."""
    expected = dict(before)
    for change in preview.get("files") or []:
        path = _relative(change["uri"], root)
        if change["kind"] == "delete":
            expected.pop(path, None)
        elif change.get("newUri"):  # a rename, or a file created and then moved
            expected.pop(path, None)
            expected[_relative(change["newUri"], root)] = change["newText"]
        else:
            expected[path] = change["newText"]
    return expected


@dataclass
class Applied:
    parsed: dict[str, Any]
    preview: dict[str, Any]
    result: dict[str, Any]
    before: dict[str, str]
    after: dict[str, str]

    @property
    def statuses(self) -> list[str]:
        return [block["status"] for block in self.result["blocks"]]


def check_sequential(blocks: list[dict[str, Any]]) -> None:
    failed_files: set[str] = set()
    for block in blocks:
        assert block["status"] in STATUSES, block
        if block["file"] in failed_files:
            assert block["status"] == "skipped", block
        if block["status"] == "failed":
            assert block["reason"], block
            failed_files.add(block["file"])


@asynccontextmanager
async def server_session(workspace: Path, log_file: Path) -> AsyncIterator[EditorSession]:
    """``python -m lsp_server`` rooted at ``workspace``, driven by the scripted editor."""
    session = EditorSession(workspace, log_file=log_file)
    await session.start()
    try:
        yield session
    finally:
        await session.stop()


async def apply_and_verify(workspace: Path, response: str, log_file: Path) -> Applied:
    async with server_session(workspace, log_file) as session:
        return await apply_and_verify_in(session, workspace, response)


async def apply_and_verify_in(session: EditorSession, workspace: Path, response: str,
                              options: dict[str, Any] | None = None) -> Applied:
    """Preview, then apply ``response`` in ``session`` (files on disk, none open);
    ``options`` as the server's commands take them (``formats`` for an opt-in format)."""
    before = disk_texts(workspace)
    argument = {"response": response, "options": {**(options or {}), "includeText": True}}
    parsed = await session.run("llmEdits.parse",
                               {"response": response, "options": dict(options or {})})
    preview = await session.run("llmEdits.preview", argument)
    assert disk_texts(workspace) == before, "preview changed a file"
    result = await session.run("llmEdits.apply", argument)
    assert await session.ping(), "the server stopped answering"
    after = disk_texts(workspace)
    applied = Applied(parsed, preview, result, before, after)
    assert len(result["blocks"]) == len(parsed["blocks"])
    assert set(applied.statuses) <= STATUSES
    assert [b["status"] for b in preview["blocks"]] == [
        "validated" if s == "applied" else s for s in applied.statuses]  # apply = preview
    check_sequential(result["blocks"])
    assert after == expected_texts(before, preview, workspace), \
        "the files changed elsewhere than where blocks validated"
    if "applied" not in applied.statuses:
        assert after == before
    return applied
