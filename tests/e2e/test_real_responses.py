"""Real responses over LSP, as an editor drives the server: what models and users really do
(FORMATS.md's rules for real responses).

The editor is lsp_server.testing.editor_session's: it answers ``workspace/applyEdit`` like VS
Code and keeps the diagnostics the server publishes."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from lsp_server.testing.editor_session import EditorSession

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


async def _run_on(tmp_path: Path, files: dict[str, str], response: str,
                  command: str = "llmEdits.apply") -> tuple[EditorSession, dict]:
    """A started editor over ``files`` and the result of ``command`` on ``response``; the
    caller stops the editor."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    editor = EditorSession(tmp_path)
    await editor.start()
    return editor, await editor.run(command, {"response": response})


async def test_prose_naming_a_file_sends_the_block_there_never_to_the_previous_file(
        tmp_path: Path) -> None:
    other = "other.py\n««« EDIT\nX = 1\n═══════ REPL\nX = 2\n»»» EDIT END\n\n"
    to_app = "««« EDIT\ndef add(a, b):\n═══════ REPL\ndef add(a, b):  # sum\n»»» EDIT END\n"
    editor, result = await _run_on(
        tmp_path, {"app.py": APP, "other.py": "X = 1\n", "src/util.py": "Y = 1\n"},
        other + "Now in `app.py`:\n" + to_app + "\nsrc\\util.py\n"
        "««« EDIT\nY = 1\n═══════ REPL\nY = 2\n»»» EDIT END\n\n"
        "Now update app.py so that it sums:\n" + to_app)
    try:
        assert [(b["file"], b["status"]) for b in result["blocks"]] == [
            ("other.py", "applied"), ("app.py", "applied"), ("src/util.py", "applied")]
        assert editor.text("app.py") == APP.replace("(a, b):\n", "(a, b):  # sum\n", 1)
        assert editor.text("src/util.py") == "Y = 2\n"
        (warning,) = result["warnings"]  # the last block: no path, and the prose names app.py
        assert "names `app.py`, not the previous block's `src/util.py`" in warning["message"]
    finally:
        await editor.stop()


async def test_padded_apply_patch_applies_and_an_empty_update_fails(tmp_path: Path) -> None:
    response = (" *** Begin Patch\n  *** Update File: app.py \n@@\n def add(a, b):\n"
                "-    return a + b\n+    return a * b\n*** Update File: other.py\n"
                "*** End Patch\t\n\n*** Update File: lost.py\n")
    editor, result = await _run_on(tmp_path, {"app.py": APP, "other.py": "X = 1\n"}, response)
    try:
        assert [(b["file"], b["status"]) for b in result["blocks"]] == [
            ("app.py", "applied"), ("other.py", "failed")]
        assert result["blocks"][1]["reason"].startswith("Empty update")
        assert editor.text("app.py") == APP.replace("a + b", "a * b")
        assert any("'*** Update File: lost.py' is not inside a '*** Begin Patch'"
                   in w["message"] for w in result["warnings"])
    finally:
        await editor.stop()


async def test_a_markdown_files_own_fences_in_a_semantic_diff(tmp_path: Path) -> None:
    readme = '# Title\n\nExample:\n\n```python\nprint("hi")\n```\n\nEnd.\n'
    response = ("## File `README.md` modified:\n\n### Hunk 1:\n#### Lines to remove:\n"
                '```markdown\n```python\nprint("hi")\n```\n```\n\n#### Lines to add:\n'
                '```markdown\n```python\nprint("hello")\n```\n```\n')
    editor, result = await _run_on(tmp_path, {"README.md": readme}, response)
    try:
        assert [b["status"] for b in result["blocks"]] == ["applied"]
        assert editor.text("README.md") == readme.replace('"hi"', '"hello"')
    finally:
        await editor.stop()


async def test_shell_commands_in_a_bash_fence_and_prompt_lines_are_suggested(
        tmp_path: Path) -> None:
    response = RESPONSE + "\nThen:\n\n```bash\ngit rm old_helpers.py\n```\n\n$ mkdir -p out\n"
    editor, result = await _run_on(tmp_path, {"app.py": APP}, response, "llmEdits.preview")
    try:
        assert result["shellSuggestions"] == ["git rm old_helpers.py", "mkdir -p out"]
        assert not (tmp_path / "old_helpers.py").exists() and not (tmp_path / "out").exists()
    finally:
        await editor.stop()


async def test_replacement_characters_in_a_response_are_a_warning_naming_the_line(
        tmp_path: Path) -> None:
    response = RESPONSE.replace("a * b", "a * b  # \ufffd\ufffd")
    editor, result = await _run_on(tmp_path, {"app.py": APP}, response, "llmEdits.preview")
    try:
        (warning,) = result["warnings"]
        assert warning["responseLine"] == 6
        assert "U+FFFD replacement characters on this line" in warning["message"]
    finally:
        await editor.stop()


async def test_text_between_two_hunks_of_a_diff_loses_no_hunk(tmp_path: Path) -> None:
    response = ("```diff\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n"
                "-    return a + b\n+    return a * b\nAnd greet louder:\n@@ -5,2 +5,2 @@\n"
                " def greet(name):\n-    return 'hi ' + name\n+    return 'HI ' + name\n```\n")
    editor, result = await _run_on(tmp_path, {"app.py": APP}, response)
    try:
        assert [b["status"] for b in result["blocks"]] == ["applied"]
        assert editor.text("app.py") == APP.replace("a + b", "a * b").replace("'hi '", "'HI '")
        (warning,) = result["warnings"]
        assert "'And greet louder:'" in warning["message"]
    finally:
        await editor.stop()
