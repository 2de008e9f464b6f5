"""The long fuzzing run: hostile responses through the engine, garbage through the server,
the stale-buffer load scenario, and the size limits, with time and peak memory.

    .venv/bin/python -m fuzz.run_fuzz                      # everything, 100,000 responses
    .venv/bin/python -m fuzz.run_fuzz --examples 5000 --skip-limits   # a quick pass

Phases (each can be skipped):

1. engine: ``--examples`` responses from :func:`fuzz.harness.responses`, in chunks of
   ``--chunk`` (one Hypothesis run per chunk, seeded ``--seed`` + chunk number, so a failure
   can be replayed), each parsed, planned and converted by :func:`fuzz.harness.
   check_response` against a hostile workspace whose disk is compared before and after.
   Broken invariants are collected (smallest response per kind, saved under ``--out``), not
   raised, so one bug does not stop the run.
2. server: ``--server-examples`` commands with random JSON arguments over one LSP
   connection: only results or InvalidParams errors, the server alive at the end; then as
   many requests it cannot read (each must be answered with an error) and a tenth as many
   bad answers to workspace/applyEdit and mangled diagnostics sent back in codeAction
   (:mod:`fuzz.hostile_clients`).
3. load: ``--load-commands`` previews/applies over one connection while buffers change
   (:func:`fuzz.load.run_load`); prints p50/p99 latencies.
4. limits: a ~50 MB response of 900,000 blocks, a 16 MiB one of 290,000 and one 50 MB
   line, a 1,000,000-line file, a 100,000-line block and a 2,500,000-line block, through the
   engine without limits (time, peak RSS of a child process each), and the two dense
   responses through the server with its default limits (time, the server's peak RSS).

Exit status 1 if any invariant broke. On the reference machine (2 cores, shared) 100,000
responses take about 40-60 minutes; see the README "Safety" section for the last numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import resource
import sys
import tempfile
import time
import traceback
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from fuzz.harness import (
    COMMANDS,
    HostileWorkspace,
    check_response,
    command_arguments,
    json_values,
    responses,
)


def peak_rss_mb() -> float:
    """Peak resident memory of this process (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def process_peak_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class Findings:
    """Broken invariants by kind, keeping the smallest response of each."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.counts: collections.Counter[str] = collections.Counter()
        self.examples: dict[str, str] = {}

    def add(self, problem: str, text: str) -> None:
        kind = problem[:100]
        if kind not in self.counts:  # say it at once: the run may take an hour
            print(f"  NEW PROBLEM: {problem[:300]}\n    response: {text[:300]!r}", flush=True)
        self.counts[kind] += 1
        if kind not in self.examples or len(text) < len(self.examples[kind]):
            self.examples[kind] = text

    def save(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        with open(self.out / "findings.json", "w", encoding="utf-8") as fh:
            json.dump([{"problem": k, "count": n, "response": self.examples[k]}
                       for k, n in self.counts.most_common()], fh, indent=1)

    def __bool__(self) -> bool:
        return bool(self.counts)


# ------------------------------------------------------------------ 1. engine


def engine_phase(args: argparse.Namespace, findings: Findings) -> dict:
    ws = HostileWorkspace.create(Path(tempfile.mkdtemp(prefix="llm-edits-fuzz-")))
    before = ws.snapshot()
    done = 0
    slowest = (0.0, 0.0, "")  # wall seconds, CPU seconds, the response
    sizes = collections.Counter()
    started = time.perf_counter()
    chunks = (args.examples + args.chunk - 1) // args.chunk
    for chunk in range(chunks):
        count = min(args.chunk, args.examples - done)

        @seed(args.seed + chunk)
        @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(text=responses(ws, huge=args.huge), matching=st.sampled_from(["exact",
                                                                               "whitespace"]),
               atomic=st.booleans())
        def one(text: str, matching: str, atomic: bool) -> None:
            nonlocal done, slowest
            done += 1
            sizes["chars"] += len(text)
            t0, cpu0 = time.perf_counter(), time.process_time()
            try:
                problems = check_response(ws, text, matching=matching, atomic=atomic,
                                          before=before if done % args.disk_every == 0
                                          else None)
            except Exception as exc:  # an exception escaped: the worst finding
                frame = traceback.extract_tb(exc.__traceback__)[-1]
                problems = [f"exception {type(exc).__name__} at "
                            f"{Path(frame.filename).name}:{frame.lineno}: {exc}"[:300]]
            elapsed = time.perf_counter() - t0
            if elapsed > slowest[0]:
                slowest = (elapsed, time.process_time() - cpu0, text)
            for problem in problems:
                findings.add(problem, text)

        one()
        rate = done / (time.perf_counter() - started)
        print(f"  engine: {done}/{args.examples} responses, {rate:.0f}/s, "
              f"{sum(findings.counts.values())} problems, peak RSS {peak_rss_mb():.0f} MB",
              flush=True)
    if ws.snapshot() != before:
        findings.add("the workspace or the outside folder changed on disk", "")
    # Kept for replay: on a shared machine the wall time may be someone else's (compare CPU).
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "slowest.txt").write_text(slowest[2], encoding="utf-8", errors="surrogatepass")
    return {"responses": done, "seconds": round(time.perf_counter() - started, 1),
            "mean_chars": sizes["chars"] // max(1, done),
            "slowest_seconds": round(slowest[0], 3), "slowest_cpu_seconds": round(slowest[1], 3),
            "slowest_chars": len(slowest[2]),
            "peak_rss_mb": round(peak_rss_mb())}


# ------------------------------------------------------------------ 2. server


def server_phase(args: argparse.Namespace, findings: Findings) -> dict:
    from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

    from lsp_server.testing.editor_session import EditorSession

    ws = HostileWorkspace.create(Path(tempfile.mkdtemp(prefix="llm-edits-fuzz-server-")))
    loop = asyncio.new_event_loop()
    editor = EditorSession(ws.root)
    loop.run_until_complete(editor.start())
    editor.open("a.txt")
    outcomes: collections.Counter[str] = collections.Counter()
    started = time.perf_counter()

    @seed(args.seed)
    @settings(max_examples=args.server_examples, deadline=None, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(command=st.sampled_from(COMMANDS), argument=command_arguments(),
           raw=st.one_of(st.none(), st.lists(json_values, max_size=3)))
    def call(command: str, argument: object, raw: list | None) -> None:
        try:
            loop.run_until_complete(editor.run(command, argument, raw_arguments=raw,
                                               timeout=120))
            outcomes["result"] += 1
        except JsonRpcException as exc:
            if exc.code == JsonRpcInvalidParams.CODE:
                outcomes["invalid params"] += 1
            else:
                outcomes[f"error {exc.code}"] += 1
                findings.add(f"server: {command} answered error {exc.code}: {exc.message}"[:200],
                             json.dumps([argument, raw], default=repr))
        except Exception as exc:
            outcomes["no answer"] += 1
            findings.add(f"server: {command} got no answer: {type(exc).__name__}",
                         json.dumps([argument, raw], default=repr))

    try:
        call()
        alive = loop.run_until_complete(editor.ping())
        server_peak = process_peak_mb(editor.pid)
    finally:
        loop.run_until_complete(editor.stop())
        loop.close()
    if not alive:
        findings.add("server: not answering after the garbage", "")
    print(f"  server: {dict(outcomes)}, alive={alive}", flush=True)
    hostile = _hostile_clients(args, ws.root, findings)
    return {"calls": sum(outcomes.values()), **outcomes, "alive": alive,
            "seconds": round(time.perf_counter() - started, 1), "server_peak_rss_mb": server_peak,
            "hostile_clients": hostile}


def _hostile_clients(args: argparse.Namespace, root: Path, findings: Findings) -> dict:
    """Clients that misbehave (fuzz/hostile_clients.py): unreadable requests, mangled
    diagnostics sent back, bad answers to workspace/applyEdit."""
    from fuzz.hostile_clients import run_hostile_clients

    started = time.perf_counter()
    report = asyncio.run(run_hostile_clients(root, examples=args.server_examples,
                                             seed=args.seed))
    for problem, sent in report.problems:
        findings.add(f"server (hostile client): {problem}"[:200], sent)
    print(f"  hostile clients: {report.requests} unreadable requests, {report.applies} bad "
          f"applyEdit answers, {report.code_actions} mangled code actions, "
          f"{len(report.problems)} problems", flush=True)
    return {"unreadable_requests": report.requests, "bad_apply_answers": report.applies,
            "mangled_code_actions": report.code_actions, "problems": len(report.problems),
            "seconds": round(time.perf_counter() - started, 1)}


# ------------------------------------------------------------------ 3. load


def load_phase(args: argparse.Namespace, findings: Findings) -> dict:
    from fuzz.load import percentile, run_load

    root = Path(tempfile.mkdtemp(prefix="llm-edits-load-"))
    try:
        report = asyncio.run(run_load(root, files=8, commands=args.load_commands,
                                      spread=args.load_commands / 30, seed=args.seed))
    except AssertionError as exc:
        findings.add(f"load: {exc}"[:200], "")
        return {"error": str(exc)}
    print("  load: " + report.summary(), flush=True)
    return {"commands": report.commands, "typed": report.typed, "applied": report.applied,
            "refused_stale": report.refused_stale, "failed": report.failed,
            "p50_ms": round(percentile(report.latencies, 0.5) * 1000),
            "p99_ms": round(percentile(report.latencies, 0.99) * 1000),
            "ping_p99_ms": round(percentile(report.pings, 0.99) * 1000)}


# ------------------------------------------------------------------ 4. limits


def _limit_case(name: str, text: str, root: Path) -> dict:
    """Parse and plan in a child process, so each case's peak RSS is its own."""
    import subprocess

    response = root / f"{name}.response"
    response.write_text(text, encoding="utf-8")
    code = (
        "import json, sys, time\n"
        "from pathlib import Path\n"
        "from lsp_server.parsing import parse_response\n"
        "from lsp_server.planning import plan_edits\n"
        "from lsp_server.workspace import read_disk_file\n"
        "text = Path(sys.argv[1]).read_text(encoding='utf-8')\n"
        "t0 = time.perf_counter()\n"
        "parsed = parse_response(text)\n"
        "t1 = time.perf_counter()\n"
        "plan = plan_edits(parsed, read_disk_file, [Path(sys.argv[2])])\n"
        "t2 = time.perf_counter()\n"
        "statuses = {}\n"
        "for b in plan.blocks: statuses[b.status] = statuses.get(b.status, 0) + 1\n"
        "reasons = sorted({b.reason[:90] for b in plan.blocks if b.reason})[:2]\n"
        # VmHWM, not ru_maxrss: Linux keeps ru_maxrss across exec, so a child would report
        # the parent's peak at fork time.
        "peak = next(int(l.split()[1]) // 1024 for l in open('/proc/self/status')\n"
        "            if l.startswith('VmHWM'))\n"
        "print(json.dumps({'parse_s': round(t1 - t0, 2), 'plan_s': round(t2 - t1, 2),\n"
        "  'blocks': len(parsed.blocks), 'warnings': len(parsed.warnings),\n"
        "  'statuses': statuses, 'reasons': reasons,\n"
        "  'peak_rss_mb': peak}))\n"
    )
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", code, str(response), str(root)],
                         capture_output=True, text=True, timeout=3600)
    response.unlink()
    if run.returncode != 0:
        return {"case": name, "error": run.stderr[-500:]}
    out = json.loads(run.stdout)
    out.update(case=name, response_mb=round(len(text.encode()) / 1e6, 1),
               wall_s=round(time.perf_counter() - started, 1))
    return out


