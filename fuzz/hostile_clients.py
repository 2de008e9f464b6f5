"""Clients that misbehave, at random: the server side of issue 13's red-team categories.

Over stdio, against a real server, with invariants that hold for any input:

- **unreadable requests** (raw frames): params of the wrong shape for a real method,
  arguments nested ~990-3,000 deep, a body with invalid UTF-8, no or another ``jsonrpc``, a
  method that is not a string, a body cut short. Each has an id: it must get an error answer
  with that id.
- **diagnostics sent back mangled**: ``textDocument/codeAction`` with our diagnostic's
  ``data.runId``/``index`` replaced by random JSON: a result (a list), never an error.
- **editors answering workspace/applyEdit badly**: ``null``, ``{}``, random JSON, or no
  answer at all (a short ``applyEditTimeout``): ``llmEdits.apply`` answers with ``applied:
  false`` and a reason.

Used by ``run_fuzz.py``'s server phase; every problem is returned as a finding.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_server.testing.editor_session import EditorSession
from lsp_server.testing.wire_client import RawSession

RESPONSE = "a.txt\n<<<<<<< SEARCH\nalpha\n=======\nALPHA\n>>>>>>> REPLACE\n"
FAILING = "a.txt\n<<<<<<< SEARCH\nnot in the file\n=======\nx\n>>>>>>> REPLACE\n"
METHODS = ["workspace/executeCommand", "textDocument/codeAction", "initialize",
           "shutdown", "llmEdits/none", "textDocument/hover"]


@dataclass
class HostileReport:
    requests: int = 0
    code_actions: int = 0
    applies: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)  # (kind, the input)


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 7, 2**53, 1.5])
    if kind == 3:
        return rng.choice(["", "r", "llmEdits.preview", "\u202e", "\ud800"])
    if kind in (4, 5):
        return [_json_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    return {rng.choice(["runId", "index", "a", "command", "arguments"]): _json_value(
        rng, depth + 1) for _ in range(rng.randrange(3))}


def unreadable_request(rng: random.Random, msg_id: int | str) -> bytes:
    """One request, with id ``msg_id``, that the server cannot read as its method wants."""
    id_json = json.dumps(msg_id)
    kind = rng.randrange(6)
    if kind == 0:  # params of the wrong shape
        params = json.dumps(_json_value(rng))
        return (f'{{"jsonrpc":"2.0","id":{id_json},"method":"{rng.choice(METHODS[:2])}",'
                f'"params":{params if params.startswith("[") else "[" + params + "]"}}}'
                ).encode()
    if kind == 1:  # nested too deep, the id before or after
        depth = rng.randrange(990, 3000)
        deep = "[" * depth + "]" * depth
        fields = [f'"id":{id_json}', '"jsonrpc":"2.0"', '"method":"workspace/executeCommand"',
                  f'"params":{{"command":"llmEdits.preview","arguments":{deep}}}']
        rng.shuffle(fields)
        return ("{" + ",".join(fields) + "}").encode()
    if kind == 2:  # invalid UTF-8 inside a string
        body = (f'{{"jsonrpc":"2.0","id":{id_json},"method":"workspace/executeCommand",'
                f'"params":{{"command":"llmEdits.parse","arguments":[{{"response":"XX"}}]}}}}')
        return body.encode().replace(b"XX", bytes([rng.choice([0xff, 0xc3, 0xed, 0x80])]))
    if kind == 3:  # no jsonrpc, or another one
        version = rng.choice(["", ',"jsonrpc":"1.0"', ',"jsonrpc":2'])
        return f'{{"id":{id_json},"method":"shutdown"{version}}}'.encode()
    if kind == 4:  # a method that is not a string
        method = json.dumps(_json_value(rng))
        method = method if not method.startswith('"') else "5"
        return f'{{"jsonrpc":"2.0","id":{id_json},"method":{method}}}'.encode()
    body = (f'{{"jsonrpc":"2.0","id":{id_json},"method":"workspace/executeCommand",'
            f'"params":{{"command":"llmEdits.preview","arguments":[{{"response":"x"}}]}}}}')
    return body[:rng.randrange(len(body) - 40, len(body) - 1)].encode()  # cut short


async def _unreadable_requests(root: Path, rng: random.Random, count: int,
                               report: HostileReport) -> None:
    session = await RawSession.start(root)
    try:
        for n in range(count):
            msg_id: int | str = n if rng.random() < 0.5 else f"hostile-{n}"
            body = unreadable_request(rng, msg_id)
            session.send(body)
            report.requests += 1
            try:
                answer = await session.answer(msg_id, timeout=120)
            except (asyncio.TimeoutError, asyncio.IncompleteReadError, EOFError) as exc:
                report.problems.append((f"request without an answer ({type(exc).__name__})",
                                        body[:300].decode("utf-8", "replace")))
                if not session.alive():
                    return
                continue
            if "error" not in answer:
                report.problems.append(("unreadable request answered with a result",
                                        body[:300].decode("utf-8", "replace")))
    finally:
        await session.stop()


async def _mangled_code_actions(editor: EditorSession, rng: random.Random, count: int,
                                report: HostileReport) -> None:
    result = await editor.run("llmEdits.preview", {"response": FAILING})
    diagnostics = editor.client.diagnostics.get(editor.uri("a.txt"), [])
    if not diagnostics:
        report.problems.append(("no diagnostic to send back", FAILING))
        return
    ours = diagnostics[0]
    for _ in range(count):
        data = rng.choice([
            {"runId": _json_value(rng), "index": _json_value(rng)},
            {"runId": result["runId"], "index": _json_value(rng)},
            _json_value(rng)])
        sent = types.Diagnostic(range=ours.range, message=ours.message, source=ours.source,
                                code=ours.code, data=data)
        report.code_actions += 1
        try:
            actions = await asyncio.wait_for(editor.client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=editor.uri("a.txt")),
                    range=ours.range, context=types.CodeActionContext(diagnostics=[sent]))),
                120)
        except Exception as exc:
            report.problems.append((f"codeAction with mangled data: {type(exc).__name__}",
                                    json.dumps(data, default=repr)[:300]))
            continue
        if actions is not None and not isinstance(actions, (list, tuple)):
            report.problems.append(("codeAction answered with a non-list",
                                    json.dumps(data, default=repr)[:300]))


async def _bad_apply_answers(root: Path, rng: random.Random, count: int,
                             report: HostileReport) -> None:
    answers: list[Any] = []
    never = asyncio.Event()

    async def answer(params: types.ApplyWorkspaceEditParams) -> Any:
        given = answers.pop(0) if answers else None
        if given == "never":
            await never.wait()
            return {"applied": True}
        return given

    editor = EditorSession(root, answer_apply_edit=answer)
    await editor.start()
    try:
        editor.open("a.txt", "alpha\nbeta\n")
        for _ in range(count):
            given = rng.choice([None, {}, "never", {"applied": "false"}, _json_value(rng)])
            answers.append(given)
            report.applies += 1
            try:
                result = await editor.run("llmEdits.apply", {
                    "response": RESPONSE, "options": {"applyEditTimeout": 0.5}}, timeout=120)
            except Exception as exc:
                report.problems.append((f"apply with a bad answer: {type(exc).__name__}",
                                        json.dumps(given, default=repr)[:300]))
                continue
            if result.get("applied") is not False or not result.get("failureReason"):
                report.problems.append(("a bad applyEdit answer read as applied",
                                        json.dumps(given, default=repr)[:300]))
        never.set()
        await _mangled_code_actions(editor, rng, count, report)
        if not await editor.ping():
            report.problems.append(("server not answering after the hostile client", ""))
    finally:
        await editor.stop()


async def run_hostile_clients(root: Path, *, examples: int, seed: int) -> HostileReport:
    """``examples`` unreadable requests, and a tenth as many bad applyEdit answers and
    mangled code actions, against servers over ``root`` (which needs ``a.txt``)."""
    rng = random.Random(seed)
    report = HostileReport()
    (root / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    await _unreadable_requests(root, rng, examples, report)
    await _bad_apply_answers(root, rng, max(1, examples // 10), report)
    return report
