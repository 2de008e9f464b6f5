#!/usr/bin/env python3
"""Run every benchmark and print one table (see docs/benchmarks.md).

usage: python -m bench.run_all [--no-aider] [--no-codex] [--only N[,N...]] [--json FILE]
                               [--markdown]

The first run creates bench/.venv-aider (aider-chat, for the parser baseline; about 1.5 min)
and fetches Codex's apply_patch binary into bench/.codex (npm pack, 167 MB; benchmark 7);
later runs reuse both and the whole run takes about 3-4 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent

try:
    import lsp_server  # noqa: F401 - the interpreter must have the project installed
except ImportError:
    venv_python = PROJECT_ROOT / ".venv" / "bin" / "python"
    if venv_python.exists() and Path(sys.executable) != venv_python:
        os.execv(str(venv_python), [str(venv_python), "-m", "bench.run_all", *sys.argv[1:]])
    raise

from bench.benchmarks import (  # noqa: E402 - after the interpreter check above
    Row,
    bench_diagnosis,
    bench_latency,
    bench_locating,
    bench_memory,
    bench_parse,
    bench_preview_scale,
)
from bench.codex_bench import bench_codex  # noqa: E402
from bench.generate import make_response, make_workspace  # noqa: E402
from bench.machine_speed import loop_step_ns  # noqa: E402
from bench.streaming import bench_streaming  # noqa: E402


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def machine() -> dict[str, str]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "-C", str(PROJECT_ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(PROJECT_ROOT), "status", "--porcelain", "--",
                                "lsp_server"], capture_output=True, text=True).stdout.strip()
        if dirty:
            commit += " + uncommitted lsp_server changes"
    except OSError:
        commit = "?"
    return {
        "cpus": str(len(os.sched_getaffinity(0))),
        "cpu": model,
        "python": platform.python_version(),
        "os": platform.platform(),
        "commit": commit,
        "load": load_average(),
    }


def format_table(rows: list[Row], markdown: bool) -> str:
    def verdict(row: Row) -> str:
        return "" if row.met is None else ("met" if row.met else "NOT MET")

    header = ("benchmark", "measure", "result", "target", "", "notes")
    cells = [(r.benchmark, r.measure, r.value, r.target, verdict(r), r.note) for r in rows]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
        return "\n".join(lines)
    widths = [max(len(str(c[i])) for c in [header, *cells]) for i in range(len(header) - 1)]
    lines = []
    for row in [header, *cells]:
        padded = [str(c).ljust(w) for c, w in zip(row[:-1], widths, strict=True)]
        lines.append("  ".join([*padded, row[-1]]))
    return "\n".join(line.rstrip() for line in lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--no-aider", action="store_true", help="skip the aider parser baseline")
    ap.add_argument("--no-codex", action="store_true",
                    help="benchmark 7 without the Codex apply_patch baseline")
    ap.add_argument("--only", default="1,2,3,4,5,6,7,8", help="benchmarks to run, e.g. 1,4")
    ap.add_argument("--json", type=Path, help="also write rows and machine info to this file")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args()
    only = {int(n) for n in args.only.split(",") if n.strip()}

    started = time.perf_counter()
    info = machine()
    info["loop_step_ns"] = f"{loop_step_ns():.1f}"
    print(f"machine: {info['cpus']} CPUs, {info['cpu']}, Python {info['python']}, "
          f"commit {info['commit']}, load average {info['load']}, "
          f"{info['loop_step_ns']} ns per Python loop step", flush=True)
    rows: list[Row] = []

    def add(new: list[Row]) -> None:
        rows.extend(new)
        for r in new:
            print(f"  {r.benchmark}: {r.measure}: {r.value}"
                  + (f" [{'met' if r.met else 'NOT MET'}: {r.target}]" if r.met is not None else "")
                  + (f" ({r.note})" if r.note else ""), flush=True)

    ws = response = None
    if only & {1, 5}:
        ws = make_workspace(200, 5000)
        response = make_response(ws, target_bytes=10_000_000)
        print(f"generated: 200 files x 5,000 lines; response {len(response.text.encode()):,} "
              f"bytes, {response.blocks:,} blocks {response.per_format}", flush=True)
    if 1 in only:
        add(bench_parse(response, aider=not args.no_aider))
    if 2 in only:
        add(bench_preview_scale())
    if 3 in only:
        add(bench_latency())
    if 4 in only:
        add(bench_diagnosis())
    if 5 in only:
        add(bench_memory(response, ws))
    if 6 in only:
        add(bench_locating())
    if 7 in only:
        add(bench_codex(codex=not args.no_codex))
    if 8 in only:
        add(bench_streaming())

    elapsed = time.perf_counter() - started
    print()
    print(format_table(rows, args.markdown))
    met = [r for r in rows if r.met is not None]
    info["load_after"] = load_average()
    info["loop_step_ns_after"] = f"{loop_step_ns():.1f}"
    print(f"\n{sum(r.met for r in met)}/{len(met)} targets met; total run {elapsed:.0f} s; "
          f"load average {info['load']} before, {info['load_after']} after; "
          f"{info['loop_step_ns']} / {info['loop_step_ns_after']} ns per Python loop step "
          f"before / after (figures are only comparable on an otherwise idle machine of the "
          f"same speed)")
    if args.json:
        args.json.write_text(json.dumps({"machine": info, "seconds": elapsed,
                                         "rows": [asdict(r) for r in rows]}, indent=1))


if __name__ == "__main__":
    main()
