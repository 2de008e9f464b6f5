"""An editor's own reading of LSP positions and text edits, independent of the server's code.

The test editors (:mod:`lsp_server.testing.editor`, :mod:`lsp_server.testing.editor_session`)
apply the server's edits with these functions, so a test compares what the user would see
rather than what the server believes it sent.
"""

from __future__ import annotations

import re

from lsprotocol import types

_BREAK = re.compile(r"\r\n|\r|\n")


def _units(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(char) > 0xFFFF else 1


def offset_of(text: str, position: types.Position, encoding: str) -> int:
    """An editor's own reading of an LSP position (independent of the server's code)."""
    starts = [0] + [m.end() for m in _BREAK.finditer(text)]
    if position.line >= len(starts):
        return len(text)
    index = starts[position.line]
    units = 0
    while index < len(text) and text[index] not in "\r\n" and units < position.character:
        units += _units(text[index], encoding)
        index += 1
    return index


def end_position(text: str, encoding: str) -> types.Position:
    """The position just after the last character of ``text``."""
    lines = _BREAK.split(text)
    return types.Position(line=len(lines) - 1,
                          character=sum(_units(c, encoding) for c in lines[-1]))


def apply_text_edits(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    """``text`` with ``edits`` (positions in ``encoding``) applied, as an editor applies them."""
    spans = sorted(((offset_of(text, e.range.start, encoding),
                     offset_of(text, e.range.end, encoding), e.new_text) for e in edits),
                   key=lambda s: (s[0], s[1]))
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text
