"""System-prompt text that teaches a model our edit formats.

``format_instructions("edit-v3")`` returns the general rules (read the file first, copy lines
verbatim, unique context, no placeholders, blocks apply in order, ...) followed by the
description of that one format with a worked example; ``format_instructions()`` returns the
general rules and every format of the registry (``lsp_server.formats``). The texts live as
Markdown package data in ``lsp_server/instructions/*.md`` (``common.md`` plus the file each
format's registry entry names) so they can be read and edited as prose. Every example in
them parses with :func:`lsp_server.parse_response` into the blocks it claims to show, and
applies to the small workspace its text describes (``tests/test_instructions.py`` checks
both).

Used by the ``llmEdits.instructions`` server command and ``llm-edits instructions``.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from .formats import DEFAULT_FORMATS, FORMAT_NAMES, format_named

__all__ = ["FORMAT_NAMES", "TAUGHT_FORMAT_NAMES", "format_instructions"]

# The formats taught when none is named: the default ones but agents' tool-call formats
# (str-replace, apply-patch-call), which the agent's own tool defines.
TAUGHT_FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in DEFAULT_FORMATS if f.instructions)

_ALL_FORMATS_INTRO = (
    "You may use any of the formats below; the tool recognises each block by its markers, so "
    "one answer may mix them. Prefer one format per answer."
)


@cache
def _read(file_name: str) -> str:
    return (files(__package__) / "instructions" / file_name).read_text(encoding="utf-8")


def format_instructions(format: str | None = None) -> str:
    """The instruction text for one format (``None``: every format but the opt-in ones and
    agents' tool-call formats, :data:`TAUGHT_FORMAT_NAMES`).

    Raises ``ValueError`` naming the known formats when ``format`` is not one of them, and
    for a tool-call format (nothing to teach).
    """
    if format is not None and format not in FORMAT_NAMES:
        raise ValueError(
            f"unknown format {format!r}; known formats: {', '.join(FORMAT_NAMES)}"
        )
    if format is not None and not format_named(format).instructions:
        raise ValueError(f"{format} is an agent's own tool-call format, defined by the agent's "
                         "tool: there are no instructions to give a model for it")
    parts = [_read("common.md").rstrip("\n")]
    if format is None:
        parts.append(_ALL_FORMATS_INTRO)
        parts.extend(_read(format_named(name).instructions).rstrip("\n")
                     for name in TAUGHT_FORMAT_NAMES)
    else:
        parts.append(_read(format_named(format).instructions).rstrip("\n"))
    return "\n\n".join(parts) + "\n"
