#!/usr/bin/env python3
"""One block of many bare ``@@`` hunks over one big file: the CPU time of planning it.

usage: python -m bench.many_bare_hunks [--lines N] [--hunks H]
                                       [--format apply-patch|hunk-patch] [--repeat R] [--root DIR]

The file has N lines of about 50 characters (200,000: about 10 MB), in the workspace style
of bench/generate.py. The response is one block of H hunks spread evenly over the file, each
under a bare ``@@`` (no anchor, no line numbers): a hunk's lines must then match once in
what is left of the file after the previous hunk, so locating it asks whether its lines
occur again further on. Prints the CPU time of ``plan_response`` (the best of R runs) and
checks the planned edit changes exactly the H lines it should. ``--root DIR`` plans with
the code of another checkout (``git worktree add``; in a child process that imports it),
for before/after figures; ``--repeat 0`` only builds the inputs, so that an instruction
count of it (valgrind --tool=callgrind) subtracted from one of ``--repeat 1`` is the plan's
(for this checkout's code, which is planned in process).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent

_PAD = "  # " + "padding " * 5  # brings the average line to about 50 characters


def big_file(n_lines: int, seed: int = 7) -> list[str]:
    from bench.generate import function_lines

    rng = random.Random(seed)
    lines: list[str] = []
    k = 0
    while len(lines) < n_lines:
        for line in function_lines(0, k, rng):
            lines.append(line + _PAD if line.startswith("    ") and "return" not in line
                         else line)
        k += 1
    return lines[:n_lines]


def response(lines: list[str], hunks: int, fmt: str) -> tuple[str, set[int]]:
    """The block, and the 0-based lines it changes (each function's docstring)."""
    from bench.generate import FUNCTION_LINES

    functions = len(lines) // FUNCTION_LINES
    step = max(1, functions // hunks)
    changed: set[int] = set()
    bodies: list[str] = []
    for f in range(0, functions, step)[:hunks]:
        start = f * FUNCTION_LINES
        d, doc = lines[start], lines[start + 1]
        bodies.append(f"@@\n {d}\n-{doc}\n+{doc.replace('Return', 'Compute')}\n")
        changed.add(start + 1)
    diff = "".join(bodies)
    if fmt == "hunk-patch":
        text = "edit " + json.dumps({"path": "big.py", "op": "update", "diff": diff}) + "\n"
    else:
        text = f"*** Begin Patch\n*** Update File: big.py\n{diff}*** End Patch\n"
    return text, changed


def plan_and_time(text: str, resp: str, repeat: int) -> tuple[float, list[int] | None]:
    """The best CPU time of planning ``resp`` over ``text`` and the lines its edit changes,
    with whichever ``lsp_server`` this process imports."""
    from lsp_server import plan_response
    from lsp_server.model import FileSnapshot

    root = Path.cwd()
    best = float("inf")
    plan = None
    for _ in range(repeat):
        t0 = time.process_time()
        plan = plan_response(resp, lambda _p: FileSnapshot(text), [root])
        best = min(best, time.process_time() - t0)
    if plan is None:
        return best, None  # --repeat 0: the inputs only
    (block,) = plan.blocks
    assert block.status == "validated", block.reason
    (change,) = plan.changes
    return best, sorted(edit.start_line for edit in change.edits)


def in_checkout(root: Path, text: str, resp: str, repeat: int
                ) -> tuple[float, list[int] | None]:
    """:func:`plan_and_time` in a child process that imports ``root``'s ``lsp_server``: this
    file run by its path (its folder, not this checkout, heads the import path) with ``root``
    on ``PYTHONPATH``."""
    with tempfile.TemporaryDirectory(prefix="many-bare-hunks-") as tmp:
        (Path(tmp) / "file.py").write_text(text)
        (Path(tmp) / "response.txt").write_text(resp)
        run = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure", tmp,
                              "--repeat", str(repeat)], cwd=tmp, capture_output=True,
                             text=True, check=True,
                             env={**os.environ, "PYTHONPATH": str(root.resolve())})
    best, edited = json.loads(run.stdout.splitlines()[-1])
    return best, edited


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--hunks", type=int, default=1_504)
    parser.add_argument("--format", default="apply-patch", choices=["apply-patch", "hunk-patch"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--root", type=Path, default=PROJECT_ROOT,
                        help="the checkout whose lsp_server is measured")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child's inputs
    args = parser.parse_args()
    if args.measure is not None:
        print(json.dumps(plan_and_time((args.measure / "file.py").read_text(),
                                       (args.measure / "response.txt").read_text(),
                                       args.repeat)))
        return 0
    lines = big_file(args.lines)
    text = "\n".join(lines) + "\n"
    resp, changed = response(lines, args.hunks, args.format)
    if args.root.resolve() == PROJECT_ROOT:
        best, edited = plan_and_time(text, resp, args.repeat)
    else:
        best, edited = in_checkout(args.root, text, resp, args.repeat)
    if edited is None:
        return 0  # --repeat 0: the inputs only
    assert set(edited) == changed, f"{len(set(edited) ^ changed)} lines differ from the expected"
    print(f"{args.format}: {len(changed)} bare @@ hunks, {args.lines} lines "
          f"({len(text) / 1e6:.1f} MB): {best:.2f} s CPU (best of {args.repeat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
