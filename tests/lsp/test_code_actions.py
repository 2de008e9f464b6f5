"""Quick fixes offered on the server's diagnostics."""

from __future__ import annotations

from lsp_server.lsp.code_actions import fix_code_actions
from lsp_server.lsp.diagnostics import plan_diagnostics

from .plans import (
    ROOT,
    VSCODE,
    failed_plan,
    file_texts,
    uri_for,
)


def test_code_actions_for_fixes() -> None:
    diag = plan_diagnostics(failed_plan(), "r", VSCODE, uri_for, file_texts)[
        (ROOT / "a.py").as_uri()][0]
    actions = fix_code_actions(diag, {"matching": "whitespace", "closest_line": 1})
    assert [a.title for a in actions] == [
        "Apply with whitespace tolerance", "Apply at closest match (line 2)",
        "Copy retry feedback for the model"]
    assert actions[0].command.arguments == [{"runId": "r", "index": 0, "fix": "whitespace"}]
    assert actions[1].command.arguments == [{"runId": "r", "index": 0, "fix": "closest"}]
    assert actions[2].command.command == "llmEdits.copyFeedback"
    assert [a.title for a in fix_code_actions(diag, {})] == [
        "Copy retry feedback for the model"]
