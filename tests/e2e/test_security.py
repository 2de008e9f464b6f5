"""Path safety: a response may only touch regular files inside the workspace, never .git.

Every hostile path is tried through the engine (``plan_response`` against a workspace with a
sibling ``outside`` folder and symlinks), and the main ones also through the CLI (``llm-edits
apply`` must leave the disk byte-identical) and the server (the edit sent to the editor names
no file outside). See docs/safety.md for the rules and their reasons.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from fuzz.harness import HostileWorkspace
from lsp_server.model import FileEdit, ResourceOp
from lsp_server.planning import plan_response
from lsp_server.testing.editor_session import EditorSession
from lsp_server.workspace import read_disk_file


@pytest.fixture
def hostile(tmp_path: Path) -> HostileWorkspace:
    return HostileWorkspace.create(tmp_path / "hostile")


def _search_replace(path: str, old: str = "alpha", new: str = "ALPHA") -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n"


# Path as written → words the refusal must contain (docs/safety.md "Paths").
REFUSED = [
    ("../outside/secret.txt", "leads outside the workspace"),
    ("src/../../outside/x.py", "leads outside the workspace"),
    ("..", "leads outside the workspace"),
    ("~/x.txt", "home-relative"),
    ("~root/.bashrc", "home-relative"),
    ("C:/x.txt", "drive letter"),
    ("c:x.txt", "drive letter"),
    ("src\\b.py", "backslashes"),
    ("..\\outside\\secret.txt", "backslashes"),
    ("%2e%2e/outside/secret.txt", "URL-encoded"),
    ("src%2Fb.py", "URL-encoded"),
    ("a.txt%00", "URL-encoded"),
    ("file:///etc/passwd", "is a URL"),
    ("a\x00b.txt", "NUL"),
    ("evil\x1b]0;title\x07.txt", "control character"),  # would drive a terminal listing it
    ("tab\there.txt", "control character"),
    ("", "empty"),
    (".", "workspace folder itself"),
    (".git/config", ".git"),
    (".GIT/hooks/pre-commit", ".git"),
    ("src/.git/config", ".git"),
    ("link_git/config", ".git"),  # a symlink into .git
    ("link_out/secret.txt", "symlink"),  # under a directory symlink pointing out
    ("link_out/new.py", "symlink"),
    ("link_out_file", "symlink"),  # a file symlink pointing out
    ("dangling", "symlink"),  # a dangling link pointing out
]


def _absolute_refusals(ws: HostileWorkspace) -> list[tuple[str, str]]:
    return [(str(ws.outside / "secret.txt"), "outside the workspace"),
            (str(ws.root / ".." / "outside" / "x.py"), "outside the workspace"),
            (str(ws.root), "workspace folder itself")]


def _assert_nothing_planned_outside(ws: HostileWorkspace, plan) -> None:
    for change in plan.changes:
        targets = [change.path]
        if isinstance(change, ResourceOp) and change.new_path is not None:
            targets.append(change.new_path)
        for target in targets:
            assert ws.confined(target) is None, (change, ws.confined(target))


def _plan(ws: HostileWorkspace, response: str):
    return plan_response(response, read_disk_file, [ws.root], dry_run=False)


# ------------------------------------------------------------------ paths


@pytest.mark.parametrize(("path", "words"), REFUSED, ids=[repr(p) for p, _ in REFUSED])
def test_hostile_path_is_refused_with_a_reason(hostile: HostileWorkspace, path: str,
                                               words: str) -> None:
    before = hostile.snapshot()
    for response in (_search_replace(path, "secret", "pwned"),  # update
                     f"*** Begin Patch\n*** Add File: {path}\n+pwned\n*** End Patch\n",
                     f"*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n"):
        plan = _plan(hostile, response)
        assert plan.changes == []
        if not plan.blocks:  # not even read as a path: a block without a path, a warning
            assert plan.warnings, (path, response)
            continue
        (block,) = plan.blocks
        if block.file != path:  # a path line with "\" separators is read with "/"
            assert block.file == path.replace("\\", "/") and "\\" in path
            continue
        assert block.status == "failed", (path, response)
        assert block.reason.startswith("Path refused: "), block.reason
        assert words in block.reason, block.reason
        assert block.path is None
        assert plan.changes == []
    assert hostile.snapshot() == before


def test_absolute_paths_outside_and_the_root_itself_are_refused(
        hostile: HostileWorkspace) -> None:
    for path, words in _absolute_refusals(hostile):
        (block,) = _plan(hostile, _search_replace(path, "secret", "pwned")).blocks
        assert block.status == "failed" and words in block.reason, (path, block.reason)


@pytest.mark.parametrize("template", [
    "{p}\n<<<<<<< SEARCH\nsecret\n=======\npwned\n>>>>>>> REPLACE\n",
    "{p}\n««« EDIT\nsecret\n═══════ REPL\npwned\n»»» EDIT END\n",
    "{p}\n««« EDIT\n───────\nsecret\n═══════\npwned\n───────\n»»»\n",
    'edit {{"path": "{p}", "op": "update", "diff": "@@\\n-secret\\n+pwned\\n"}}\n',
    "## File `{p}` modified:\n### Hunk 1:\n#### Lines to remove:\n```\nsecret\n```\n"
    "#### Lines to add:\n```\npwned\n```\n",
    "*** Begin Patch\n*** Update File: {p}\n@@\n-secret\n+pwned\n*** End Patch\n",
    "--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-secret\n+pwned\n",
], ids=["search-replace", "edit-v3", "edit-v2", "hunk-patch", "semantic-diff", "apply-patch",
        "unified-diff"])
def test_every_format_refuses_traversal(hostile: HostileWorkspace, template: str) -> None:
    for path in ("../outside/secret.txt", "link_out/secret.txt", ".git/config"):
        plan = _plan(hostile, template.format(p=path))
        (block,) = plan.blocks
        assert block.status == "failed" and block.reason.startswith("Path refused"), (
            path, block.reason)
        assert plan.changes == []


@pytest.mark.parametrize("template", [
    "*** Begin Patch\n*** Update File: a.txt\n*** Move to: {t}\n@@\n-alpha\n+ALPHA\n"
    "*** End Patch\n",
    "## File `a.txt` moved to `{t}`.\n",
    'edit {{"path": "a.txt", "op": "update", "diff": "@@\\n-alpha\\n+A\\n", "rename": "{t}"}}\n',
    "diff --git a/a.txt b/{t}\nsimilarity index 100%\nrename from a.txt\nrename to {t}\n",
], ids=["apply-patch", "semantic-diff", "hunk-patch", "unified-diff"])
def test_move_targets_outside_or_into_git_are_refused(hostile: HostileWorkspace,
                                                      template: str) -> None:
    before = hostile.snapshot()
    for target in ("../outside/moved.txt", "link_out/moved.txt", ".git/hooks/post-checkout",
                   str(hostile.outside / "moved.txt"), "~/moved.txt"):
        response = template.format(t=target)
        response += _search_replace("a.txt", "beta", "BETA")  # later block, same file
        plan = _plan(hostile, response)
        move, later = plan.blocks
        assert move.status == "failed", (target, move)
        assert move.reason.startswith("Target path refused"), move.reason
        assert later.status == "skipped"  # the file's earlier block failed
        assert plan.changes == []
    assert hostile.snapshot() == before


def test_rename_onto_an_existing_file_and_create_over_one_are_refused(
        hostile: HostileWorkspace) -> None:
    response = ("*** Begin Patch\n*** Update File: a.txt\n*** Move to: src/b.py\n"
                "*** End Patch\n")
    (block,) = _plan(hostile, response).blocks
    assert block.status == "failed" and "Target already exists" in block.reason
    for response in ("*** Begin Patch\n*** Add File: src/b.py\n+x\n*** End Patch\n",
                     "--- /dev/null\n+++ b/src/b.py\n@@ -0,0 +1 @@\n+x\n",
                     "## File `src/b.py` created:\n#### Lines to add:\n```\nx\n```\n"):
        plan = _plan(hostile, response)
        (block,) = plan.blocks
        assert block.status == "failed" and "File already exists" in block.reason, block
        assert plan.changes == []


def test_paths_that_stay_inside_are_accepted(hostile: HostileWorkspace) -> None:
    root = hostile.root
    response = (_search_replace("src/../a.txt") + _search_replace("link_in", "beta", "BETA")
                + _search_replace(str(root / "crlf.txt"), "one", "ONE")
                + "*** Begin Patch\n*** Add File: .github/workflows/ci.yml\n+on: push\n"
                "*** Add File: .gitignore\n+*.pyc\n*** Add File: new/dir/x.py\n+x = 1\n"
                "*** End Patch\n")
    plan = _plan(hostile, response)
    assert [b.status for b in plan.blocks] == ["applied"] * 6, [b.reason for b in plan.blocks]
    _assert_nothing_planned_outside(hostile, plan)
    edits = {c.path: c for c in plan.changes if isinstance(c, FileEdit)}
    # link_in is a.txt: one file, its edit addressed by the name first used (not resolved).
    assert root / "a.txt" in edits and root / "link_in" not in edits
    assert edits[root / "a.txt"].new_text.startswith("ALPHA\nBETA\n")


# ------------------------------------------------------------------ through the CLI and server


def _all_hostile_response(ws: HostileWorkspace) -> str:
    # (A path line with "\" separators is read with "/": those are not refused there.)
    paths = [p for p, _ in REFUSED if p and "\x00" not in p and p.strip() == p and "\\" not in p]
    paths += [p for p, _ in _absolute_refusals(ws)]
    parts = [_search_replace(p, "secret", "pwned") for p in paths]
    parts.append("*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../outside/a.txt\n"
                 "*** Add File: ../outside/new.txt\n+pwned\n"
                 "*** Delete File: link_out/secret.txt\n*** End Patch\n")
    parts.append(_search_replace("uni.txt", "na\u00efve", "naive"))  # the one allowed block
    return "".join(parts)


def test_cli_apply_leaves_everything_outside_byte_identical(hostile: HostileWorkspace,
                                                            tmp_path: Path) -> None:
    before = hostile.snapshot()
    response = tmp_path / "response.md"
    response.write_text(_all_hostile_response(hostile), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "lsp_server.cli", "apply", "--json", "--root",
         str(hostile.root), str(response)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr
    blocks = json.loads(run.stdout)["blocks"]
    assert [b["status"] for b in blocks].count("applied") == 1
    assert all(b["reason"] and "refused" in b["reason"] for b in blocks
               if b["status"] == "failed")
    after = hostile.snapshot()
    changed = {k for k in before if before[k] != after.get(k)} | (set(after) - set(before))
    assert changed == {os.path.join("ws", "uni.txt")}


async def test_server_sends_no_edit_outside_the_workspace(hostile: HostileWorkspace) -> None:
    before = hostile.snapshot()
    editor = EditorSession(hostile.root)
    await editor.start()
    try:
        editor.open("uni.txt")
        result = await editor.run("llmEdits.apply", {"response": _all_hostile_response(hostile)})
        statuses = [b["status"] for b in result["blocks"]]
        assert statuses.count("applied") == 1, result["blocks"]
        assert all(b["uri"] is None for b in result["blocks"] if b["status"] == "failed"
                   and b["reason"].startswith("Path refused"))
        changes = result["edit"]["documentChanges"]
        uris = [c.get("textDocument", {}).get("uri") or c.get("uri") or c.get("newUri")
                for c in changes]
        assert uris == [editor.uri("uni.txt")]
        assert editor.text("uni.txt") == "caf\u00e9 \U0001f600\nnaive\n"
    finally:
        await editor.stop()
    assert hostile.snapshot() == before  # the edit went to the open buffer only


def test_cli_writes_through_a_symlink_inside_the_workspace(hostile: HostileWorkspace,
                                                           tmp_path: Path) -> None:
    # The CLI replaced the link itself with a regular file holding the new text, so the link
    # was lost and its target kept the old text.
    response = tmp_path / "response.md"
    response.write_text(_search_replace("link_in"), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "lsp_server.cli", "apply", "--root", str(hostile.root),
         str(response)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert os.readlink(hostile.root / "link_in") == "a.txt"
    assert (hostile.root / "a.txt").read_text(encoding="utf-8").startswith("ALPHA\nbeta\n")


# ------------------------------------------------------------------ special files


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_fifo_in_the_workspace_is_refused_without_blocking(hostile: HostileWorkspace) -> None:
    # Reading a FIFO waited for a writer forever: the CLI hung, the server's worker thread
    # never answered.
    os.mkfifo(hostile.root / "pipe")
    result: list = []
    worker = threading.Thread(target=lambda: result.append(plan_response(
        _search_replace("pipe"), read_disk_file, [hostile.root])), daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "reading a FIFO blocked"
    (block,) = result[0].blocks
    assert block.status == "failed"
    assert "not a regular file" in (block.reason or "")


def test_a_device_is_not_read() -> None:
    # /dev/zero reports size 0 and never ends: it would be read until memory ran out.
    snapshot = read_disk_file(Path("/dev/zero"))
    assert snapshot.text is None
    assert "not a regular file" in (snapshot.error or "")


def test_cli_does_not_hang_on_a_fifo(hostile: HostileWorkspace, tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs mkfifo")
    os.mkfifo(hostile.root / "pipe")
    response = tmp_path / "response.md"
    response.write_text(_search_replace("pipe"), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "lsp_server.cli", "apply", "--json", "--root",
         str(hostile.root), str(response)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    (block,) = json.loads(run.stdout)["blocks"]
    assert "not a regular file" in block["reason"]


# ------------------------------------------------------------------ files that are not UTF-8

# name → bytes on disk, the reason's words (None: UTF-8 with a BOM, which is edited)
ENCODED = {
    "latin1.txt": ("caf\u00e9\nna\u00efve\n".encode("latin-1"), "not valid UTF-8"),
    "cp1252.txt": ("\u201cquoted\u201d\nna\u00efve\n".encode("cp1252"), "not valid UTF-8"),
    "broken.txt": (b"ok\nna\xc3\xafve\nhalf \xe2\x82\n", "not valid UTF-8"),
    "surrogate.txt": (b"na\xc3\xafve\n\xed\xa0\x80\n", "not valid UTF-8"),
    "utf16le.txt": ("\ufeffna\u00efve\n".encode("utf-16-le"), "UTF-16"),
    "utf16be.txt": ("\ufeffna\u00efve\n".encode("utf-16-be"), "UTF-16"),
    "utf32.txt": ("\ufeffna\u00efve\n".encode("utf-32-le"), "UTF-32"),
    "utf16-nobom.txt": ("na\u00efve\n".encode("utf-16-le"), "binary"),
    "bom.txt": (b"\xef\xbb\xbfna\xc3\xafve\nrest\n", None),
}
NAIVE_RESPONSE = "".join(f"{name}\n<<<<<<< SEARCH\nna\u00efve\n=======\nnaive\n>>>>>>> REPLACE\n"
                         for name in ENCODED)


def _encoded_workspace(root: Path) -> Path:
    root.mkdir()
    for name, (data, _words) in ENCODED.items():
        (root / name).write_bytes(data)
    return root


def _check_encoded_results(blocks: list[dict], root: Path) -> None:
    for block in blocks:
        data, words = ENCODED[block["file"]]
        if words is None:
            assert block["status"] == "applied", block
            assert (root / block["file"]).read_bytes() == b"\xef\xbb\xbfnaive\nrest\n"
        else:
            assert block["status"] == "failed", block
            assert words in block["reason"], block["reason"]
            assert (root / block["file"]).read_bytes() == data, block["file"]


def test_cli_refuses_non_utf8_files_and_leaves_their_bytes(tmp_path: Path) -> None:
    root = _encoded_workspace(tmp_path / "ws")
    response = tmp_path / "response.md"
    response.write_text(NAIVE_RESPONSE, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "lsp_server.cli", "apply", "--json", "--root", str(root),
         str(response)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr
    _check_encoded_results(json.loads(run.stdout)["blocks"], root)


async def test_server_refuses_non_utf8_files_and_leaves_their_bytes(tmp_path: Path) -> None:
    root = _encoded_workspace(tmp_path / "ws")
    editor = EditorSession(root)
    await editor.start()
    try:
        result = await editor.run("llmEdits.apply", {"response": NAIVE_RESPONSE})
        # Only bom.txt was sent (the editor wrote it, BOM kept); the others never left.
        uris = [c["textDocument"]["uri"] for c in result["edit"]["documentChanges"]]
        assert uris == [editor.uri("bom.txt")]
        _check_encoded_results(result["blocks"], root)

        # An open buffer of the Latin-1 file: the editor decoded it (and saves it in its
        # encoding), so the server edits the buffer text and never touches the bytes.
        editor.open("latin1.txt", "caf\u00e9\nna\u00efve\n")
        response = "latin1.txt\n<<<<<<< SEARCH\nna\u00efve\n=======\nnaive\n>>>>>>> REPLACE\n"
        result = await editor.run("llmEdits.apply", {"response": response})
        assert [b["status"] for b in result["blocks"]] == ["applied"]
        assert editor.text("latin1.txt") == "caf\u00e9\nnaive\n"
        assert (root / "latin1.txt").read_bytes() == ENCODED["latin1.txt"][0]
    finally:
        await editor.stop()


def test_cli_delete_of_a_fifo_or_a_symlink(hostile: HostileWorkspace, tmp_path: Path) -> None:
    # Deleting read the file first (to restore it if an atomic run fails): a FIFO blocked
    # that read forever. A symlink inside the workspace is removed as a link.
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs mkfifo")
    os.mkfifo(hostile.root / "pipe")
    response = tmp_path / "response.md"
    response.write_text("*** Begin Patch\n*** Delete File: pipe\n*** Delete File: link_in\n"
                        "*** End Patch\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "lsp_server.cli", "apply", "--json", "--root",
         str(hostile.root), str(response)], capture_output=True, text=True, timeout=60)
    pipe, link = json.loads(run.stdout)["blocks"]
    assert pipe["status"] == "failed" and "not a regular file" in pipe["reason"]
    assert (hostile.root / "pipe").exists()
    assert link["status"] == "applied"
    assert not os.path.lexists(hostile.root / "link_in")
    assert (hostile.root / "a.txt").read_text(encoding="utf-8").startswith("alpha")


# ------------------------------------------------------------------ terminal output


def test_cli_output_never_carries_escape_sequences_from_the_response(tmp_path: Path) -> None:
    # Printed raw, a response's escape sequences drive the terminal: colours, the window
    # title, OSC 52 clipboard writes. Paths, reasons, warnings and the diff are escaped.
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n", encoding="utf-8")
    evil = "\x1b]0;pwned\x07\x1b[2J"
    response = tmp_path / "response.md"
    response.write_text(
        f'edit {json.dumps({"path": "x" + evil + ".txt", "op": "create", "diff": "x"})}\n'
        + _search_replace("a.txt", "alpha", "alpha" + evil)
        + f"*** Begin Patch\n*** Update File: a.txt{evil}\n", encoding="utf-8")
    for command in (["check", "--diff"], ["apply", "--diff"], ["parse"]):
        run = subprocess.run(
            [sys.executable, "-m", "lsp_server.cli", *command, str(response), "--root",
             str(root)][: None if command[0] != "parse" else -2],
            capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
        assert "\x1b" not in run.stdout + run.stderr, (command, run.stdout)
        assert "\x07" not in run.stdout + run.stderr
        assert "\\x1b]0;pwned\\x07" in run.stdout, (command, run.stdout)
    # The file itself got the text as written: escaping is for display only.
    assert (root / "a.txt").read_text(encoding="utf-8") == "alpha" + evil + "\n"


# ------------------------------------------------------------ aliases and names (issue 13)


def test_two_names_of_one_file_are_planned_as_one_file(hostile: HostileWorkspace) -> None:
    # Through a symlink inside the workspace the two blocks were planned as two files
    # against the same text: two edits of one file (one lost, or overlapping).
    os.symlink("src", hostile.root / "lib")
    response = (_search_replace("a.txt", "alpha", "ALPHA")
                + _search_replace("link_in", "beta", "BETA")
                + _search_replace("lib/b.py", "    return x + 1", "    return x + 2")
                + _search_replace("src/b.py", "    return y * 2", "    return y * 3"))
    plan = _plan(hostile, response)
    assert [b.status for b in plan.blocks] == ["applied"] * 4
    assert [b.file for b in plan.blocks] == ["a.txt", "link_in", "lib/b.py", "src/b.py"]
    edits = [c for c in plan.changes if isinstance(c, FileEdit)]
    assert [e.path for e in edits] == [hostile.root / "a.txt", hostile.root / "lib" / "b.py"]
    assert edits[0].new_text == "ALPHA\nBETA\ngamma\ndelta\n"
    assert "x + 2" in edits[1].new_text and "y * 3" in edits[1].new_text


def test_a_second_name_of_a_changed_file_sees_the_change(hostile: HostileWorkspace) -> None:
    plan = _plan(hostile, _search_replace("a.txt", "alpha", "ALPHA")
                 + _search_replace("link_in", "alpha", "OMEGA"))
    assert [b.status for b in plan.blocks] == ["applied", "failed"]
    (edit,) = plan.changes
    assert edit.new_text.startswith("ALPHA\n")


def test_moving_a_relative_symlink_to_another_depth_is_refused(hostile: HostileWorkspace) -> None:
    # src/up.txt -> ../a.txt; moved to the top it would point at ../a.txt, outside.
    assert os.readlink(hostile.root / "src" / "up.txt") == "../a.txt"
    before = hostile.snapshot()
    for response in ('edit {"path": "src/up.txt", "op": "update", "rename": "up.txt"}\n',
                     "*** Begin Patch\n*** Update File: src/up.txt\n*** Move to: up.txt\n"
                     "@@\n-alpha\n+ALPHA\n*** End Patch\n",
                     "## File `src/up.txt` moved to `deep/er/up.txt`.\n"):
        plan = _plan(hostile, response)
        (block,) = plan.blocks
        assert block.status == "failed", response
        assert block.reason.startswith("Target path refused: ") and "symlink" in block.reason
        assert plan.changes == []
    ok = _plan(hostile, 'edit {"path": "src/up.txt", "op": "update", "rename": "src/up2.txt"}\n')
    assert [b.status for b in ok.blocks] == ["applied"]
    assert hostile.snapshot() == before


@pytest.mark.parametrize("path", [".git./config", "GIT~1/config", ".git::$INDEX_ALLOCATION/x",
                                  ".g\u200cit/config", "\u202etxt.exe", "a\u200bb.txt"])
def test_git_aliases_and_invisible_characters_are_refused_in_every_format(
        hostile: HostileWorkspace, path: str) -> None:
    for response in (_search_replace(path), f"*** Begin Patch\n*** Add File: {path}\n+x\n"
                     "*** End Patch\n",
                     _search_replace("a.txt") + f"*** Begin Patch\n*** Update File: a.txt\n"
                     f"*** Move to: {path}\n@@\n-beta\n+BETA\n*** End Patch\n"):
        plan = _plan(hostile, response)
        refused = [b for b in plan.blocks if b.status == "failed"]
        assert len(refused) == 1 and "refused" in refused[0].reason, response
        assert not any(isinstance(c, ResourceOp) for c in plan.changes)


async def test_server_says_a_path_is_too_long(hostile: HostileWorkspace) -> None:
    # The server path reported it as "File already exists" (or sent a CreateFile the editor
    # could not carry out, under a directory still to be made).
    long_name = "x" * 300
    editor = EditorSession(hostile.root)
    await editor.start()
    try:
        response = "".join(
            f'edit {json.dumps({"path": path, "op": "create", "diff": "hi"})}\n'
            for path in (f"{long_name}.txt", f"d/{long_name}/y.txt", f"src/{long_name}.py"))
        result = await editor.run("llmEdits.preview", {"response": response})
        for block in result["blocks"]:
            assert block["status"] == "failed", block
            assert "File name too long" in block["reason"], block["reason"]
            assert "exists" not in block["reason"]
    finally:
        await editor.stop()
