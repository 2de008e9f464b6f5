"""Text from the response, the files or the client, as the server's messages show it.

Paths and URIs in a failure reason or a warning are shown with invisible and controlling
characters escaped (``\\u202e``): a bidirectional override or a zero-width character would
make a path read as another in the editor's message, and a control character has no place
in one. The rest of the text is left as it is.
"""

from __future__ import annotations

import unicodedata

# Control, format (bidi controls, zero-width characters), line and paragraph separators,
# surrogates, private use and unassigned code points.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def _escaped(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(text: str) -> str:
    """``text`` with every character of :data:`_HIDDEN_CATEGORIES` as an escape."""
    if text.isprintable():  # no such character (nor any other separator but space)
        return text
    return "".join(_escaped(c) if unicodedata.category(c) in _HIDDEN_CATEGORIES else c
                   for c in text)
