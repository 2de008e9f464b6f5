"""Shell commands a response suggests (seeds 001/002): never run, only shown.

The file commands the seeds name (``git rm``, ``git mv``, ``mkdir -p``, ``rm -rf``) are found
where models write them: in backticks (``Remove it with `git rm old.py`.``), as lines of a
```` ```bash ````, ```` ```sh ````, ```` ```shell ```` (or ``zsh``, ``console``) fence, and on
``$ `` prompt lines. Each command is listed once, in response order.
"""

from __future__ import annotations

import re

_COMMANDS = ("git rm", "git mv", "mkdir -p", "rm -rf")
_COMMAND = r"(?:git rm|git mv|mkdir -p|rm -rf)"
_IN_BACKTICKS = re.compile(r"`(" + _COMMAND + r" [^`\n]+)`")
# A command line, prompted or not; inside a shell fence every such line counts, elsewhere
# only prompted ones (a line reading "rm -rf build" in prose may be a quote, not advice).
_COMMAND_LINE = re.compile(
    r"^[ \t]*(\$[ \t]+)?(" + _COMMAND + r"[ \t][^\n]*?)[ \t]*$", re.MULTILINE)
_SHELL_FENCE = re.compile(
    r"^ {0,3}(`{3,}|~{3,})[ \t]*(?:bash|sh|shell|zsh|console|shell-session)[ \t]*\n"
    r"(.*?)(?:^ {0,3}\1[ \t]*$|\Z)",
    re.MULTILINE | re.DOTALL | re.IGNORECASE)


def _shell_fences(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the contents of the response's shell fences."""
    return [(m.start(2), m.end(2)) for m in _SHELL_FENCE.finditer(text)]


def _inside(offset: int, ranges: list[tuple[int, int]]) -> bool:
    return any(start <= offset < end for start, end in ranges)


def detect_shell_suggestions(text: str) -> list[str]:
    """The file commands ``text`` suggests (see the module docstring), in order, once each."""
    if not any(command in text for command in _COMMANDS):
        return []  # the usual response: four scans in C, no regex
    found = [(m.start(), m.group(1).strip()) for m in _IN_BACKTICKS.finditer(text)]
    fences = _shell_fences(text) if "```" in text or "~~~" in text else []
    for m in _COMMAND_LINE.finditer(text):
        if m.group(1) or _inside(m.start(), fences):
            found.append((m.start(), m.group(2)))
    found.sort()
    return list(dict.fromkeys(command for _, command in found))
