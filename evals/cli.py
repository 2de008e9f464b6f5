"""``evals/run``: run the task suite against a model in one or more edit formats.

    evals/run --format all                             # the local model scripts/setup-model made
    evals/run --format edit-v3 --only long-file,crlf-file --model other.gguf
    evals/run --format search-replace,unified-diff --endpoint http://127.0.0.1:8080/v1 \\
        --model-name qwen2.5-coder-7b-instruct
    evals/run --report evals/results/before.json      # the tables of an earlier run
    evals/run replay --target auto                    # the recorded answers, with a target

For each format and task: the system prompt is the server's ``llmEdits.instructions`` text for
the format (what ``llm-edits instructions F`` prints), the user turn the task's files and
request; the completion is streamed into a live response document of the real server (one
``didChange`` per chunk; a server without response documents gets the finished text), which
then parses, gives feedback for and applies it (``llmEdits.parse``, ``llmEdits.feedback``,
``llmEdits.apply``) on a copy of the workspace;
the task's check judges the result; on failure the feedback is the next user turn, once
(``--retry 0`` turns that off). Prints a table per format and writes everything as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import subprocess
import sys
import tempfile
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from .episode import run_episode
from .model import Endpoint, Sampling, default_model_path, default_threads, local_model
from .rejudge import rejudge
from .report import judgement_lines, summarise, table
from .tasks import TASKS_DIR, Task, load_tasks, run_check
from .through_server import instructions_from_server, run_through_server

ROOT = Path(__file__).resolve().parent.parent


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="evals/run", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--tasks", type=Path, default=TASKS_DIR, help="the task suite folder")
    p.add_argument("--only", default="", help="comma-separated task ids (default: all)")
    p.add_argument("--format", default="all", help="F[,F...] or all")
    p.add_argument("--model", type=Path, help="a GGUF file served locally (default: the one "
                   "scripts/setup-model assembled)")
    p.add_argument("--endpoint", help="an OpenAI-compatible base URL, e.g. http://host:8080/v1")
    p.add_argument("--model-name", default="local", help="the model name sent to --endpoint")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY",
                   help="environment variable holding the endpoint's API key, if it needs one")
    p.add_argument("--retry", type=int, default=1, help="retries with feedback (default 1)")
    p.add_argument("--threads", type=int, default=default_threads(),
                   help="llama.cpp threads for --model (default 1, or LLM_EDITS_MODEL_THREADS)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--max-tokens", type=int, default=1024)
    p.add_argument("--out", type=Path, help="JSON results file (default: a new file in "
                   "evals/results/, which is ignored by git)")
    p.add_argument("--label", default="", help="a name for this run, kept in the JSON")
    p.add_argument("--record", action="store_true", help="also save each first response as "
                   "tasks/<id>/recorded/<format>.json for the regression test")
    p.add_argument("--report", type=Path, nargs="+", help="print the tables of JSON results")
    p.add_argument("--update-recordings", action="store_true", help="replay every recorded "
                   "answer through today's server and write its outcome back (after a "
                   "deliberate change of behaviour that tests/real_model/test_regression.py "
                   "reports)")
    p.add_argument("--rejudge", action="store_true", help="with --report: judge the first "
                   "attempts again with today's judge (and write the files back)")
    return p


def _git_commit() -> str | None:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    return done.stdout.strip() or None


def _model_source(args: argparse.Namespace) -> tuple[AbstractContextManager[Endpoint], str]:
    if args.endpoint:
        key = os.environ.get(args.api_key_env) or None
        return nullcontext(Endpoint(args.endpoint, args.model_name, key)), args.model_name
    model = args.model or default_model_path()
    if model is None or not model.is_file():
        sys.exit("evals/run: no model: run scripts/setup-model, or give --model or --endpoint")
    log = Path(tempfile.gettempdir()) / "llm-edits-model-service.log"
    return local_model(model, threads=args.threads, seed=args.seed, log_file=log), model.name


def record_response(task: Task, episode: dict[str, Any], meta: dict[str, Any]) -> None:
    """Keep the first response and its outcome with the task (for tests/real_model)."""
    first = episode["attempts"][0]
    folder = task.path / "recorded"
    folder.mkdir(exist_ok=True)
    recorded = {
        "model": meta["model"], "sampling": meta["sampling"], "commit": meta["commit"],
        "format": episode["format"], "options": episode.get("options"),
        "response": first["response"],
        "blocks": [{"index": b["index"], "file": b["file"], "format": b["format"],
                    "status": b["status"], "reason": b["reason"]} for b in first["blocks"]],
        # as the finished text reports them (what the regression test replays): a block cut
        # short by the token limit is a warning there, and "pending" in a live document
        "warnings": len(first["warnings"]) + len(first.get("pending") or []),
        "check_passed": first["check_passed"],
        # the verdict as the model's answer got it; --update-recordings rewrites check_passed
        "check_passed_when_recorded": first["check_passed"],
    }
    (folder / f"{episode['format']}.json").write_text(
        json.dumps(recorded, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


async def update_recordings(tasks_dir: Path) -> None:
    """Replay each recording on a fresh copy of its task and keep today's outcome."""
    for recording in sorted(tasks_dir.glob("*/recorded/*.json")):
        recorded = json.loads(recording.read_text(encoding="utf-8"))
        task = Task(recording.parent.parent.name, recording.parent.parent)
        with tempfile.TemporaryDirectory() as tmp:
            workspace = task.copy_workspace(Path(tmp) / "ws")
            outcome = await run_through_server(workspace, recorded["response"],
                                               log_file=Path(tmp) / "server.log",
                                               options=recorded.get("options"))
            passed = run_check(task, workspace).passed
        blocks = [{"index": b["index"], "file": b["file"], "format": b["format"],
                   "status": b["status"], "reason": b["reason"]} for b in outcome.blocks]
        updated = {**recorded, "blocks": blocks,
                   "warnings": len(outcome.warnings) + len(outcome.pending),
                   "check_passed": passed}
        if updated != recorded:
            print(f"updated {recording.relative_to(tasks_dir)}")
            recording.write_text(json.dumps(updated, indent=1, ensure_ascii=False) + "\n",
                                 encoding="utf-8")


