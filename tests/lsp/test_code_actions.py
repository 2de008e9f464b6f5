"""Quick fixes offered on the server's diagnostics."""

from __future__ import annotations

from lsprotocol import types

from lsp_server.lsp.code_actions import code_actions, fix_code_actions
from lsp_server.lsp.diagnostics import plan_diagnostics
from lsp_server.lsp.options import EditOptions
from lsp_server.lsp.run_store import EditRequest, Run, RunStore

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


def _params(diagnostics: list[types.Diagnostic], only: list[str] | None = None
            ) -> types.CodeActionParams:
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=(ROOT / "a.py").as_uri()),
        range=diagnostics[0].range,
        context=types.CodeActionContext(diagnostics=diagnostics, only=only))


def test_code_actions_once_per_block_and_none_for_a_run_no_longer_kept() -> None:
    plan = failed_plan()
    runs = RunStore()
    runs.add(Run("r", EditRequest("", None, EditOptions()), plan))
    uri = (ROOT / "a.py").as_uri()
    (diagnostic,) = plan_diagnostics(plan, "r", VSCODE, uri_for, file_texts)[uri]
    # Published by us and sent back by the client: offered once.
    actions = code_actions(_params([diagnostic]), {uri: [diagnostic]}, runs)
    assert [a.title for a in actions] == ["Apply at closest match (line 2)",
                                          "Copy retry feedback for the model"]
    assert code_actions(_params([diagnostic], [types.CodeActionKind.Refactor]),
                        {uri: [diagnostic]}, runs) == []
    (forgotten,) = plan_diagnostics(plan, "gone", VSCODE, uri_for, file_texts)[uri]
    assert code_actions(_params([forgotten]), {uri: [forgotten]}, runs) == []
