"""The ``at`` quick fix: offered once per place an ambiguous block matches, and only there
(over stdio, in each hunk format: tests/e2e/test_ambiguity_fixes.py)."""

from __future__ import annotations

import pytest
from lsprotocol import types

from lsp_server.lsp.errors import CommandError
from lsp_server.lsp.requests.ambiguity_fixes import at_candidate
from lsp_server.lsp.requests.arguments import parse_fix_request
from lsp_server.lsp.requests.code_actions import fix_code_actions
from lsp_server.lsp.run_store import EditRequest, Run
from lsp_server.model import BlockResult, PlanResult
from lsp_server.session.options import EditOptions

FIXES = {"candidateLines": [1, 5, 8], "candidateCount": 3}


def _run(fixes: dict) -> Run:
    block = BlockResult(2, "a.py", "edit-v3", "failed", fixes=fixes)
    return Run("r1", EditRequest("", None, EditOptions()), PlanResult(blocks=[block]))


def test_one_action_per_candidate() -> None:
    diagnostic = types.Diagnostic(range=types.Range(start=types.Position(line=1, character=0),
                                                    end=types.Position(line=2, character=0)),
                                  message="ambiguous", code="failed", source="llm-edits",
                                  data={"runId": "r1", "index": 2})
    actions = fix_code_actions(diagnostic, FIXES)
    at = [a for a in actions if a.command and a.command.arguments
          and a.command.arguments[0].get("fix") == "at"]
    assert [a.title for a in at] == ["Apply block 3 at line 2", "Apply block 3 at line 6",
                                     "Apply block 3 at line 9"]
    assert [a.command.arguments[0]["line"] for a in at if a.command and a.command.arguments
            ] == [2, 6, 9]


def test_the_line_must_be_a_candidate() -> None:
    chosen = at_candidate(_run(FIXES), 2, 6)
    assert (chosen, chosen.nth, chosen.hunk) == (5, 1, None)  # the second place, a line block
    hunk = at_candidate(_run({**FIXES, "candidateHunk": 1}), 2, 9)
    assert (hunk, hunk.nth, hunk.hunk) == (8, 2, 1)
    with pytest.raises(CommandError, match=r"line 7 is not one of .* \(lines 2, 6, 9\)"):
        at_candidate(_run(FIXES), 2, 7)
    with pytest.raises(CommandError, match="is not ambiguous"):
        at_candidate(_run({"closestLine": 4}), 2, 5)


@pytest.mark.parametrize("line", [None, 0, -2, "6", 2.0, True])
def test_the_at_fix_needs_a_positive_line(line: object) -> None:
    with pytest.raises(ValueError, match="needs line, a 1-based line number"):
        parse_fix_request({"runId": "r1", "index": 0, "fix": "at", "line": line})
    assert parse_fix_request({"runId": "r1", "index": 0, "fix": "at", "line": 6}).line == 6
    assert parse_fix_request({"runId": "r1", "index": 0, "fix": "closest", "line": 6}
                             ).line is None
