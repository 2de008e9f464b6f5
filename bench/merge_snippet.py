#!/usr/bin/env python3
"""Merging a code-block snippet into a 5,000-line file (issue 24's target: under 20 ms).

usage: python -m bench.merge_snippet [--lines N] [--repeat R]

Three snippets, each merged with ``lsp_server.merge.merge_code_block`` into a file of N lines
(bench/generate.py's function style):
- ``python function``: one function of the middle of a Python file, changed;
- ``python method in class``: a class of the middle shown with an elision, one method
  changed and one added (the file is the same functions as methods of 50-method classes);
- ``typescript method``: a method pasted alone (no class) into a TypeScript file.
Prints for each the CPU time (``time.process_time``: wall time on a machine shared with
other work counts their time too) of the first merge in a fresh process (the grammar's
import and its parser made: what the first code block of a session pays) and the median of R
merges after it, with the median wall time; every merge's result is checked (the changed
lines, nothing else). Then the machine's speed (bench/machine_speed.py) and load, as every
benchmark does.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

from bench.generate import make_big_file
from bench.machine_speed import loop_step_ns
from lsp_server.merge import Merged, MergeRequest, merge_code_block


def python_function_case(n_lines: int) -> tuple[MergeRequest, Callable[[list[str]], bool]]:
    file_lines = make_big_file(n_lines)
    middle = next(i for i in range(len(file_lines) // 2, len(file_lines))
                  if file_lines[i].startswith("def "))
    code = file_lines[middle:middle + 6]
    code[4] = "        result -= 1000"
    expected = [*file_lines[:middle + 4], code[4], *file_lines[middle + 5:]]
    return MergeRequest(file_lines, code, "src/big.py"), lambda lines: lines == expected


def python_class_case(n_lines: int) -> tuple[MergeRequest, Callable[[list[str]], bool]]:
    functions = make_big_file(n_lines)
    file_lines: list[str] = []
    for k, line in enumerate(functions):
        if k % 350 == 0:
            file_lines += [f"class Group{k // 350}:", ""]
        file_lines.append("    " + line if line else "")
    middle_class = f"class Group{len(functions) // 700}:"
    start = file_lines.index(middle_class)
    method = next(i for i in range(start + 20, len(file_lines))
                  if file_lines[i].startswith("    def "))
    changed = [line[4:] if line else "" for line in file_lines[method:method + 6]]
    changed[2] = "    result = value * 2 + scale"
    code = [middle_class, "    # ... existing code ...", "",
            *("    " + line if line else "" for line in changed), "",
            "    def added(self):", "        return 1"]
    def check(lines: list[str]) -> bool:
        return (lines[method + 2] == "        result = value * 2 + scale"
                and lines[method + 7:method + 9] == ["    def added(self):",
                                                     "        return 1"]
                and len(lines) == len(file_lines) + 3)
    return MergeRequest(file_lines, code, "src/big.py"), check


def typescript_case(n_lines: int) -> tuple[MergeRequest, Callable[[list[str]], bool]]:
    file_lines: list[str] = []
    k = 0
    while len(file_lines) < n_lines:
        if k % 50 == 0:
            if k:
                file_lines += ["}", ""]
            file_lines.append(f"export class Part{k // 50} {{")
        file_lines += [f"  method{k}(value: number, scale = {k % 9 + 1}): number {{",
                       f"    const result = value * {k % 40 + 2} + scale;",
                       "    return result;", "  }", ""]
        k += 1
    file_lines.append("}")
    target = k // 2
    code = [f"method{target}(value: number, scale = {target % 9 + 1}): number {{",
            "  const result = value * 3 + scale;", "  return result;", "}"]
    at = file_lines.index(f"  method{target}(value: number, scale = {target % 9 + 1}): number {{")
    expected = list(file_lines)
    expected[at + 1] = "    const result = value * 3 + scale;"
    return MergeRequest(file_lines, code, "src/big.ts"), lambda lines: lines == expected


CASES = {
    "python function": python_function_case,
    "python method in class": python_class_case,
    "typescript method": typescript_case,
}


def measure(request: MergeRequest, check: Callable[[list[str]], bool], repeat: int
            ) -> tuple[float, float, float]:
    """(first merge's CPU ms, median CPU ms and median wall ms of the next ``repeat``); each
    result checked."""
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(repeat + 1):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = merge_code_block(request)
        cpu.append((time.process_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
        if not isinstance(result, Merged) or not check(result.lines):
            raise SystemExit(f"wrong merge: {result!r:.300}")
    return cpu[0], statistics.median(cpu[1:]), statistics.median(wall[1:])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    print(f"merging a snippet into a {args.lines:,}-line file (target: under 20 ms of CPU)")
    for name, make in CASES.items():
        request, check = make(args.lines)
        first, median, wall = measure(request, check, args.repeat)
        print(f"  {name:<24} first {first:6.1f} ms   median of {args.repeat}: {median:5.1f} ms "
              f"CPU, {wall:5.1f} ms wall")
    print(f"machine speed: {loop_step_ns():.1f} ns per loop step (bench/machine_speed.py); "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
