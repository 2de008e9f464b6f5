"""Plain output (no Rich): JSON, and text with invisible and controlling characters escaped.

Text from the response or the files (paths, reasons, file lines, the diff) is shown with
these escaped: printed raw, a response's escape sequences would drive the terminal (colours,
the window title, OSC 52 clipboard writes, hyperlinks), bidirectional overrides would show
text in another order than it has (a path or a line that reads as another, "Trojan
Source"), and zero-width characters would make two different paths look the same.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import click

_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 and C1 controls but tab and newline
# Unicode's format characters (category Cf: bidi controls, zero-width characters, tags, ...)
# and line/paragraph separators (Zl, Zp), as of Unicode 14. tests/cli/test_output.py
# checks the list against the running Python's unicodedata.
_INVISIBLE = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
              "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
              "\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3"
              "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
# A lone surrogate (a hunk-patch call's JSON can spell "\\ud800") has no UTF-8 encoding:
# printed raw it stops the output with UnicodeEncodeError.
_SURROGATE = "\ud800-\udfff"
_HIDDEN = re.compile(f"[{_CONTROL}{_INVISIBLE}{_SURROGATE}]")
_HIDDEN_IN_PATHS = re.compile(f"[\t\n{_CONTROL}{_INVISIBLE}{_SURROGATE}]")
_INVISIBLE_IN_JSON = re.compile(f"[{_INVISIBLE}{_SURROGATE}]")
_SURROGATE_ONLY = re.compile(f"[{_SURROGATE}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(text: str) -> str:
    """``text`` with control characters (except tab and newline) and invisible ones as
    ``\\xNN``/``\\uNNNN`` escapes."""
    return _HIDDEN.sub(_escape, text)


def shown_path(path: str) -> str:
    """A path as :func:`shown`, tabs and newlines escaped too (a path holds none visibly)."""
    return _HIDDEN_IN_PATHS.sub(_escape, path)


def echo_text(text: str) -> None:
    """Plain text (feedback, instructions) for a terminal, or verbatim into a pipe/file
    (but lone surrogates, which no file can hold as UTF-8)."""
    if sys.stdout.isatty():
        text = shown(text)
    elif not text.isascii():
        text = _SURROGATE_ONLY.sub(_escape, text)
    click.echo(text, nl=False)


def echo_json(data: dict[str, Any], *, one_line: bool = False) -> None:
    """``data`` as JSON; invisible characters as ``\\uNNNN`` escapes (the same strings to a
    JSON reader; visible as escapes to someone reading the output). ``one_line``: on one
    line, flushed at once (``--stream``'s JSON lines: a reader acts on each as it comes)."""
    text = json.dumps(data, indent=None if one_line else 2, ensure_ascii=False)
    if not text.isascii():
        text = _INVISIBLE_IN_JSON.sub(_json_escape, text)
    click.echo(text)
    if one_line:
        sys.stdout.flush()


def _json_escape(match: re.Match[str]) -> str:
    # json.dumps's own escaping (ensure_ascii), astral characters as surrogate pairs
    return json.dumps(match.group())[1:-1]


__all__ = ["echo_json", "echo_text", "shown", "shown_path"]
