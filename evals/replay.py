"""``evals/run replay``: every recorded answer through today's server, with and without a target.

The recordings (``tasks/<id>/recorded/<format>.json``, the local model's first answers) are
replayed as finished text on a fresh copy of their task's files, and the task's check judges
the result. Two modes:

- ``none``: the server's default detection (plus an opt-in format the recording asked for,
  such as whole-file), no target: what a user gets pasting the answer into a response;
- ``auto``: the same, with ``options.target`` set to the task's file when the prompt showed
  exactly one file, as "apply to the active editor" would (tasks with several files get none).

Besides the checks passed, each answer's bookkeeping: a *fence-only* answer holds at least
one code fence and no block of any format but ``code-block`` (what the engine read before
code blocks existed: nothing). Every answer ends in one of four outcomes: ``applied`` (a
block, every block matched), ``failed`` (a block failed or was skipped, with its reason),
``refused`` (no block, a warning says why) and ``ignored`` (no block and not a word).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lsp_server.formats import DEFAULT_FORMAT_NAMES
from lsp_server.testing.editor_session import EditorSession

from .judge import OK_STATUSES
from .tasks import TASKS_DIR, Task, load_tasks, run_check

MODES = ("none", "auto")
OUTCOMES = ("applied", "failed", "refused", "ignored")
CODE_BLOCK = "code-block"
# A fence's opening line (Markdown: three or more backticks or tildes at a line's start).
_FENCE_OPENING = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.M)


@dataclass
class Replay:
    """One recorded answer replayed in one mode."""

    task: str
    format: str  # the format the model was asked for
    mode: str
    target: str | None
    fence_only: bool
    outcome: str  # one of OUTCOMES
    check_passed: bool
    recorded_passed: bool
    blocks: list[dict[str, Any]] = field(default_factory=list)  # format, file, status, reason
    warnings: list[str] = field(default_factory=list)


def target_for(task: Task) -> str | None:
    """The task's file when the prompt shows exactly one (the active editor's), else None."""
    files = list(task.files())
    return files[0] if len(files) == 1 else None


def options_for(recorded: dict[str, Any] | None, *, target: str | None,
                legacy: bool = False) -> dict[str, Any]:
    """Today's default formats plus any the recording asked for (an opt-in such as
    whole-file); ``legacy`` leaves ``code-block`` out (the engine before code blocks)."""
    asked = (recorded or {}).get("formats") or []
    formats = [*DEFAULT_FORMAT_NAMES, *(name for name in asked
                                        if name not in DEFAULT_FORMAT_NAMES)]
    if legacy:
        formats = [name for name in formats if name != CODE_BLOCK]
    options: dict[str, Any] = {"formats": formats}
    if target is not None:
        options["target"] = target
    return options


def has_fence(response: str) -> bool:
    return _FENCE_OPENING.search(response) is not None


def outcome_of(blocks: list[dict[str, Any]], warnings: list[str]) -> str:
    """The answer's outcome (see the module docstring) from the apply's blocks and warnings."""
    if blocks:
        return "applied" if all(b["status"] in OK_STATUSES for b in blocks) else "failed"
    return "refused" if warnings else "ignored"


def _block_record(block: dict[str, Any]) -> dict[str, Any]:
    return {key: block.get(key) for key in ("format", "file", "status", "reason")}


async def _replay_one(session: EditorSession, task: Task, workspace: Path,
                      recorded: dict[str, Any], mode: str) -> Replay:
    target = target_for(task) if mode == "auto" else None
    shutil.rmtree(workspace, ignore_errors=True)
    task.copy_workspace(workspace)
    response = recorded["response"]
    legacy = await session.run("llmEdits.parse", {
        "response": response, "options": options_for(recorded.get("options"), target=None,
                                                     legacy=True)})
    result = await session.run("llmEdits.apply", {
        "response": response, "options": options_for(recorded.get("options"), target=target)})
    blocks = [_block_record(b) for b in result.get("blocks") or []]
    warnings = [w.get("message") or "" for w in result.get("warnings") or []]
    passed = await asyncio.to_thread(lambda: run_check(task, workspace).passed)
    return Replay(task.id, recorded["format"], mode, target,
                  fence_only=has_fence(response) and not (legacy.get("blocks") or []),
                  outcome=outcome_of(blocks, warnings), check_passed=passed,
                  recorded_passed=bool(recorded.get("check_passed_when_recorded",
                                                    recorded.get("check_passed"))),
                  blocks=blocks, warnings=warnings)


async def replay_task(task: Task, modes: tuple[str, ...] = MODES,
                      formats: list[str] | None = None) -> list[Replay]:
    """Every recording of ``task`` (of ``formats``, default all) in every mode, through one
    server rooted at a scratch copy of the task's files (fresh for each answer)."""
    recordings = sorted((task.path / "recorded").glob("*.json"))
    if formats:
        recordings = [r for r in recordings if r.stem in formats]
    if not recordings:
        return []
    with tempfile.TemporaryDirectory(prefix=f"replay-{task.id}-") as tmp:
        workspace = task.copy_workspace(Path(tmp) / "ws")
        session = EditorSession(workspace, log_file=Path(tmp) / "server.log")
        await session.start()
        try:
            replays = []
            for recording in recordings:
                recorded = json.loads(recording.read_text(encoding="utf-8"))
                for mode in modes:
                    replays.append(await _replay_one(session, task, workspace, recorded, mode))
            return replays
        finally:
            await session.stop()


