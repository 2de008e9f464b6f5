#!/usr/bin/env python3
"""Count the user-space instructions of the key benchmark workloads, for one checkout or two.

usage: python -m bench.instructions [--root DIR] [--only NAME,...] [--json FILE]
                                    [--counter perf|callgrind]
       python -m bench.instructions --compare DIR_A DIR_B [...]

DIR is a checkout of the project (default: this one). Its code is put first on PYTHONPATH of
every measured process, so the same workloads, on the same generated inputs, run against the
code of each checkout; only the public API is used (``parse_response``, ``plan_edits``,
``plan_response``, ``python -m lsp_server``, ``lsp_server.cli:main``), so any version of the
layout works.

Instruction counts do not drift with the machine's speed or load the way times do (this VM's
speed varies by up to 2x from minute to minute), so they are what before/after claims are
stated in. The counter is ``perf stat -e instructions:u`` when the CPU's counters are
available, else valgrind's callgrind (``Ir``: about 50x slower to run, and counts differ a
little from perf's, so compare only figures from the same counter). Without either:
``apt-get install -y valgrind``.

In-process and server workloads are counted twice, with 0 and N repeats after the same
set-up and warm-up, and the difference divided by N: the steady-state cost of one call.
CLI workloads count the whole process (start-up and imports included: that is what a user
waits for). Bytecode is compiled into bench/.cache/pycache for every checkout and each
command runs once uncounted first, so no count includes compiling.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.codex_bench import cli_cases
from bench.generate import (
    Workspace,
    make_big_file,
    make_response,
    make_workspace,
    stale_anchor_block,
    typical_response,
)
from lsp_server.testing.wire_client import LspClient

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = BENCH_DIR.parent

PYCACHE = BENCH_DIR / ".cache" / "pycache"
WORKLOAD_SCRIPT = BENCH_DIR / "instruction_workloads.py"
CLI_MAIN = ("import sys; from lsp_server.cli import main; sys.argv[0] = 'llm-edits'; "
            "sys.exit(main())")


# ---------------------------------------------------------------- counters


@dataclass
class InstructionCounter:
    name: str  # "perf" or "callgrind"
    version: str

    def prefix(self, out: Path) -> list[str]:
        """The command prefix that counts the process it starts into ``out``."""
        if self.name == "perf":
            return ["perf", "stat", "-x,", "-e", "instructions:u", "-o", str(out), "--"]
        return ["valgrind", "--tool=callgrind", "--quiet", f"--callgrind-out-file={out}"]

    def read(self, out: Path) -> int:
        text = out.read_text()
        if self.name == "perf":
            for line in text.splitlines():
                fields = line.split(",")
                if len(fields) > 2 and fields[2].startswith("instructions"):
                    return int(fields[0])
            raise RuntimeError(f"no instruction count in perf output: {text[-300:]}")
        found = re.search(r"^summary:\s*(\d+)", text, re.MULTILINE)
        if not found:
            raise RuntimeError(f"no summary line in callgrind output {out}")
        return int(found.group(1))


def perf_counts_instructions() -> bool:
    if not shutil.which("perf"):
        return False
    probe = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", "--", "true"],
                           capture_output=True, text=True)
    return probe.returncode == 0 and "not supported" not in probe.stderr and any(
        line.split(",")[0].isdigit() for line in probe.stderr.splitlines())


def find_counter(wanted: str | None) -> InstructionCounter:
    """perf when the CPU counters work (or when asked), else callgrind."""
    if wanted in (None, "perf") and perf_counts_instructions():
        version = subprocess.run(["perf", "--version"], capture_output=True, text=True).stdout
        return InstructionCounter("perf", version.strip())
    if wanted == "perf":
        raise SystemExit("perf stat -e instructions:u is not supported on this machine")
    if not shutil.which("valgrind"):
        raise SystemExit("no instruction counter: perf's hardware counters are unavailable "
                         "and valgrind is not installed (apt-get install -y valgrind)")
    version = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout
    return InstructionCounter("callgrind", version.strip())


# ---------------------------------------------------------------- checkouts


@dataclass
class Checkout:
    root: Path

    @property
    def label(self) -> str:
        commit = subprocess.run(["git", "-C", str(self.root), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(self.root), "status", "--porcelain", "--",
                                "lsp_server"], capture_output=True, text=True).stdout.strip()
        return f"{self.root} ({commit or 'no git'}{' + uncommitted' if dirty else ''})"

    def env(self) -> list[str]:
        """``env`` arguments giving a process this checkout's code, compiled bytecode and a
        fixed hash seed (string hashes decide set and dict layouts, hence some counts)."""
        return ["env", "-u", "PYTHONDONTWRITEBYTECODE", f"PYTHONPATH={self.root}",
                f"PYTHONPYCACHEPREFIX={PYCACHE}", "PYTHONHASHSEED=0"]

    def run(self, command: list[str], cwd: Path,
            counter: InstructionCounter | None) -> tuple[int | None, str]:
        """(instructions or None when not counted, stdout) of ``command`` run under this
        checkout; raises if it exits with an error."""
        with tempfile.TemporaryDirectory(prefix="llm-edits-count-") as tmp:
            out = Path(tmp) / "count"
            prefix = counter.prefix(out) if counter else []
            proc = subprocess.run([*self.env(), *prefix, *command], cwd=cwd,
                                  capture_output=True, text=True, timeout=1800)
            if proc.returncode not in (0, 1):  # 1: the CLI's "a block failed"
                raise RuntimeError(f"{' '.join(command)} exited {proc.returncode} under "
                                   f"{self.root}: {proc.stderr.strip()[-500:]}")
            return (counter.read(out) if counter else None), proc.stdout


def python() -> str:
    """The project's interpreter (it has the dependencies every checkout needs)."""
    venv = PROJECT_ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


