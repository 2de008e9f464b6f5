"""The in-process workloads whose instructions ``bench/instructions.py`` counts.

usage: python bench/instruction_workloads.py WORKLOAD INPUT_DIR REPEATS

Run in a child process with the checkout under test first on ``PYTHONPATH``, so it imports only
the package's public API (``parse_response``, ``plan_edits``, ``plan_response``,
``FileSnapshot``) and works against any version of the code, before or after a refactor. Its
inputs are files in INPUT_DIR written by instructions.py (the same bytes for every checkout).

The workload runs once untimed (lazy imports, compiled regexes, first-use caches), then
REPEATS more times; instructions.py counts the whole process with REPEATS = 0 and REPEATS = N
and divides the difference by N, which leaves the steady-state cost of one call. The last
line printed is a JSON summary of what the calls produced (blocks found, statuses), so two
checkouts can be checked to do the same work.
"""

from __future__ import annotations

import gc
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsp_server import FileSnapshot, parse_response, plan_edits, plan_response


def _file_reader(root: Path) -> Callable[[Path], FileSnapshot]:
    """Every file under ``root`` held in memory, served the way an editor's buffers are."""
    texts: dict[Path, str] = {
        path.resolve(): path.read_text(encoding="utf-8")
        for path in root.rglob("*") if path.is_file()
    }

    def read_file(path: Path) -> FileSnapshot:
        text = texts.get(path)
        if text is None:  # the planner may hand over a path not yet resolved
            text = texts.get(Path(path).resolve())
        return FileSnapshot(text=text)

    return read_file


def _statuses(plan: Any) -> dict[str, int]:
    return dict(Counter(block.status for block in plan.blocks))


def parse(inputs: Path) -> Callable[[], dict]:
    text = (inputs / "response.txt").read_text(encoding="utf-8")

    def call() -> dict:
        parsed = parse_response(text)
        return {"blocks": dict(Counter(block.format for block in parsed.blocks))}

    return call


def plan(inputs: Path) -> Callable[[], dict]:
    """plan_edits of an already parsed response (a preview minus the parse)."""
    root = (inputs / "tree").resolve()
    read_file = _file_reader(root)
    parsed = parse_response((inputs / "response.txt").read_text(encoding="utf-8"))
    return lambda: _statuses(plan_edits(parsed, read_file, [root]))


def parse_and_plan(inputs: Path) -> Callable[[], dict]:
    """plan_response: parse and plan in one call (the diagnosis workload)."""
    root = (inputs / "tree").resolve()
    read_file = _file_reader(root)
    text = (inputs / "response.txt").read_text(encoding="utf-8")

    def call() -> dict:
        result = plan_response(text, read_file, [root])
        lines = [block.line for block in result.blocks]
        hints = [bool(block.hint) for block in result.blocks]
        return {"statuses": _statuses(result), "lines": lines, "hints": hints}

    return call


WORKLOADS: dict[str, Callable[[Path], Callable[[], dict]]] = {
    "parse": parse,
    "plan": plan,
    "parse_and_plan": parse_and_plan,
}


def main() -> None:
    kind, inputs, repeats = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    call = WORKLOADS[kind](inputs)
    summary = call()
    # The setup's objects (inputs, imported modules) are never garbage: frozen, collections
    # during the counted calls walk only what the calls make, as in the server after start-up.
    gc.collect()
    gc.freeze()
    for _ in range(repeats):
        if call() != summary:
            raise SystemExit(f"{kind}: a repeated call gave a different result")
    print(json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    main()
