"""Quick fixes offered on the server's diagnostics."""

from __future__ import annotations

from lsprotocol import types

from lsp_server.lsp.protocol.diagnostics import plan_diagnostics
from lsp_server.lsp.requests.code_actions import code_actions, fix_code_actions
from lsp_server.lsp.run_store import EditRequest, Run, RunStore
from lsp_server.session.options import EditOptions

from ..plans import (
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


def test_a_diagnostic_naming_its_run_or_block_with_a_list_or_object_gets_no_actions() -> None:
    # The client sends our diagnostics back in the request's context: their `data` is the
    # client's to mangle. A runId or index that is a list or an object (unhashable) once
    # raised an InternalError; such a diagnostic names no block, so it gets no actions.
    plan = failed_plan()
    runs = RunStore()
    runs.add(Run("r", EditRequest("", None, EditOptions()), plan))
    uri = (ROOT / "a.py").as_uri()
    (diagnostic,) = plan_diagnostics(plan, "r", VSCODE, uri_for, file_texts)[uri]
    for data in ({"runId": ["r"], "index": 0}, {"runId": "r", "index": [0]},
                 {"runId": {"id": "r"}, "index": {"i": 0}}, {"runId": "r", "index": True},
                 {"runId": "r", "index": 0.0}, ["r", 0], "r"):
        sent_back = types.Diagnostic(range=diagnostic.range, message=diagnostic.message,
                                     source=diagnostic.source, code=diagnostic.code, data=data)
        assert code_actions(_params([sent_back]), {}, runs) == [], data
    # Beside a good one: the good one still gets its actions.
    actions = code_actions(_params([sent_back, diagnostic]), {}, runs)
    assert [a.title for a in actions] == ["Apply at closest match (line 2)",
                                          "Copy retry feedback for the model"]
