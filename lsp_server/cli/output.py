"""Plain output (no Rich): JSON, and text with the terminal's control characters escaped.

Text from the response or the files (paths, reasons, file lines, the diff) is shown with
control characters escaped: printed raw, a response's escape sequences would drive the
terminal (colours, the window title, OSC 52 clipboard writes, hyperlinks).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import click

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown(text: str) -> str:
    """``text`` with control characters (except tab and newline) as ``\\xNN``."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def echo_text(text: str) -> None:
    """Plain text (feedback, instructions) for a terminal, or verbatim into a pipe/file."""
    click.echo(shown(text) if sys.stdout.isatty() else text, nl=False)


def echo_json(data: dict[str, Any]) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


__all__ = ["echo_json", "echo_text", "shown"]
