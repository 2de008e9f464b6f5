"""Shell commands a response suggests (seeds 001/002): never run, only shown.

The file commands the seeds name (``git rm``, ``git mv``, ``mkdir -p``, ``rm -rf``) are found
where models write them: in backticks (``Remove it with `git rm old.py`.``), as lines of a
```` ```bash ````, ```` ```sh ````, ```` ```shell ```` (or ``zsh``, ``console``,
``shell-session``) fence, and on ``$ `` prompt lines. Each command is listed once, in
response order.

What stands before a prompt or a fence on its line is checked per match.
"""

from __future__ import annotations

import re

from .response_text import closing_fence, line_start

_COMMAND = r"(?:git rm|git mv|mkdir -p|rm -rf)"
# One pattern per place, each led by a literal that re finds with a C scan: an alternation of
# them, or a pattern anchored with "^", is tried at every position (25-70 ms per MB).
_IN_BACKTICKS = re.compile(r"`(" + _COMMAND + r" [^`\n]+)`")
_PROMPTED = re.compile(r"\$[ \t]+(" + _COMMAND + r"[ \t][^\n]*)")
_SHELL_FENCES = tuple(re.compile(
    "(" + re.escape(char * 3) + re.escape(char) + r"*)[ \t]*"
    r"(?i:bash|sh|shell|zsh|console|shell-session)[ \t]*\n") for char in "`~")
# Inside a shell fence every command line counts, prompted or not (outside one only prompted
# lines do: a line reading "rm -rf build" in prose may be a quote, not advice).
_COMMAND_LINE = re.compile(r"^[ \t]*(?:\$[ \t]+)?(" + _COMMAND + r"[ \t][^\n]*)", re.MULTILINE)


def _starts_line(text: str, pos: int, indent: str) -> bool:
    """Whether only ``indent`` characters stand between the start of the line and ``pos``."""
    start = line_start(text, pos)
    return not text[start:pos].strip(indent)


def _in_shell_fences(text: str, fences: list[tuple[int, int]] | None = None) -> list[
        tuple[int, str]]:
    """``(offset, command)`` for the command lines inside shell fences; each fence's
    ``(opener offset, end offset or -1 when it is not closed)`` goes to ``fences``."""
    backticks, tildes = _SHELL_FENCES
    openers = list(backticks.finditer(text))
    if "~~~" in text:  # rare: a C scan rather than a regex pass
        openers += tildes.finditer(text)
    found = []
    for m in openers:
        if _starts_line(text, m.start(), " "):
            run = m.group(1)
            close = closing_fence(run[0], len(run)).search(text, m.end())
            end = close.start() if close else len(text)
            if fences is not None:
                fences.append((m.start(), close.end() if close else -1))
            found += [(c.start(), c.group(1))
                      for c in _COMMAND_LINE.finditer(text, m.end(), end)]
    return found


def detect_shell_suggestions(text: str) -> list[str]:
    """The file commands ``text`` suggests (see the module docstring), in order, once each."""
    return list(dict.fromkeys(command.strip() for _, command in shell_commands(text)))


def shell_commands(text: str, fences: list[tuple[int, int]] | None = None) -> list[
        tuple[int, str]]:
    """``(offset, command)`` of every command ``text`` suggests, repeats included, in
    order; the shell fences read go to ``fences`` (see :func:`_in_shell_fences`)."""
    found = [(m.start(), m.group(1)) for m in _IN_BACKTICKS.finditer(text)]
    found += [(m.start(), m.group(1)) for m in _PROMPTED.finditer(text)
              if _starts_line(text, m.start(), " \t")]
    found += _in_shell_fences(text, fences)
    found.sort()
    return found
