"""The command implementations' plain helpers (end to end: tests/e2e/test_server.py)."""

from __future__ import annotations

from lsp_server.lsp.requests.edit_runs import mark_applied

from ..plans import (
    failed_plan,
)


def test_mark_applied_turns_validated_into_applied_only() -> None:
    plan = failed_plan()
    mark_applied(plan)
    assert [b.status for b in plan.blocks] == ["failed", "applied", "failed"]
