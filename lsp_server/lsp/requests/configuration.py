"""``workspace/didChangeConfiguration``, ``llmEdits.instructions`` and the argument of
``llmEdits.watch`` / ``unwatch``."""

from __future__ import annotations

from typing import Any

from ...instructions import TAUGHT_FORMAT_NAMES, format_instructions
from ...results import JsonObject
from ...session.options import OptionsError, parse_options
from ..editor import Editor
from ..errors import CommandError
from ..live.documents import ResponseDocuments
from .arguments import (
    parse_instructions_request,
)


def document_uri(argument: Any, command: str) -> str:
    """``{uri}`` of ``llmEdits.watch`` / ``unwatch``."""
    if not isinstance(argument, dict) or not isinstance(argument.get("uri"), str):
        raise CommandError(f"{command} takes {{uri}}: the URI of an open document")
    return argument["uri"]


def change_configuration(editor: Editor, documents: ResponseDocuments,
                         settings: Any) -> str | None:
    """``workspace/didChangeConfiguration``: the settings given (``{"llmEdits": {...}}`` or
    the options themselves) replace the defaults of the same name; a warning when they are
    not valid (then nothing changes)."""
    if isinstance(settings, dict) and isinstance(settings.get("llmEdits"), dict):
        settings = settings["llmEdits"]
    if not isinstance(settings, dict):
        return None  # a client announcing a change it does not send: nothing to do
    merged = {**editor.default_options, **settings}
    try:
        parse_options(None, merged)
    except OptionsError as exc:
        return f"settings ignored: {exc}"
    editor.default_options = merged
    documents.options_changed()
    return None


def instructions(argument: Any) -> JsonObject:
    """``llmEdits.instructions``: the prompt text teaching a model one format, or all."""
    name = parse_instructions_request(argument)
    try:
        text = format_instructions(name)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    return {"text": text, "formats": [name] if name else list(TAUGHT_FORMAT_NAMES)}
