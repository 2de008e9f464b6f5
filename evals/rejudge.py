"""Judge the first attempts of an earlier run again, with today's judge (``--rejudge``).

Each first response is parsed again by the server (``llmEdits.parse``) and its failed blocks
and warnings are judged against the task's files as given; statuses and reasons stay as
recorded. Retries are left as they were judged when they ran: their files were the ones the
first attempt left.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from lsp_server.testing.editor_session import EditorSession

from .judge import judge_failed_block, judge_warning
from .tasks import TASKS_DIR, Task


async def rejudge(results: dict[str, Any], tasks_dir: Path = TASKS_DIR) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        session = EditorSession(Path(tmp), log_file=Path(tmp) / "server.log")
        await session.start()
        try:
            for episode in results["episodes"]:
                attempt = episode["attempts"][0]
                parsed = await session.run("llmEdits.parse", {"response": attempt["response"]})
                files = Task(episode["task"], tasks_dir / episode["task"]).files()
                _judge(attempt, parsed, files, episode["format"])
        finally:
            await session.stop()


def _judge(attempt: dict[str, Any], parsed: dict[str, Any], files: dict[str, str],
           format_name: str) -> None:
    by_index = {block["index"]: block for block in parsed.get("blocks") or []}
    for block in attempt["blocks"]:
        if block["status"] == "failed":
            block["judgement"] = judge_failed_block(by_index.get(block["index"]),
                                                    block["reason"], files)
    for warning in attempt["warnings"]:
        warning["judgement"] = judge_warning(warning, attempt["response"], format_name)
