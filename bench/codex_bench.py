"""Benchmark 7: the ``llm-edits`` CLI against Codex's native ``apply_patch``, same run, same trees.

Both tools get the same apply-patch envelope on stdin and apply it to a fresh copy of the same
tree (copied outside the timing), in alternating runs. Wall time is measured around the
process; CPU time (user + system) and peak RSS come from ``wait4`` on that process alone. After
the first run of each case, every file both tools wrote is compared byte for byte with the
expected text (and so with each other). Start-up is part of what is measured: the CLI runs as a
user runs it, with compiled bytecode (kept in bench/.cache/pycache, so the repository's
``PYTHONDONTWRITEBYTECODE`` setting does not make every run compile the package).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .benchmarks import Row, ratio
from .codex_env import ensure_codex
from .generate import Patch, Workspace, make_apply_patch, make_big_file, make_workspace

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = BENCH_DIR.parent
PYCACHE = BENCH_DIR / ".cache" / "pycache"


@dataclass
class ProcessRun:
    wall: float  # seconds
    cpu: float  # user + system seconds of the process
    rss_kib: int  # peak resident set (ru_maxrss)
    returncode: int
    stdout: bytes


@dataclass
class Runs:
    runs: list[ProcessRun]

    @property
    def wall(self) -> float:
        return statistics.median(r.wall for r in self.runs)

    @property
    def cpu(self) -> float:
        return statistics.median(r.cpu for r in self.runs)

    @property
    def rss_mb(self) -> float:
        """Peak RSS over the runs in decimal MB (0 when GNU time is not installed)."""
        return max(r.rss_kib for r in self.runs) * 1024 / 1e6


def llm_edits_command() -> list[str]:
    venv = PROJECT_ROOT / ".venv" / "bin" / "llm-edits"
    return [str(venv)] if venv.exists() else ["llm-edits"]


def cli_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


GNU_TIME = shutil.which("time", path="/usr/bin:/bin")  # the program, not the shell keyword


def run_process(command: list[str], cwd: Path, stdin: Path | None,
                env: dict[str, str] | None = None) -> ProcessRun:
    """One process timed from its start to its exit, with its CPU time and peak RSS.

    The peak comes from GNU time, which forks the command from its own small process: the
    ``ru_maxrss`` that ``wait4`` gives for a child forked from this (large) Python process
    starts at this process's size, since Linux carries the peak over ``exec``. CPU time is
    that of the waited process and the ones it waited for (GNU time's few ms included)."""
    with tempfile.TemporaryDirectory(prefix="llm-edits-run-") as tmp, \
            open(stdin or os.devnull, "rb") as given:
        peak_file = Path(tmp) / "peak"
        wrapped = ([GNU_TIME, "-f", "%M", "-o", str(peak_file), *command] if GNU_TIME
                   else command)
        with open(Path(tmp) / "out", "w+b") as out:
            started = time.perf_counter()
            proc = subprocess.Popen(wrapped, cwd=cwd, stdin=given, stdout=out,
                                    stderr=subprocess.DEVNULL, env=env)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - started
            proc.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            stdout = out.read()
        peak = peak_file.read_text().split()[-1] if GNU_TIME else "0"
        return ProcessRun(wall, usage.ru_utime + usage.ru_stime, int(peak) if peak.isdigit()
                          else 0, proc.returncode, stdout)


def write_files(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())


def differing_files(root: Path, expected: dict[str, str]) -> list[str]:
    return [rel for rel, text in expected.items()
            if (root / rel).read_bytes() != text.encode()]


@dataclass
class Case:
    label: str
    ws: Workspace
    patch: Patch


def cli_cases(scale: float = 1.0) -> dict[str, Case]:
    """The three cases of the comparison; ``scale`` shrinks them for the smoke test."""
    files, lines, big = max(2, int(200 * scale)), max(70, int(5000 * scale)), 100_000 * scale
    many = make_workspace(files, lines, seed=21)
    big_lines = make_big_file(max(700, int(big)))
    single = Workspace({"src/big.py": big_lines}, len(big_lines) // 7)
    tiny = make_workspace(1, 14, seed=22)
    return {
        "many": Case(f"{5 * files:,} hunks over {files} files x {lines:,} lines", many,
                     make_apply_patch(many, 5)),
        "near-end": Case(f"one hunk near the end of a {len(big_lines):,}-line file", single,
                         make_apply_patch(single, 1, near_end=True)),
        "tiny": Case("a tiny patch (one hunk, one 14-line file)", tiny,
                     make_apply_patch(tiny, 1)),
    }


class Arena:
    """Fresh copies of a case's tree, one per run, made outside the timing."""

    def __init__(self, tmp: Path, case: Case) -> None:
        self.tmp = tmp
        self.master = tmp / "master"
        write_files(self.master, {rel: case.ws.text(rel) for rel in case.ws.files})
        self.patch_file = tmp / "patch.txt"
        self.patch_file.write_text(case.patch.text, encoding="utf-8")
        self.copies = 0

    def run(self, command: list[str], env: dict[str, str] | None = None,
            check: Callable[[Path], None] | None = None) -> ProcessRun:
        self.copies += 1
        tree = self.tmp / f"run-{self.copies}"
        shutil.copytree(self.master, tree)
        try:
            result = run_process(command, tree, self.patch_file, env)
            if check is not None:
                check(tree)
            return result
        finally:
            shutil.rmtree(tree)


@dataclass
class Compared:
    codex: Runs | None
    ours: Runs
    ours_json: Runs | None
    identical: bool | None  # both trees equal the expected bytes (None: no Codex)
    problems: list[str]


def _expect(case: Case, who: str, problems: list[str]) -> Callable[[Path], None]:
    def check(tree: Path) -> None:
        wrong = differing_files(tree, case.patch.after)
        if wrong:
            problems.append(f"{who}: {len(wrong)} files differ from the expected text, "
                            f"e.g. {wrong[0]}")

    return check


def compare_case(tmp: Path, case: Case, codex: Path | None, repeats: int, budget: float,
                 with_json: bool = False) -> Compared:
    """Alternating runs of Codex (if any) and llm-edits (and llm-edits --json) on the case."""
    arena = Arena(tmp, case)
    ours_command = [*llm_edits_command(), "apply", "--root", ".", "-"]
    tools: dict[str, list[str]] = {"ours": ours_command}
    if with_json:
        tools["ours_json"] = [*ours_command[:-1], "--json", "-"]
    if codex is not None:
        tools["codex"] = [str(codex)]
    env = cli_env()
    problems: list[str] = []
    runs: dict[str, list[ProcessRun]] = {name: [] for name in tools}
    started = time.perf_counter()
    for name, command in tools.items():  # warm-up, checked byte for byte: page cache, bytecode
        first = arena.run(command, env, _expect(case, name, problems))
        if first.returncode != 0:
            problems.append(f"{name} exited {first.returncode}")
    one_round = (time.perf_counter() - started) or 1e-9
    # At least 3 rounds (a median, not one sample) unless fewer were asked for.
    rounds = min(repeats, max(3, int(budget / one_round)))
    for _ in range(rounds):
        for name, command in tools.items():
            runs[name].append(arena.run(command, env))
    return Compared(
        codex=Runs(runs["codex"]) if codex is not None else None,
        ours=Runs(runs["ours"]),
        ours_json=Runs(runs["ours_json"]) if with_json else None,
        identical=(not problems) if codex is not None else None,
        problems=problems,
    )


def time_version(repeats: int) -> Runs:
    env = cli_env()
    command = [*llm_edits_command(), "--version"]
    run_process(command, PROJECT_ROOT, None, env)  # warm-up (bytecode)
    return Runs([run_process(command, PROJECT_ROOT, None, env) for _ in range(repeats)])


def time_check(tmp: Path, case: Case, repeats: int) -> Runs:
    arena = Arena(tmp, case)
    command = [*llm_edits_command(), "check", "--root", ".", "-"]
    arena.run(command, cli_env())
    return Runs([arena.run(command, cli_env()) for _ in range(repeats)])


# ---------------------------------------------------------------- rows


def seconds(value: float) -> str:
    return f"{value:.2f} s" if value >= 1 else f"{value * 1000:.0f} ms"


def describe(runs: Runs) -> str:
    peak = f", {runs.rss_mb:.0f} MB" if runs.rss_mb else ""
    return f"{seconds(runs.wall)} (CPU {seconds(runs.cpu)}{peak})"


def _case_rows(name: str, case: Case, got: Compared, target: float | None) -> list[Row]:
    checked = ("; ".join(got.problems) if got.problems
               else "trees identical to the expected bytes" if got.identical
               else "tree as expected")
    rows = [Row(name, f"{case.label}: llm-edits apply", describe(got.ours),
                note=f"{len(got.ours.runs)} runs, median; {checked}",
                data={"wall": got.ours.wall, "cpu": got.ours.cpu, "rss_mb": got.ours.rss_mb,
                      "problems": got.problems})]
    if got.codex is None:
        return rows
    rows.insert(0, Row(name, f"{case.label}: Codex apply_patch", describe(got.codex),
                       data={"wall": got.codex.wall, "cpu": got.codex.cpu,
                             "rss_mb": got.codex.rss_mb}))
    cpu_ratio = ratio(got.ours.cpu, got.codex.cpu)
    wall_ratio = ratio(got.ours.wall, got.codex.wall)
    rows.append(Row(
        name, f"{case.label}: llm-edits / Codex, CPU time", f"{cpu_ratio:.1f}x",
        f"≤ {target:g}x" if target else "", (cpu_ratio <= target and got.identical)
        if target else None, f"wall-time ratio {wall_ratio:.1f}x",
        {"cpu_ratio": cpu_ratio, "wall_ratio": wall_ratio, "identical": got.identical}))
    return rows


def bench_codex(*, scale: float = 1.0, repeats: int = 5, budget: float = 20.0,
                codex: bool = True) -> list[Row]:
    """The CLI against Codex's apply_patch on the cases of the module docstring; without the
    binary (``codex=False``, or npm unreachable), the CLI's own figures and a note why."""
    name = "7 CLI vs Codex"
    apply_patch, how = ensure_codex() if codex else (None, "skipped (--no-codex)")
    rows: list[Row] = [] if apply_patch else [Row(name, "Codex apply_patch baseline", "skipped",
                                            note=how)]
    targets = {"many": 1.5, "near-end": 2.0, "tiny": None}
    cases = cli_cases(scale)
    results: dict[str, Compared] = {}
    with tempfile.TemporaryDirectory(prefix="llm-edits-bench-") as tmp_name:
        tmp = Path(tmp_name)
        for key, case in cases.items():
            results[key] = compare_case(tmp / key, case, apply_patch, repeats, budget,
                                        with_json=key == "many")
            rows += _case_rows(name, case, results[key], targets[key])
        version = time_version(repeats)
        check = time_check(tmp / "check", cases["tiny"], repeats)
    many = results["many"]
    assert many.ours_json is not None
    json_ratio = ratio(many.ours_json.cpu, many.ours.cpu)
    if apply_patch:
        rows[0].note = how
    rows += [
        Row(name, f"{cases['many'].label}: llm-edits apply --json", describe(many.ours_json),
            "≤ 1.1x the plain run (CPU)", json_ratio <= 1.1,
            f"{json_ratio:.2f}x the plain run's CPU time",
            {"wall": many.ours_json.wall, "cpu": many.ours_json.cpu, "cpu_ratio": json_ratio}),
        Row(name, "llm-edits --version", seconds(version.wall), "< 60 ms", version.wall < 0.06,
            f"CPU {seconds(version.cpu)}", {"wall": version.wall, "cpu": version.cpu}),
        Row(name, "llm-edits check, the tiny patch", seconds(check.wall), "< 120 ms",
            check.wall < 0.12, f"CPU {seconds(check.cpu)}",
            {"wall": check.wall, "cpu": check.cpu,
             "returncodes": sorted({r.returncode for r in check.runs})}),
    ]
    return rows
