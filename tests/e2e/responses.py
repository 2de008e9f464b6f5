"""Responses the end-to-end tests send."""

from __future__ import annotations


def edit_v3(path: str, old: str, new: str) -> str:
    """One edit-v3 block that replaces ``old`` with ``new`` in ``path``."""
    return f"{path}\n««« EDIT\n{old}═══════ REPL\n{new}»»» EDIT END\n"