def _print_report(results: dict[str, Any]) -> None:
    summary = summarise(results["episodes"])
    meta = results["meta"]
    print(f"\n{meta.get('label') or 'run'}: {meta['model']}, {meta['tasks']} tasks, "
          f"commit {meta['commit']}, {meta.get('wall_seconds', '?')} s")
    print(table(summary))
    print(judgement_lines(summary))


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    tasks = load_tasks(args.tasks, [t for t in args.only.split(",") if t] or None)
    sampling = Sampling(seed=args.seed, max_tokens=args.max_tokens)
    source, model_name = _model_source(args)
    out = args.out or ROOT / "evals" / "results" / (
        datetime.datetime.now().strftime("%Y%m%d-%H%M%S") + ".json")
    out.parent.mkdir(parents=True, exist_ok=True)
    started = datetime.datetime.now()
    with tempfile.TemporaryDirectory() as tmp:
        formats = await _formats(args.format, Path(tmp))
        prompts = await instructions_from_server(Path(tmp), formats, log_file=Path(tmp) / "log")
        options = await _detection_options(formats, prompts, Path(tmp))
    meta = {"label": args.label, "model": model_name, "endpoint": bool(args.endpoint),
            "threads": None if args.endpoint else args.threads, "commit": _git_commit(),
            "sampling": vars(sampling), "retries": args.retry, "tasks": len(tasks),
            "formats": formats, "started": started.isoformat(timespec="seconds"),
            "detection": options, "system_prompts": prompts}
    results: dict[str, Any] = {"meta": meta, "episodes": []}
    with source as endpoint:
        for name in formats:
            for task in tasks:
                try:
                    episode = await run_episode(task, name, prompts[name], endpoint, sampling,
                                                retries=args.retry, options=options[name])
                except Exception as exc:  # a crashed server or endpoint: keep the run going
                    results.setdefault("errors", []).append(
                        {"task": task.id, "format": name, "error": repr(exc)})
                    print(f"{name:15} {task.id:24} ERROR {exc!r}", flush=True)
                    continue
                results["episodes"].append(episode)
                print(f"{name:15} {task.id:24} compliant={episode['compliant']!s:5} "
                      f"applied={episode['applied']!s:5} success={episode['success']!s:5} "
                      f"after-retry={episode['success_after_retry']!s:5} "
                      f"{episode['seconds']:.0f}s", flush=True)
                if args.record:
                    record_response(task, episode, meta)
                meta["wall_seconds"] = round((datetime.datetime.now() - started)
                                             .total_seconds())
                results["summary"] = summarise(results["episodes"])
                out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n",
                               encoding="utf-8")
    print(f"results: {out}")
    return results


async def _formats(spec: str, workspace: Path) -> list[str]:
    if spec != "all":
        return [name.strip() for name in spec.split(",") if name.strip()]
    from lsp_server.testing.editor_session import EditorSession

    session = EditorSession(workspace, log_file=workspace / "formats.log")
    await session.start()
    try:
        return list((await session.run("llmEdits.instructions", {}))["formats"])
    finally:
        await session.stop()


async def _detection_options(formats: list[str], prompts: dict[str, str], workspace: Path
                             ) -> dict[str, dict[str, Any] | None]:
    """Server options per asked format: none (the server's default detection), except for a
    format the server detects only when asked (opt-in, such as whole-file): its own example
    yields no block of it by default, so every format the server knows is turned on."""
    from lsp_server.testing.editor_session import EditorSession

    session = EditorSession(workspace, log_file=workspace / "detect.log")
    await session.start()
    try:
        known = list((await session.run("llmEdits.instructions", {}))["formats"])
        options: dict[str, dict[str, Any] | None] = {}
        for name in formats:
            parsed = await session.run("llmEdits.parse", {"response": prompts[name]})
            found = {block["format"] for block in parsed["blocks"]}
            options[name] = None if name in found else {"formats": sorted({*known, name})}
        return options
    finally:
        await session.stop()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["replay"]:  # evals/run replay ...: the recorded answers, no model
        from .replay import main as replay_main

        return replay_main(argv[1:])
    args = _parser().parse_args(argv)
    for name in ("tasks", "model", "out"):
        if getattr(args, name) is not None:
            setattr(args, name, getattr(args, name).resolve())
    args.report = [path.resolve() for path in args.report or []]
    # The server starts as `python -m lsp_server`, which puts the current directory first on
    # sys.path: from a neutral directory, PYTHONPATH decides which copy of the code runs (and
    # a checkout's own copy is found through the installed package as usual).
    os.chdir(tempfile.gettempdir())
    if args.update_recordings:
        asyncio.run(update_recordings(args.tasks))
        return 0
    if args.report:
        for path in args.report:
            results = json.loads(path.read_text(encoding="utf-8"))
            if args.rejudge:
                asyncio.run(rejudge(results, args.tasks))
                results["summary"] = summarise(results["episodes"])
                path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n",
                                encoding="utf-8")
            _print_report(results)
        return 0
    _print_report(asyncio.run(_run(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
