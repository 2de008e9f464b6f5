"""README.md and the docs stay true: the opening commands exist, the editor snippets are the
tested ones, every link between the docs leads somewhere, and nothing points outside the
repository or at one machine's directories. And the repository's code imports as packaged:
no file edits the import path."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
README = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")


def _code_blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.S | re.M)


def test_readme_opens_with_the_two_commands() -> None:
    first = _code_blocks(README, "sh")[0].splitlines()
    commands = [line.split("#")[0].strip() for line in first]
    assert commands == ["./scripts/demo", "./scripts/test"]
    for command in commands:
        script = PROJECT_ROOT / command
        assert script.is_file() and os.access(script, os.X_OK), command


def test_readme_is_a_front_page() -> None:
    # The details live in docs/; the README says what the project is and where to go.
    assert len(README.splitlines()) <= 200
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README)
    assert len(images) == 1 and (PROJECT_ROOT / images[0]).is_file()


def test_ci_runs_the_readme_test_command() -> None:
    assert "./scripts/test" in (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_editor_snippets_are_the_tested_files() -> None:
    helix = (PROJECT_ROOT / "editors" / "helix" / "languages.toml").read_text(encoding="utf-8")
    assert helix in _code_blocks(README, "toml")
    editors_doc = (PROJECT_ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    for elisp in _code_blocks(README, "elisp"):
        assert elisp in editors_doc  # the block tests/editors/emacs/driver.el follows
    for lua in _code_blocks(README, "lua"):
        assert lua in editors_doc


def test_python_api_example_runs(tmp_path: Path) -> None:
    (example,) = _code_blocks(README, "python")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "a.py").write_text("def f():\n    return 1\n")
    (tmp_path / "response.md").write_text(
        "a.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", example], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "validated", "a.py", "1", "None"]


# The repository's own files: what git tracks or would track (README, ARCHITECTURE,
# CONTRIBUTING, docs/, the parts' READMEs, code). Ignored trees (virtual environments, the
# bench's aider and Codex installs, node_modules, the model's weights) are not ours.
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _our_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, check=True,
    ).stdout
    return sorted(PROJECT_ROOT / name for name in listed.split("\0")
                  if name and (PROJECT_ROOT / name).is_file())


def _markdown_files() -> list[Path]:
    return [path for path in _our_files() if path.suffix == ".md"]


def _text_files() -> list[Path]:
    suffixes = {".md", ".py", ".ts", ".lua", ".el", ".toml", ".json", ".sh", ".mjs", ".txt"}
    return [path for path in _our_files()
            if path.suffix in suffixes or (path.parent.name == "scripts" and not path.suffix)]


def _outside_fences(markdown: Path) -> str:
    """The text of ``markdown`` without its fenced code blocks (CommonMark: a fence closes on
    the same character, at least as long, so ```` can hold ```)."""
    kept, fence = [], None
    for line in markdown.read_text(encoding="utf-8").splitlines():
        # A backtick fence's info string holds no backtick (```` ```json ```` is inline code).
        opener = re.match(r" {0,3}(`{3,}(?=[^`]*$)|~{3,})", line)
        if fence is None and opener:
            fence = opener.group(1)
        elif fence is not None and opener and opener.group(1)[0] == fence[0] \
                and len(opener.group(1)) >= len(fence) and not line.strip().strip(fence[0]):
            fence = None
        elif fence is None:
            kept.append(line)
    return "\n".join(kept)


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(markdown: Path) -> set[str]:
    text = _outside_fences(markdown)
    return {_anchor(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


def _links(markdown: Path) -> list[str]:
    text = re.sub(r"`[^`\n]*`", "", _outside_fences(markdown))  # quoted as code: not a link
    return _LINK.findall(text)


def test_markdown_files_are_found() -> None:
    names = {p.relative_to(PROJECT_ROOT).as_posix() for p in _markdown_files()}
    assert {"README.md", "ARCHITECTURE.md", "CONTRIBUTING.md", "docs/formats.md",
            "docs/protocol.md"} <= names


def test_every_link_between_the_docs_leads_somewhere() -> None:
    broken = []
    for markdown in _markdown_files():
        for link in _links(markdown):
            if re.match(r"[a-z][a-z0-9+.-]*:", link):  # https:, mailto:, ...
                continue
            target, _, fragment = link.partition("#")
            path = (markdown.parent / target).resolve() if target else markdown
            where = f"{markdown.relative_to(PROJECT_ROOT)}: {link}"
            if not path.is_relative_to(PROJECT_ROOT):
                broken.append(f"{where} (outside the repository)")
            elif not path.exists():
                broken.append(f"{where} (no such file)")
            elif fragment and path.suffix == ".md" and fragment not in _anchors(path):
                broken.append(f"{where} (no such heading)")
    assert not broken, "\n".join(broken)


def test_nothing_points_at_the_development_machine() -> None:
    # Spelled in pieces so that this file does not match itself.
    machine_dirs = re.compile("/" + "work/|/" + "tmp/team|" + re.escape(".." + "/shared/"))
    found = []
    for path in _text_files():
        if path == Path(__file__).resolve():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace")
                                      .splitlines(), 1):
            if machine_dirs.search(line):
                found.append(f"{path.relative_to(PROJECT_ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_no_file_edits_the_import_path() -> None:
    # tests, fuzz/, bench/ and evals/ import the package and each other as packages (pytest's
    # pythonpath, python -m from the root); another checkout is measured in a child process.
    # An eval task's check.py runs inside the task's own workspace and imports its code from
    # there: that is the task, not ours.
    edits = re.compile(r"sys\.path\.(insert|append)|sys\.path\[:?\] *=")
    found = [f"{path.relative_to(PROJECT_ROOT)}:{number}"
             for path in _text_files() if path.suffix == ".py"
             and not (path.parent.parent.name == "tasks" and path.name == "check.py")
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if edits.search(line) and path != Path(__file__).resolve()]
    assert not found, "\n".join(found)
