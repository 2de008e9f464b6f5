"""The test hook holding runs before planning (end to end: tests/e2e/test_concurrency.py)."""

from __future__ import annotations

import asyncio

import pytest

from lsp_server.lsp.protocol.planning_hold import HOLD_ENV, PlanningHold


def test_the_hold_is_off_unless_the_environment_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(HOLD_ENV, raising=False)
    assert not PlanningHold().enabled
    monkeypatch.setenv(HOLD_ENV, "1")
    assert PlanningHold().enabled


async def test_held_runs_go_on_in_order_one_per_release() -> None:
    hold = PlanningHold(enabled=True)
    told: list[str] = []
    done: list[str] = []

    async def run(name: str) -> None:
        await hold.wait(lambda: told.append(name))
        done.append(name)

    first, second = asyncio.ensure_future(run("first")), asyncio.ensure_future(run("second"))
    await asyncio.sleep(0)  # both start and are held (one loop turn: no timing involved)
    assert told == ["first", "second"] and done == []
    hold.release()
    await first
    assert done == ["first"] and not second.done()
    hold.release()
    await second
    assert done == ["first", "second"]


async def test_a_release_before_the_hold_lets_the_next_run_through() -> None:
    hold = PlanningHold(enabled=True)
    hold.release()
    told: list[bool] = []
    await asyncio.wait_for(hold.wait(lambda: told.append(True)), 5)
    assert told == [True]