# ---------------------------------------------------------------- inputs


def write_tree(ws: Workspace, root: Path) -> None:
    for rel in ws.files:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ws.text(rel), encoding="utf-8")


def write_inputs(where: Path, ws: Workspace | None, response: str) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    if ws is not None:
        write_tree(ws, where / "tree")
    (where / "response.txt").write_text(response, encoding="utf-8")
    return where


def tree_digest(root: Path) -> str:
    """One hash of every file's relative path and bytes under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


# ---------------------------------------------------------------- workloads


@dataclass
class Measured:
    instructions: int
    result: str  # what the workload produced (compared between checkouts)


@dataclass
class Workload:
    name: str
    label: str
    unit: str
    prepare: Callable[[Path], Path]  # writes the inputs below a folder, returns where
    measure: Callable[[Checkout, InstructionCounter | None, Path], Measured]
    inputs: Path | None = field(default=None, repr=False)


def in_process(kind: str, repeats: int) -> Callable[..., Measured]:
    """Steady-state instructions per call of bench/instruction_workloads.py's ``kind``."""

    def measure(checkout: Checkout, counter: InstructionCounter | None,
                inputs: Path) -> Measured:
        def counted(n: int) -> tuple[int | None, str]:
            command = [python(), str(WORKLOAD_SCRIPT), kind, str(inputs), str(n)]
            return checkout.run(command, inputs, counter)

        once, result = counted(0)
        many, again = counted(repeats)
        if again != result:
            raise RuntimeError(f"{kind}: results differ between runs: {result} / {again}")
        per_call = (many - once) // repeats if counter else 0
        return Measured(per_call, result.strip())

    return measure


async def _server_session(command: list[str], inputs: Path, method: str, argument: dict,
                          warmup: int, repeats: int) -> dict:
    root = inputs / "tree"
    client = await LspClient.start(inputs, command)
    try:
        # under callgrind on a busy machine, start-up and imports take minutes, not seconds
        await client.initialize(root, timeout=900)
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            await client.open(path, path.read_text(encoding="utf-8"))
        result: dict = {}
        for _ in range(warmup + repeats):
            result = await client.command(method, argument, timeout=600)
        return result
    finally:
        await client.stop()


def server(method: str, response_file: str | None, warmup: int,
           repeats: int) -> Callable[..., Measured]:
    """Steady-state server instructions per ``method`` request (the server process only)."""

    def measure(checkout: Checkout, counter: InstructionCounter | None,
                inputs: Path) -> Measured:
        response = (inputs / response_file).read_text(encoding="utf-8") if response_file else ""

        def counted(n: int) -> tuple[int | None, dict]:
            with tempfile.TemporaryDirectory(prefix="llm-edits-count-") as tmp:
                out = Path(tmp) / "count"
                prefix = counter.prefix(out) if counter else []
                command = [*checkout.env(), *prefix, python(), "-m", "lsp_server"]
                result = asyncio.run(_server_session(command, inputs, method,
                                                     {"response": response}, warmup, n))
                return (counter.read(out) if counter else None), result

        once, _ = counted(0)
        many, result = counted(repeats)
        statuses = sorted(b.get("status", "?") for b in result.get("blocks", []))
        per_call = (many - once) // repeats if counter else 0
        return Measured(per_call, json.dumps(statuses))

    return measure


