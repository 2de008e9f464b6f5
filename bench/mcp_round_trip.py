#!/usr/bin/env python3
"""An agent's edit through ``llm-edits mcp``: the round trip of one tool call over stdio.

usage: python -m bench.mcp_round_trip [--calls N] [--file-lines N] [--dir DIR]

Starts ``llm-edits mcp`` with the MCP SDK's own client (as an agent does once per session),
then calls ``edit_file`` N times on one file (after two warm-up calls), each call undoing the
previous one (a wall-clock
round trip: the client's request, the server's parse, plan and atomic write, the answer).
The same for ``apply_edits`` with one SEARCH/REPLACE block. Prints the start-up, p50 and p90
of each, the CPU time both processes spent per round trip (Linux: the server's from /proc),
the CPU time of the same calls run in this process without the transport (the
server's own work, which a busy machine inflates less than a wall-clock round trip), and the
machine's speed (bench/machine_speed.py) to compare runs by.

Each write is durable (the new text is fsynced before it is renamed over the file, as
``llm-edits apply`` does): on a disk that flush dominates the round trip. ``--dir /dev/shm``
puts the workspace in memory, which leaves the server's own work and the transport.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from bench.machine_speed import loop_step_ns
from lsp_server.formats import FORMAT_NAMES


def _workspace(root: Path, lines: int) -> Path:
    path = root / "module.py"
    body = [f"def function_{i}(value):\n    return value + {i}\n\n" for i in range(lines // 3)]
    path.write_text("".join(body))
    return path


def _edit_file_args(i: int) -> dict:
    old, new = ("value + 7\n", "value - 7\n") if i % 2 == 0 else ("value - 7\n", "value + 7\n")
    return {"path": "module.py", "old_string": old, "new_string": new}


def _apply_edits_args(i: int) -> dict:
    old, new = ("value + 8", "value - 8") if i % 2 == 0 else ("value - 8", "value + 8")
    block = (f"module.py\n<<<<<<< SEARCH\ndef function_8(value):\n    return {old}\n=======\n"
             f"def function_8(value):\n    return {new}\n>>>>>>> REPLACE\n")
    return {"response": block}


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's child processes so far (Linux /proc):
    the server's, for the calls' CPU cost on a machine too busy for wall-clock figures."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        for pid in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / tick
    return total


async def _measure(root: Path, calls: int) -> dict[str, list[float]]:
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "lsp_server.cli", "mcp", "--root", str(root)])
    started = time.perf_counter()
    async with Client(params) as client:
        times: dict[str, list[float]] = {"start-up": [time.perf_counter() - started]}
        for name, arguments in _tools():
            for i in (0, 1):  # warm: the engine's modules loaded; the file as it was
                await _succeeded(name, await client.call_tool(name, arguments(i)))
            samples = times[name] = []
            cpu_before = _children_cpu() + time.process_time()
            for i in range(calls):
                args = arguments(i)
                before = time.perf_counter()
                result = await client.call_tool(name, args)
                samples.append(time.perf_counter() - before)
                await _succeeded(name, result)
            spent = _children_cpu() + time.process_time() - cpu_before
            times[f"{name} cpu"] = [spent / calls]
    return times


async def _succeeded(name: str, result: Any) -> None:
    if result.is_error:
        raise SystemExit(f"{name} failed: {result.content[0].text}")


async def _cpu_per_call(root: Path, calls: int) -> dict[str, float]:
    """CPU seconds per call of each tool run in this process (no transport)."""
    from lsp_server.mcp.calls import run_tool
    from lsp_server.mcp.disk import DiskWorkspace

    workspace = DiskWorkspace([root])
    cpu: dict[str, float] = {}
    for name, arguments in _tools():
        started = time.process_time()
        for i in range(calls):
            outcome = await run_tool(name, arguments(i), workspace)
            if outcome.is_error:
                raise SystemExit(f"{name} failed: {outcome.text}")
        cpu[name] = (time.process_time() - started) / calls
    return cpu


def _tools() -> list[tuple[str, Callable[[int], dict]]]:
    tools: list[tuple[str, Callable[[int], dict]]] = [("apply_edits", _apply_edits_args)]
    if "str-replace" in FORMAT_NAMES:
        tools.insert(0, ("edit_file", _edit_file_args))
    return tools


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200, help="an even number leaves the "
                        "file as it was")
    parser.add_argument("--file-lines", type=int, default=3000)
    parser.add_argument("--dir", type=Path, default=None,
                        help="where to make the workspace (default: the system's temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        root = Path(tmp).resolve()
        _workspace(root, args.file_lines)
        times = anyio.run(_measure, root, args.calls)
        cpu = anyio.run(_cpu_per_call, root, args.calls)
    print(f"machine: {loop_step_ns():.1f} ns per loop step (bench/machine_speed.py)")
    print(f"file: {args.file_lines} lines in {args.dir or tempfile.gettempdir()}; "
          f"{args.calls} calls per tool")
    for name, samples in times.items():
        ms = sorted(s * 1000 for s in samples)
        if name.endswith(" cpu"):
            print(f"{name:>16}: {ms[0]:.2f} ms of CPU per round trip (client and server)")
            continue
        if len(ms) == 1:
            print(f"{name:>16}: {ms[0]:.1f} ms")
            continue
        p90 = ms[int(len(ms) * 0.9) - 1]
        print(f"{name:>16}: p50 {statistics.median(ms):.2f} ms, p90 {p90:.2f} ms; "
              f"in-process CPU {cpu[name] * 1000:.2f} ms per call")
    if "edit_file" not in times:
        print("edit_file: not measured, the engine has no str-replace format yet")


if __name__ == "__main__":
    main()
