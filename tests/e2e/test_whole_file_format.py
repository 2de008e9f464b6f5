"""The opt-in whole-file format end to end: over stdio as an editor drives the server
(pytest-lsp), and through the ``llm-edits`` CLI's ``--formats whole-file``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from pytest_lsp import LanguageClient

from lsp_server.cli import cli
from lsp_server.testing.editor import Editor

APP = "import os\r\n\r\n\r\ndef add(a, b):\r\n    return a + b\r\n\r\n\r\ndef main():\r\n" \
      "    print(add(1, 2))\r\n"
WHOLE = """Here is the whole file:

app.py
```python
import os


def add(a, b):
    return a * b


def main():
    print(add(1, 2))
```

new.py
```python
VALUE = 1
```
"""
ELIDED = "app.py\n```python\nimport os\n\n# ... rest of the file unchanged ...\n```\n"


async def test_applies_as_minimal_edits_and_only_when_asked_for(
        client: LanguageClient, tmp_path: Path) -> None:
    editor = Editor(client, tmp_path)
    editor.write("app.py", APP)
    await editor.start()
    editor.open("app.py")  # an open buffer (CRLF), the text the edit is computed on
    # Not asked for: a fenced file under a path line is not a block.
    ignored = await editor.run("llmEdits.preview", {"response": WHOLE})
    assert ignored["blocks"] == []
    result = await editor.run("llmEdits.apply",
                              {"response": WHOLE, "options": {"formats": ["whole-file"]}})
    assert [(b["file"], b["format"], b["status"]) for b in result["blocks"]] == [
        ("app.py", "whole-file", "applied"), ("new.py", "whole-file", "applied")]
    # The buffer keeps its CRLF; the editor received one edit of the one changed line.
    assert editor.text("app.py") == APP.replace("a + b", "a * b")
    assert editor.text("new.py") == "VALUE = 1\n"
    [request] = editor.apply_requests
    edits = [e for change in request.edit.document_changes or []
             if getattr(change, "text_document", None) is not None
             and change.text_document.uri == editor.uri("app.py") for e in change.edits]
    assert [e.range.start.line for e in edits] == [4]


async def test_an_elided_file_fails_with_a_diagnostic_and_changes_nothing(
        client: LanguageClient, tmp_path: Path) -> None:
    editor = Editor(client, tmp_path)
    editor.write("app.py", APP)
    await editor.start()
    result = await editor.run("llmEdits.apply",
                              {"response": ELIDED, "options": {"formats": ["whole-file"]}})
    [block] = result["blocks"]
    assert block["status"] == "failed"
    assert block["reason"].startswith("Looks like part of the file")
    assert (tmp_path / "app.py").read_bytes() == APP.encode() and editor.apply_requests == []
    [diagnostic] = editor.diagnostics("app.py")
    assert "elision placeholder" in diagnostic.message


async def test_instructions_teach_it_alone_and_not_among_every_format(
        client: LanguageClient, tmp_path: Path) -> None:
    editor = Editor(client, tmp_path)
    await editor.start()
    one = await editor.run("llmEdits.instructions", {"format": "whole-file"})
    assert one["formats"] == ["whole-file"] and "## Format `whole-file`" in one["text"]
    every = await editor.run("llmEdits.instructions", {})
    assert "whole-file" not in every["formats"] and "whole-file" not in every["text"]


# ------------------------------------------------------------------------------ CLI


def test_cli_formats_whole_file(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_bytes(APP.encode())
    response = tmp_path / "response.md"
    response.write_text(WHOLE, encoding="utf-8")
    runner = CliRunner()
    default = runner.invoke(cli, ["apply", str(response), "--root", str(root), "--json"])
    assert json.loads(default.output)["blocks"] == []
    applied = runner.invoke(cli, ["apply", str(response), "--root", str(root),
                                  "--formats", "whole-file", "--json"])
    assert applied.exit_code == 0, applied.output
    statuses = [(b["file"], b["status"]) for b in json.loads(applied.output)["blocks"]]
    assert statuses == [("app.py", "applied"), ("new.py", "applied")]
    assert (root / "app.py").read_bytes() == APP.replace("a + b", "a * b").encode()
    assert (root / "new.py").read_text() == "VALUE = 1\n"
    again = runner.invoke(cli, ["apply", str(response), "--root", str(root),
                                "--formats", "whole-file", "--json"])
    assert [b["status"] for b in json.loads(again.output)["blocks"]] == ["already-applied"] * 2