async def replay_all(tasks: list[Task], modes: tuple[str, ...] = MODES,
                     formats: list[str] | None = None) -> list[Replay]:
    replays: list[Replay] = []
    for task in tasks:
        replays += await replay_task(task, modes, formats)
    return replays


def summarise(replays: list[Replay]) -> dict[str, dict[str, Any]]:
    """Per mode: answers, checks passed (and as recorded), outcomes of all answers and of the
    fence-only ones (split by whether the answer had a target), passes per asked format."""
    summary: dict[str, dict[str, Any]] = {}
    for mode in dict.fromkeys(r.mode for r in replays):
        runs = [r for r in replays if r.mode == mode]
        fenced = [r for r in runs if r.fence_only]
        summary[mode] = {
            "answers": len(runs),
            "passed": sum(r.check_passed for r in runs),
            "recorded_passed": sum(r.recorded_passed for r in runs),
            "outcomes": _count(r.outcome for r in runs),
            "fence_only": len(fenced),
            "fence_only_with_target": _count(r.outcome for r in fenced if r.target),
            "fence_only_without_target": _count(r.outcome for r in fenced if not r.target),
            "fence_only_passed": sum(r.check_passed for r in fenced),
            "passed_by_format": dict(sorted(Counter(r.format for r in runs
                                                    if r.check_passed).items())),
            "recorded_passed_by_format": dict(sorted(Counter(
                r.format for r in runs if r.recorded_passed).items())),
            "answers_by_format": dict(sorted(Counter(r.format for r in runs).items())),
        }
    return summary


def _count(outcomes: Any) -> dict[str, int]:
    counted = Counter(outcomes)
    return {name: counted[name] for name in OUTCOMES}


def report(summary: dict[str, dict[str, Any]]) -> str:
    """The summary as Markdown: a row per mode, then the checks passed per asked format."""
    lines = ["| target | answers | checks passed | applied | failed | refused | ignored "
             "| fence-only (with a target) | fence-only applied / failed / refused / ignored |",
             "|---|---|---|---|---|---|---|---|---|"]
    for mode, s in summary.items():
        o, f = s["outcomes"], s["fence_only_with_target"]
        with_target = sum(f.values())
        lines.append(f"| {mode} | {s['answers']} | {s['passed']} (recorded: "
                     f"{s['recorded_passed']}) | {o['applied']} | {o['failed']} | "
                     f"{o['refused']} | {o['ignored']} | {s['fence_only']} ({with_target}) | "
                     f"{f['applied']} / {f['failed']} / {f['refused']} / {f['ignored']} |")
    return "\n".join(lines) + "\n\n" + _format_table(summary)


def _format_table(summary: dict[str, dict[str, Any]]) -> str:
    """Checks passed per asked format: as recorded, then in each mode replayed."""
    modes = list(summary)
    first = summary[modes[0]] if modes else {"answers_by_format": {}}
    lines = ["| asked format | answers | passed when recorded | "
             + " | ".join(f"passed, target {mode}" for mode in modes) + " |",
             "|---" * (3 + len(modes)) + "|"]
    for name, n in first["answers_by_format"].items():
        recorded = first["recorded_passed_by_format"].get(name, 0)
        passed = " | ".join(str(summary[mode]["passed_by_format"].get(name, 0))
                            for mode in modes)
        lines.append(f"| `{name}` | {n} | {recorded} | {passed} |")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="evals/run replay", description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", type=Path, default=TASKS_DIR, help="the task suite folder")
    p.add_argument("--only", default="", help="comma-separated task ids (default: all)")
    p.add_argument("--format", default="", help="only the recordings of these asked formats")
    p.add_argument("--target", choices=("both", *MODES), default="both",
                   help="auto: the task's file when the prompt shows one; none: no target")
    p.add_argument("--out", type=Path, help="also write every replay and the summary as JSON")
    return p


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    out = args.out.resolve() if args.out else None
    tasks_dir = args.tasks.resolve()
    os.chdir(tempfile.gettempdir())  # the server's `python -m` path: see evals/cli.py's main
    tasks = load_tasks(tasks_dir, [t for t in args.only.split(",") if t] or None)
    modes = MODES if args.target == "both" else (args.target,)
    formats = [f for f in args.format.split(",") if f] or None
    replays = asyncio.run(replay_all(tasks, modes, formats))
    summary = summarise(replays)
    print(report(summary))
    if out:
        out.write_text(json.dumps({"summary": summary,
                                        "replays": [asdict(r) for r in replays]},
                                       indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
