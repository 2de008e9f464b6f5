"""One task in one format: prompt → streamed completion → server → check → one retry.

The record of an episode (JSON-ready dicts) holds every attempt: the raw response, tokens,
seconds, each block's format/file/status/reason and fault judgement, the parse warnings with
theirs, compliance, apply success, the check's verdict and output.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from pathlib import Path
from typing import Any

from .judge import applied_all, compliant, judge_failed_block, judge_warning
from .model import Completion, Endpoint, Sampling, stream_chat
from .tasks import Task, run_check, user_message
from .through_server import ServerOutcome, ServerRun

_FENCED = re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1\s*$", re.M | re.S)


def whole_file_answers(response: str, files: dict[str, str]) -> list[str]:
    """Files the response re-emits whole in a code fence (no edit format at all)."""
    found = []
    for match in _FENCED.finditer(response):
        body = [line.strip() for line in match.group(2).splitlines() if line.strip()]
        for rel, text in files.items():
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            if lines and body and body[0] == lines[0] and len(body) >= 0.6 * len(lines):
                found.append(rel)
                break
    return found


def _block_records(outcome: ServerOutcome) -> list[dict[str, Any]]:
    parsed_blocks = {b.get("index"): b for b in outcome.parsed.get("blocks") or []}
    records = []
    for block in outcome.blocks:
        parsed = parsed_blocks.get(block.get("index"))
        record = {key: block.get(key) for key in ("index", "file", "format", "status", "reason",
                                                  "line", "match", "hint", "responseLine")}
        if block.get("status") == "failed":
            record["judgement"] = judge_failed_block(parsed, block.get("reason"),
                                                     outcome.files_before)
        records.append(record)
    return records


def attempt_record(completion: Completion, outcome: ServerOutcome, format_name: str,
                   check_passed: bool, check_output: str) -> dict[str, Any]:
    blocks = _block_records(outcome)
    warnings = [{"responseLine": w.get("responseLine"), "message": w.get("message"),
                 "judgement": judge_warning(w, completion.text, format_name)}
                for w in outcome.warnings]
    return {
        "response": completion.text,
        "finish_reason": completion.finish_reason,
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "seconds": round(completion.seconds, 2),
        "blocks": blocks,
        "warnings": warnings,
        # blocks still open when the answer ended (a live response document's "pending")
        "pending": [{key: p.get(key) for key in ("index", "file", "format", "responseLine")}
                    for p in outcome.pending],
        "stream": outcome.stream.as_dict() if outcome.stream else None,
        "compliant": compliant(blocks, format_name),
        "applied_all": applied_all(blocks),
        "editor_applied": outcome.result.get("applied"),
        "whole_file_answers": whole_file_answers(completion.text, outcome.files_before),
        "check_passed": check_passed,
        "check_output": check_output,
    }


def retry_message(outcome: ServerOutcome, check_output: str) -> str:
    """The next user turn: the server's feedback, plus the check's verdict when no block
    failed (then the feedback has nothing to correct, yet the change is not right)."""
    failed = any(b.get("status") in ("failed", "skipped") for b in outcome.blocks)
    text = outcome.feedback.strip()
    if not failed:
        text += ("\n\nThe change is not right yet. The project's check says:\n```\n"
                 f"{check_output}\n```\nSend edit blocks that complete the request.")
    return text


async def _stream_into(run: ServerRun, endpoint: Endpoint, messages: list[dict[str, str]],
                       sampling: Sampling) -> Completion:
    """The model's streamed answer, each chunk sent on to ``run`` as it arrives: the HTTP
    stream is read in a thread, the chunks reach the server from the event loop in order."""
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[str | None] = asyncio.Queue()

    async def forward() -> None:
        while (chunk := await chunks.get()) is not None:
            await run.feed(chunk)

    forwarding = asyncio.create_task(forward())
    try:
        completion = await asyncio.to_thread(
            stream_chat, endpoint, messages, sampling,
            lambda chunk: loop.call_soon_threadsafe(chunks.put_nowait, chunk))
    finally:
        loop.call_soon_threadsafe(chunks.put_nowait, None)
        await forwarding
    return completion


async def _attempt(endpoint: Endpoint, messages: list[dict[str, str]], sampling: Sampling,
                   task: Task, workspace: Path, format_name: str, log_file: Path,
                   options: dict[str, Any] | None) -> tuple[dict[str, Any], ServerOutcome, str]:
    async with ServerRun(workspace, log_file=log_file, options=options) as run:
        completion = await _stream_into(run, endpoint, messages, sampling)
        outcome = await run.finish(completion.text)
    check = await asyncio.to_thread(run_check, task, workspace)
    record = attempt_record(completion, outcome, format_name, check.passed, check.output)
    return record, outcome, completion.text


async def run_episode(task: Task, format_name: str, system_prompt: str, endpoint: Endpoint,
                      sampling: Sampling, retries: int = 1,
                      options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every attempt at ``task`` in ``format_name`` (the first and up to ``retries`` more);
    ``options`` go to the server's commands (``formats`` for an opt-in format)."""
    messages = [{"role": "system", "content": system_prompt},
                {"role": "user", "content": user_message(task)}]
    attempts: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix=f"eval-{task.id}-") as tmp:
        workspace = task.copy_workspace(Path(tmp) / "ws")
        log_file = Path(tmp) / "server.log"
        for _ in range(1 + retries):
            record, outcome, response = await _attempt(endpoint, messages, sampling, task,
                                                       workspace, format_name, log_file, options)
            attempts.append(record)
            if record["check_passed"]:
                break
            messages += [{"role": "assistant", "content": response},
                         {"role": "user", "content": retry_message(outcome,
                                                                   record["check_output"])}]
    first = attempts[0]
    return {
        "task": task.id,
        "format": format_name,
        "options": options,
        "attempts": attempts,
        "compliant": first["compliant"],
        "applied": first["applied_all"],
        "success": first["check_passed"],
        "success_after_retry": attempts[-1]["check_passed"],
        "seconds": round(sum(a["seconds"] for a in attempts), 2),
        "completion_tokens": sum(a["completion_tokens"] or 0 for a in attempts),
    }
