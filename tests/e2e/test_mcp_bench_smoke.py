"""bench/mcp_round_trip.py works at a tiny size: its calls succeed through the real
``llm-edits mcp`` and in-process, and each undoes the last (no figure is asserted)."""

from __future__ import annotations

from pathlib import Path

import anyio

from bench.mcp_round_trip import _cpu_per_call, _measure, _workspace


def test_the_round_trip_benchmark_runs_its_calls(tmp_path: Path) -> None:
    path = _workspace(tmp_path, 30)
    before = path.read_text()
    times = anyio.run(_measure, tmp_path, 2)  # raises on a call that fails
    assert set(times) == {"start-up", "edit_file", "edit_file cpu", "apply_edits",
                          "apply_edits cpu"}
    assert len(times["edit_file"]) == len(times["apply_edits"]) == 2
    assert path.read_text() == before  # every call undid the one before it
    cpu = anyio.run(_cpu_per_call, tmp_path, 2)  # raises on a call that fails
    assert set(cpu) == {"edit_file", "apply_edits"}
    assert path.read_text() == before
