"""How a suggested shell command is shown before anyone runs it (docs/safety.md "Shell
suggestions"): one place for the server, the CLI and every client's confirmation prompt.

A command from a model's response is text an attacker may have shaped. Shown raw, a right-to-left
override makes ``rm -rf build`` read as something else, a line separator or a carriage return
hides what follows it, and 300 spaces push the rest of the line out of the dialog. So:

- :func:`display_text`: every character that is not plainly visible is written as ``<U+XXXX>``
  (control characters, tab included; bidi controls and isolates; line and paragraph
  separators; zero-width and other format characters; spaces other than the ASCII space;
  private-use, surrogate and unassigned code points), and a run of more than
  :data:`MAX_SPACES` spaces as ``<N spaces>``.
- :func:`command_parts`: a compound command is split where a shell would run a second
  command: ``;``, ``&``, ``&&``, ``||``, a newline, and a ``|`` into a shell or interpreter
  (``| sh``, ``| sudo bash``, ``| python3``). Quotes and backslashes are honoured, so
  ``git mv "a;b" c`` is one command. A pipe into anything else (``| grep x``) stays inside its
  part. Each part is confirmed and run on its own.
"""

from __future__ import annotations

import re

MAX_SPACES = 4  # a longer run of spaces is shown as "<N spaces>"

_SPACE_RUN = re.compile(f" {{{MAX_SPACES + 1},}}")

# Words that run the text piped into them as code.
_INTERPRETERS = frozenset((
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "pwsh",
    "powershell", "busybox", "python", "python2", "python3", "perl", "ruby", "node", "nodejs",
    "deno", "bun", "php", "lua", "tclsh", "osascript", "sudo", "doas", "su", "env", "xargs",
    "eval", "exec", "source",
))


def display_text(text: str) -> str:
    """``text`` with every character that is not plainly visible written as ``<U+XXXX>``
    and long runs of spaces shortened (see the module docstring)."""
    plain = text.isascii() and text.isprintable()
    shown = text if plain else "".join(_shown_char(c) for c in text)
    return _SPACE_RUN.sub(lambda m: f"<{len(m.group(0))} spaces>", shown)


def _shown_char(c: str) -> str:
    # str.isprintable is False for exactly the categories "Other" (Cc, Cf, Co, Cs, Cn) and
    # "Separator" (Zs, Zl, Zp), the ASCII space excepted.
    return c if c.isprintable() else f"<U+{ord(c):04X}>"


def command_parts(command: str) -> list[str]:
    """The commands a shell would run for ``command``, in order, each stripped (see the
    module docstring); empty ones are left out."""
    parts: list[str] = []
    start = 0
    at = 0
    quote = ""
    n = len(command)
    while at < n:
        c = command[at]
        if quote:
            if c == "\\" and quote == '"':
                at += 2
                continue
            if c == quote:
                quote = ""
            at += 1
            continue
        cut = _separator_length(command, at)
        if cut:
            parts.append(command[start:at])
            at += cut
            start = at
            continue
        if c == "\\":
            at += 2
            continue
        if c in "'\"":
            quote = c
        at += 1
    parts.append(command[start:])
    return [part.strip() for part in parts if part.strip()]


def _separator_length(command: str, at: int) -> int:
    """How many characters of a command separator start at ``at`` (0: none)."""
    c = command[at]
    if c in ";\n\r":
        return 1
    pair = command[at : at + 2]
    if pair in ("&&", "||"):
        return 2
    if c == "&" and command[at + 1 : at + 2] != ">" and command[at - 1 : at] not in (">", "<"):
        return 1  # a command run in the background, then the next one (not "&>", ">&")
    if c == "|" and _pipes_into_interpreter(command, at + 1):
        return 1
    return 0


def _pipes_into_interpreter(command: str, after: int) -> bool:
    """The command after a ``|`` at ``after - 1`` runs what it reads (``sh``, ``/bin/bash``)."""
    words = command[after:].split(None, 1)
    if not words:
        return False
    word = words[0].strip("'\"").rsplit("/", 1)[-1]
    return word in _INTERPRETERS


def shell_command_dict(command: str) -> dict[str, object]:
    """A suggestion as the result JSON carries it (docs/protocol.md ``shellCommands``): the
    command, its display text, and the parts each confirmed on its own."""
    return {
        "command": command,
        "display": display_text(command),
        "parts": [{"command": part, "display": display_text(part)}
                  for part in command_parts(command)],
    }