def cli(*arguments: str) -> Callable[..., Measured]:
    """Instructions of one whole ``llm-edits`` process (``{tree}``/``{response}`` in the
    arguments name the inputs) run on a fresh copy of the input tree."""

    def measure(checkout: Checkout, counter: InstructionCounter | None,
                inputs: Path) -> Measured:
        with tempfile.TemporaryDirectory(prefix="llm-edits-count-") as tmp:
            tree = Path(tmp) / "tree"
            if (inputs / "tree").exists():
                shutil.copytree(inputs / "tree", tree)
            else:
                tree.mkdir()
            args = [a.format(tree=tree, response=inputs / "response.txt") for a in arguments]
            count, out = checkout.run([python(), "-c", CLI_MAIN, *args], tree, counter)
            result = out.strip() if arguments == ("--version",) else tree_digest(tree)
            return Measured(count or 0, result)

    return measure


def _mixed_response(where: Path) -> Path:
    ws = make_workspace(20, 5000)
    return write_inputs(where, None, make_response(ws, target_bytes=1_000_000).text)


def _typical(where: Path) -> Path:
    ws = make_workspace(3, 800, seed=11)
    return write_inputs(where, ws, typical_response(ws).text)


def _scaled(where: Path) -> Path:
    ws = make_workspace(20, 5000)
    return write_inputs(where, ws, make_response(ws, n_blocks=100).text)


def _diagnosis(where: Path) -> Path:
    lines = make_big_file(100_000)
    ws = Workspace({"src/big.py": lines}, 0)
    return write_inputs(where, ws, stale_anchor_block(lines, 61_234).response)


def _apply_patch(n_files: int, lines: int, n_blocks: int) -> Callable[[Path], Path]:
    def prepare(where: Path) -> Path:
        ws = make_workspace(n_files, lines, seed=5)
        response = make_response(ws, n_blocks=n_blocks, formats=("apply-patch",))
        return write_inputs(where, ws, response.text)

    return prepare


def _cli_case(key: str) -> Callable[[Path], Path]:
    """Benchmark 7's case ``key`` (the tree and the apply-patch envelope given to Codex)."""

    def prepare(where: Path) -> Path:
        case = cli_cases()[key]
        return write_inputs(where, case.ws, case.patch.text)

    return prepare


def _nothing(where: Path) -> Path:
    return write_inputs(where, None, "")


WORKLOADS = [
    Workload("parse", "parse_response, 1 MB mixed response (7 formats)",
             "per parse", _mixed_response, in_process("parse", 2)),
    Workload("plan-typical", "plan_edits, typical preview: 5 blocks over 3 files of 800 lines",
             "per plan", _typical, in_process("plan", 100)),
    Workload("plan-scaled", "plan_edits, 100 blocks over 20 files of 5,000 lines",
             "per plan", _scaled, in_process("plan", 4)),
    Workload("diagnosis", "plan_response, stale anchor in a 100,000-line file",
             "per call", _diagnosis, in_process("parse_and_plan", 2)),
    Workload("server-preview", "server: llmEdits.preview, 5 blocks / 3 open buffers (bench 3)",
             "per request", _typical, server("llmEdits.preview", "response.txt", 20, 100)),
    Workload("server-floor", "server: llmEdits.parse of an empty response (bench 3's floor)",
             "per request", _typical, server("llmEdits.parse", None, 20, 100)),
    Workload("cli-version", "llm-edits --version", "whole process", _nothing, cli("--version")),
    Workload("cli-apply-small", "llm-edits apply: 5 apply-patch blocks, 3 files of 800 lines",
             "whole process", _apply_patch(3, 800, 5),
             cli("apply", "--root", "{tree}", "{response}")),
    Workload("cli-apply-100", "llm-edits apply: 100 apply-patch blocks, 20 files of 5,000 "
             "lines", "whole process", _apply_patch(20, 5000, 100),
             cli("apply", "--root", "{tree}", "{response}")),
    Workload("cli-tiny", "llm-edits apply: bench 7's tiny patch (one hunk, a 14-line file)",
             "whole process", _cli_case("tiny"), cli("apply", "--root", "{tree}", "{response}")),
    Workload("cli-near-end", "llm-edits apply: bench 7's one hunk near the end of a "
             "100,000-line file", "whole process", _cli_case("near-end"),
             cli("apply", "--root", "{tree}", "{response}")),
    Workload("cli-1000-hunks", "llm-edits apply: bench 7's 1,000 hunks over 200 files of "
             "5,000 lines", "whole process", _cli_case("many"),
             cli("apply", "--root", "{tree}", "{response}")),
]


