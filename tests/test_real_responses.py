"""Real responses over LSP, as an editor drives the server: what models and users really do
(FORMATS.md's rules for real responses).

The editor is fuzz/lsp_session.py's: it answers ``workspace/applyEdit`` like VS Code and
keeps the diagnostics the server publishes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the fuzz/ package

from fuzz.lsp_session import EditorSession

APP = "def add(a, b):\n    return a + b\n\n\ndef greet(name):\n    return 'hi ' + name\n"
RESPONSE = (
    "app.py\n««« EDIT\ndef add(a, b):\n    return a + b\n═══════ REPL\n"
    "def add(a, b):\n    return a * b\n»»» EDIT END\n"
)
MORE = (
    "app.py\n««« EDIT\n    return 'hi ' + name\n═══════ REPL\n    return 'hello ' + name\n"
    "»»» EDIT END\n"
)


async def test_applying_a_response_twice_reports_already_applied_and_sends_nothing(
        tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    editor = EditorSession(tmp_path)
    await editor.start()
    try:
        uri = editor.open("app.py")
        first = await editor.run("llmEdits.apply", {"response": RESPONSE})
        assert [b["status"] for b in first["blocks"]] == ["applied"]
        once = editor.text("app.py")
        assert once == APP.replace("a + b", "a * b")

        again = await editor.run("llmEdits.apply", {"response": RESPONSE + "\n" + MORE})
        done, more = again["blocks"]
        assert (done["status"], done["line"], done["reason"]) == ("already-applied", 0, None)
        assert more["status"] == "applied"  # the file's later blocks go on
        assert editor.text("app.py") == once.replace("'hi '", "'hello '")
        assert len(editor.applies) == 2  # the second edit holds only the new block's change

        preview = await editor.run("llmEdits.preview", {"response": RESPONSE})
        assert [b["status"] for b in preview["blocks"]] == ["already-applied"]
        assert preview["edit"] is None and len(editor.applies) == 2
        (diagnostic,) = editor.client.diagnostics.get(uri, [])
        assert diagnostic.severity == types.DiagnosticSeverity.Information
        assert diagnostic.code == "already-applied" and diagnostic.range.start.line == 0
    finally:
        await editor.stop()
