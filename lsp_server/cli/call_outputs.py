"""``apply_patch_call_output`` items: the answer to each OpenAI ``apply_patch_call`` of the
response, as the Responses API takes it back (docs/cli.md "Answering apply_patch_call"):

    {"type": "apply_patch_call_output", "call_id": ..., "status": "completed" | "failed",
     "output": text}

A call is ``completed`` when its change is in the file after this run: applied, or already
applied (nothing was written, the file holds it). Anything else is ``failed``, its output the
block's reason with the line it names and the did-you-mean, so that the model can retry: a
failed or skipped block, one not run (``--blocks``), held back by ``--atomic``, or one whose
file could not be written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import click

from ..model import BlockResult, PlanResult

FORMAT = "apply-patch-call"
_DONE = ("applied", "already-applied")


def call_outputs(result: PlanResult, unwritten: Iterable[Path] = ()) -> list[dict]:
    """One output item per apply_patch_call block of ``result`` (in response order)."""
    not_written = frozenset(unwritten)
    return [_output(block, not_written) for block in result.blocks
            if block.format == FORMAT and block.call_id is not None]


def _output(block: BlockResult, unwritten: frozenset[Path]) -> dict:
    completed = block.status in _DONE and block.path not in unwritten
    return {"type": "apply_patch_call_output", "call_id": block.call_id,
            "status": "completed" if completed else "failed",
            "output": _completed_text(block) if completed else _failed_text(block, unwritten)}


def _completed_text(block: BlockResult) -> str:
    if block.status == "already-applied":
        return f"{block.file}: already applied (the file holds this change; nothing written)"
    return f"{block.file}: applied"


def _failed_text(block: BlockResult, unwritten: frozenset[Path]) -> str:
    if block.status in _DONE:
        return f"{block.file}: the file could not be written; nothing changed"
    if block.status == "validated":
        return (f"{block.file}: not written: another block failed and the run is "
                "all-or-nothing (--atomic)")
    if block.status == "excluded":
        return f"{block.file}: not run (only some blocks were asked for)"
    where = f" (line {block.line + 1})" if block.status == "failed" and block.line else ""
    text = f"{block.file}: {block.reason or block.status}{where}"
    return f"{text}\n{block.hint}" if block.hint else text


def print_call_outputs(result: PlanResult, unwritten: Iterable[Path] = ()) -> None:
    """The output items on stdout, one JSON line each (``apply --openai-output``)."""
    for item in call_outputs(result, unwritten):
        click.echo(json.dumps(item, ensure_ascii=False))


__all__ = ["call_outputs", "print_call_outputs"]
