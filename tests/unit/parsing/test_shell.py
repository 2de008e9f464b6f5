"""Shell suggestions (lsp_server/parsing/shell.py): the file commands a response suggests."""

from __future__ import annotations

import pytest

from lsp_server.parsing import parse_response
from lsp_server.parsing.shell import detect_shell_suggestions


def test_commands_in_backticks() -> None:
    text = "Remove it with `git rm legacy.py` and rename via `git mv a.py b.py`."
    assert detect_shell_suggestions(text) == ["git rm legacy.py", "git mv a.py b.py"]


@pytest.mark.parametrize(("fence", "closing"), [
    ("```bash", "```"), ("```sh", "```"), ("```shell", "```"), ("~~~bash", "~~~"),
    ("```zsh", "```"), ("```console", "```"), ("````Bash", "````"), ("  ```sh", "```"),
])
def test_command_lines_in_a_shell_fence(fence: str, closing: str) -> None:
    text = f"Then:\n\n{fence}\ngit rm old_helpers.py\nmkdir -p src/new\n$ rm -rf build\n{closing}\n"
    assert detect_shell_suggestions(text) == [
        "git rm old_helpers.py", "mkdir -p src/new", "rm -rf build"]


def test_prompt_lines_anywhere() -> None:
    text = "Run:\n\n    $ git mv old.py new.py\n\nthen\n$   mkdir -p out  \n"
    assert detect_shell_suggestions(text) == ["git mv old.py new.py", "mkdir -p out"]


@pytest.mark.parametrize("text", [
    "rm -rf build\n",  # a bare line outside a shell fence may be a quote
    "```python\ngit rm x\n```\n",  # not a shell fence
    "```bash\necho git rm x\n```\n",  # not a command line of its own
    "```bash\n```\ngit rm x\n",  # after the fence closed
    "run `rm -rf` carefully\n",  # no argument
])
def test_not_suggestions(text: str) -> None:
    assert detect_shell_suggestions(text) == []


def test_each_command_once_in_response_order() -> None:
    text = ("```bash\ngit rm b.py\n```\nAlso `git rm a.py`, then `git rm b.py` again.\n"
            "$ git rm a.py\n")
    assert detect_shell_suggestions(text) == ["git rm b.py", "git rm a.py"]


def test_an_unclosed_shell_fence_runs_to_the_end() -> None:
    assert detect_shell_suggestions("```sh\nmkdir -p a/b\n") == ["mkdir -p a/b"]


def test_parse_response_returns_them_next_to_the_blocks() -> None:
    text = ("app.py\n««« EDIT\na\n═══════ REPL\nb\n»»» EDIT END\n\nThen remove the old helper:"
            "\n\n```bash\ngit rm old_helpers.py\n```\n")
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["app.py"]
    assert result.shell_suggestions == ["git rm old_helpers.py"]
