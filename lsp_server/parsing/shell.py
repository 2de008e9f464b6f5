"""Shell commands a response suggests in backticks (seeds 001/002): never run, only shown."""

from __future__ import annotations

import re

_SHELL_RE = re.compile(r"`((?:git rm|git mv|mkdir -p|rm -rf) [^`\n]+)`")


def detect_shell_suggestions(text: str) -> list[str]:
    """``git rm``, ``git mv``, ``mkdir -p`` and ``rm -rf`` commands in backticks, in order,
    without duplicates."""
    seen: dict[str, None] = {}
    for m in _SHELL_RE.finditer(text):
        seen.setdefault(m.group(1).strip(), None)
    return list(seen)
