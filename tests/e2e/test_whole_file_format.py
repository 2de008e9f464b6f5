"""The opt-in whole-file format end to end: over stdio as an editor drives the server
(pytest-lsp), and through the ``llm-edits`` CLI's ``--formats whole-file``. Not asked for, the
same fences are read by the default ``code-block`` format, which decides whole file or
snippet itself; asked for, a fence is always the whole file, never merged."""

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
# One function of app.py: code-block merges it by name; whole-file takes it for the whole file.
SNIPPET = "app.py\n```python\ndef add(a, b):\n    return a * b\n```\n"


async def test_applies_as_minimal_edits_and_never_merges_when_asked_for(
        client: LanguageClient, tmp_path: Path) -> None:
    editor = Editor(client, tmp_path)
    editor.write("app.py", APP)
    await editor.start()
    editor.open("app.py")  # an open buffer (CRLF), the text the edit is computed on
    # Not asked for: the default code-block format reads the fences (a whole file, a create).
    default = await editor.run("llmEdits.preview", {"response": WHOLE})
    assert [(b["file"], b["format"], b["status"]) for b in default["blocks"]] == [
        ("app.py", "code-block", "validated"), ("new.py", "code-block", "validated")]
    assert default["blocks"][0]["match"] == "exact"
    # A snippet: code-block merges it by name; whole-file takes it for the whole file and
    # refuses to remove most of the file.
    merged = await editor.run("llmEdits.preview", {"response": SNIPPET})
    assert [(b["format"], b["status"], b["match"]) for b in merged["blocks"]] == [
        ("code-block", "validated", "syntax")]
    whole = await editor.run("llmEdits.preview",
                             {"response": SNIPPET, "options": {"formats": ["whole-file"]}})
    [refused] = whole["blocks"]
    assert (refused["format"], refused["status"]) == ("whole-file", "failed")
    assert refused["reason"].startswith("Looks like part of the file")
    assert editor.apply_requests == [] and editor.text("app.py") == APP
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
    snippet = tmp_path / "snippet.md"
    snippet.write_text(SNIPPET, encoding="utf-8")
    runner = CliRunner()
    # Not asked for: the default code-block format reads the fences.
    default = runner.invoke(cli, ["check", str(response), "--root", str(root), "--json"])
    assert default.exit_code == 0, default.output
    assert [(b["file"], b["format"], b["status"]) for b in json.loads(default.output)["blocks"]
            ] == [("app.py", "code-block", "validated"), ("new.py", "code-block", "validated")]
    merged = runner.invoke(cli, ["check", str(snippet), "--root", str(root), "--json"])
    assert [(b["format"], b["match"]) for b in json.loads(merged.output)["blocks"]] == [
        ("code-block", "syntax")]
    # Asked for: the snippet is taken for the whole file, and refused.
    refused = runner.invoke(cli, ["check", str(snippet), "--root", str(root),
                                  "--formats", "whole-file", "--json"])
    assert refused.exit_code == 1, refused.output
    assert [(b["format"], b["status"]) for b in json.loads(refused.output)["blocks"]] == [
        ("whole-file", "failed")]
    assert (root / "app.py").read_bytes() == APP.encode() and not (root / "new.py").exists()
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
