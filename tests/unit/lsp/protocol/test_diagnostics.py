"""A run's results as diagnostics: placement, codes, data, related information."""

from __future__ import annotations

import json

from lsprotocol import types

from lsp_server.lsp.protocol.diagnostics import plan_diagnostics

from ..plans import (
    EMACS,
    ROOT,
    VSCODE,
    failed_plan,
    file_texts,
    uri_for,
)


def test_failed_block_diagnostic_placement_code_data_and_related_information() -> None:
    response = "\n" * 3 + "a.py block\n"
    diags = plan_diagnostics(failed_plan(), "run1", VSCODE, uri_for, file_texts,
                                  "untitled:chat", response)
    (failed,) = diags[(ROOT / "a.py").as_uri()]
    assert failed.severity == types.DiagnosticSeverity.Error
    assert (failed.range.start.line, failed.range.start.character) == (1, 0)
    assert failed.range.end == types.Position(line=1, character=len("say('')") + 2)
    assert failed.code == "failed" and failed.source == "llm-edits"
    assert failed.message == "No match found\nDid you mean line 2?"
    assert failed.data == {"runId": "run1", "index": 0}
    (related,) = failed.related_information
    assert related.location.uri == "untitled:chat" and related.location.range.start.line == 3
    (warning,) = diags[(ROOT / "b.py").as_uri()]
    assert warning.code == "whitespace-match"
    assert warning.severity == types.DiagnosticSeverity.Warning
    on_response = diags["untitled:chat"]
    assert [d.code for d in on_response] == ["failed", "malformed-block"]
    assert on_response[0].range.start.line == 20 and "../x.py" in on_response[0].message
    assert on_response[1].range.start.line == 30


def test_without_response_document_no_related_information_nor_response_diagnostics() -> None:
    diags = plan_diagnostics(failed_plan(), "run1", VSCODE, uri_for, file_texts)
    assert set(diags) == {(ROOT / "a.py").as_uri(), (ROOT / "b.py").as_uri()}
    assert diags[(ROOT / "a.py").as_uri()][0].related_information is None


def test_related_information_only_for_clients_that_show_it() -> None:
    diags = plan_diagnostics(failed_plan(), "r", EMACS, uri_for, file_texts, "file:///r.md", "")
    assert diags[(ROOT / "a.py").as_uri()][0].related_information is None


def test_diagnostics_encoded_in_advance_are_what_pygls_writes() -> None:
    # A big run's publishDiagnostics are encoded in a worker thread (lsp/off_loop.py): the
    # same JSON as pygls writes for them.
    from lsp_server.lsp.protocol.diagnostics import PublishedDiagnostics
    from lsp_server.server import LlmEditsServer

    server = LlmEditsServer()
    written: list[bytes] = []

    class Writer:
        def write(self, data: bytes) -> None:
            written.append(data)

    server.protocol.set_writer(Writer())
    diagnostic = types.Diagnostic(
        range=types.Range(start=types.Position(line=1, character=0),
                          end=types.Position(line=1, character=4)),
        message="No match\né😀\u202e", severity=types.DiagnosticSeverity.Error,
        code="failed", source="llm-edits", data={"runId": "r", "index": 3})
    diagnostics = {"file:///w/a.py": [diagnostic], "file:///w/b.py": []}
    PublishedDiagnostics(server.editor.client.publish).publish_run(diagnostics)
    PublishedDiagnostics(server.editor.client.publish).publish_run(
        diagnostics, server.editor.client.publish_encoded(
            server.editor.client.encode_publications(diagnostics)))
    bodies = [json.loads(w.split(b"\r\n\r\n", 1)[1]) for w in written]
    assert len(bodies) == 4 and bodies[:2] == bodies[2:]
