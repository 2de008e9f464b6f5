"""The machine's speed at the time of a run, printed next to every benchmark's figures."""

from __future__ import annotations

import time


def loop_step_ns(steps: int = 3_000_000) -> float:
    """Nanoseconds per step of a fixed pure-Python loop (the best of three): this shared VM's
    speed drifts by ±30% from minute to minute even when idle, so every run records it next
    to the figures it produced, and runs can be compared after scaling by it."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for i in range(steps):
            total += i
        best = min(best, time.perf_counter() - started)
    return best / steps * 1e9