def limits_phase(args: argparse.Namespace, findings: Findings) -> dict:
    root = Path(tempfile.mkdtemp(prefix="llm-edits-limits-"))
    (root / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    (root / "million.txt").write_text("".join(f"line {i}\n" for i in range(1_000_000)),
                                      encoding="utf-8")
    (root / "rows.txt").write_text("".join(f"row {i}\n" for i in range(100_000)),
                                   encoding="utf-8")
    block = "a.txt\n<<<<<<< SEARCH\nalpha\n=======\nALPHA\n>>>>>>> REPLACE\n"
    dense = block * (50_000_000 // len(block.encode()))
    # Just under the default maxResponseBytes (16 MiB): parsed, then refused by maxBlocks.
    dense_at_limit = block * (16 * 1024 * 1024 // len(block.encode()))
    cases = [
        ("50MB-response-900k-blocks", dense),
        ("16MiB-response-290k-blocks", dense_at_limit),
        ("50MB-single-line", "a.txt\n<<<<<<< SEARCH\n" + "x" * 50_000_000
         + "\n=======\ny\n>>>>>>> REPLACE\n"),
        ("1M-line-file-edit-at-end",
         "million.txt\n<<<<<<< SEARCH\nline 999998\n=======\nLAST\n>>>>>>> REPLACE\n"),
        ("1M-line-file-no-match",
         "million.txt\n<<<<<<< SEARCH\nline 99999x\nline 5\n=======\nx\n>>>>>>> REPLACE\n"),
        ("100k-line-block", "rows.txt\n<<<<<<< SEARCH\n"
         + "".join(f"row {i}\n" for i in range(100_000)) + "=======\n"
         + "".join(f"ROW {i}\n" for i in range(100_000)) + ">>>>>>> REPLACE\n"),
        ("2.5M-line-block-over-limit", "million.txt\n<<<<<<< SEARCH\n"
         + "".join(f"line {i % 4999}\n" for i in range(2_500_000)) + "=======\nx\n"
         + ">>>>>>> REPLACE\n"),
    ]
    results = []
    for name, text in cases:
        result = _limit_case(name, text, root)
        print(f"  limits: {result}", flush=True)
        if "error" in result:
            findings.add(f"limits: {name} crashed", result["error"])
        results.append(result)
    results.append(_server_big_response("server-50MB-response", dense, root, findings))
    results.append(_server_big_response("server-16MiB-response", dense_at_limit, root,
                                        findings))
    return {"cases": results}


def _server_big_response(name: str, text: str, root: Path, findings: Findings) -> dict:
    """A dense response over LSP with the default limits (refused by maxResponseBytes or,
    after parsing, by maxBlocks), with the server's peak RSS."""
    from pygls.exceptions import JsonRpcException

    from lsp_server.testing.editor_session import EditorSession

    async def go() -> dict:
        editor = EditorSession(root)
        await editor.start()
        started = time.perf_counter()
        try:
            try:
                await editor.run("llmEdits.preview", {"response": text}, timeout=3600)
                answer = "result"
            except JsonRpcException as exc:
                answer = exc.message[:160]
            seconds = time.perf_counter() - started
            alive = await editor.ping()
            return {"case": name, "answer": answer,
                    "seconds": round(seconds, 1), "alive": alive,
                    "server_peak_rss_mb": process_peak_mb(editor.pid)}
        finally:
            await editor.stop()

    result = asyncio.run(go())
    print(f"  limits: {result}", flush=True)
    if not result["alive"]:
        findings.add(f"limits: server dead after {name}", "")
    return result


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--chunk", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--huge", type=int, default=200_000,
                        help="longest generated line (characters)")
    parser.add_argument("--disk-every", type=int, default=10,
                        help="compare the disk with its snapshot every N responses")
    parser.add_argument("--server-examples", type=int, default=2_000)
    parser.add_argument("--load-commands", type=int, default=300)
    parser.add_argument("--skip-engine", action="store_true")
    parser.add_argument("--skip-server", action="store_true")
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--skip-limits", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "llm-edits-fuzz")
    args = parser.parse_args(argv)
    findings = Findings(args.out)
    report: dict = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "cpus": os.cpu_count()}
    started = time.perf_counter()
    phases = [("engine", engine_phase, args.skip_engine),
              ("server", server_phase, args.skip_server),
              ("load", load_phase, args.skip_load),
              ("limits", limits_phase, args.skip_limits)]
    for name, phase, skip in phases:
        if skip:
            continue
        print(f"{name} ...", flush=True)
        report[name] = phase(args, findings)
    report["seconds"] = round(time.perf_counter() - started, 1)
    report["problems"] = dict(findings.counts.most_common())
    findings.save()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(json.dumps(report, indent=1))
    print(f"report and findings in {args.out}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