# ---------------------------------------------------------------- running and reporting


def measure_all(workloads: list[Workload], checkouts: list[Checkout],
                counter: InstructionCounter, scratch: Path) -> dict[str, list[Measured]]:
    """Every workload against every checkout: one uncounted run (bytecode, errors), then
    the counted ones; prints each figure as it comes."""
    results: dict[str, list[Measured]] = {}
    for workload in workloads:
        inputs = workload.prepare(scratch / workload.name)
        results[workload.name] = []
        for checkout in checkouts:
            workload.measure(checkout, None, inputs)
            measured = workload.measure(checkout, counter, inputs)
            results[workload.name].append(measured)
            print(f"  {workload.name}: {checkout.root}: {measured.instructions:,} "
                  f"({workload.unit})", flush=True)
    return results


def millions(n: int) -> str:
    return f"{n / 1e6:,.3f}M" if n < 10_000_000 else f"{n / 1e6:,.1f}M"


def table(workloads: list[Workload], results: dict[str, list[Measured]],
          checkouts: list[Checkout]) -> str:
    header = ["workload", "measure", "unit", *(f"[{i + 1}]" for i in range(len(checkouts)))]
    if len(checkouts) == 2:
        header += ["[2]/[1]", "same result"]
    rows = [header]
    for workload in workloads:
        measured = results[workload.name]
        row = [workload.name, workload.label, workload.unit,
               *(millions(m.instructions) for m in measured)]
        if len(checkouts) == 2:
            first, second = measured
            change = second.instructions / first.instructions if first.instructions else 0
            row += [f"{change:.3f}", "yes" if first.result == second.result else "NO"]
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in rows]
    lines += [f"[{i + 1}] {c.label}" for i, c in enumerate(checkouts)]
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--root", type=Path, default=PROJECT_ROOT, help="checkout to measure")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("DIR_A", "DIR_B"),
                    help="measure two checkouts and print the ratio B/A")
    ap.add_argument("--only", help="comma-separated workload names: "
                    + ", ".join(w.name for w in WORKLOADS))
    ap.add_argument("--counter", choices=("perf", "callgrind"), help="default: perf if it works")
    ap.add_argument("--json", type=Path, help="also write the counts to this file")
    return ap.parse_args()


def main() -> None:
    args = parse_args()
    roots = args.compare or [args.root]
    checkouts = [Checkout(root.resolve()) for root in roots]
    for checkout in checkouts:
        if not (checkout.root / "lsp_server" / "__init__.py").exists():
            raise SystemExit(f"{checkout.root} is not a checkout of the project")
    wanted = set(args.only.split(",")) if args.only else None
    workloads = [w for w in WORKLOADS if wanted is None or w.name in wanted]
    counter = find_counter(args.counter)
    print(f"counter: {counter.name} ({counter.version}); Python {sys.version.split()[0]}",
          flush=True)
    PYCACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="llm-edits-count-inputs-") as scratch:
        results = measure_all(workloads, checkouts, counter, Path(scratch))
    print()
    print(table(workloads, results, checkouts))
    if args.json:
        args.json.write_text(json.dumps({
            "counter": counter.name, "counter_version": counter.version,
            "checkouts": [c.label for c in checkouts],
            "workloads": {w.name: {"label": w.label, "unit": w.unit,
                                   "instructions": [m.instructions for m in results[w.name]],
                                   "results": [m.result for m in results[w.name]]}
                          for w in workloads}}, indent=1))


if __name__ == "__main__":
    main()
