"""The four tools an agent sees: names, descriptions, argument schemas and annotations.

Plain data (no import of the ``mcp`` SDK): :mod:`.sdk` turns each :class:`ToolSpec` into the
SDK's ``Tool``. The names and arguments are the contract (docs/agents.md); a new argument may
be added, none renamed or removed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..formats import FORMAT_NAMES, FORMATS

JsonSchema = dict[str, Any]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: JsonSchema
    # MCP's tool annotations (hints a client shows or uses to ask the user before a call)
    annotations: dict[str, bool] = field(default_factory=dict)


_SHA256 = {"type": "string", "pattern": "^[0-9a-fA-F]{64}$"}
# MCP's annotations of a tool that writes files (not idempotent: a second call edits again)
# and of one that only reads; none reaches beyond the workspace.
_WRITES = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False,
           "openWorldHint": False}
_READS_ONLY = {"readOnlyHint": True, "openWorldHint": False}
# Formats with instructions to give a model (agents' tool-call formats are their tools' own).
INSTRUCTED_FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in FORMATS if f.instructions)

_RESPONSE_ARGUMENTS: JsonSchema = {
    "response": {
        "type": "string",
        "description": "Text holding edit blocks in any supported format (SEARCH/REPLACE, "
                       "unified diff, apply-patch, tool-call JSON, ...). Paths are relative "
                       "to the workspace root.",
    },
    "formats": {
        "type": "array", "items": {"type": "string", "enum": list(FORMAT_NAMES)},
        "description": "Formats to detect (default: every format that is on by default).",
    },
    "matching": {
        "type": "string", "enum": ["exact", "whitespace"], "default": "exact",
        "description": "whitespace: also accept a unique match that ignores leading and "
                       "trailing whitespace, re-indenting the new lines.",
    },
    "atomic": {
        "type": "boolean", "default": False,
        "description": "All or nothing: if any block fails, change nothing.",
    },
    "target": {
        "type": "string",
        "description": "The file every code fence that names no file is for.",
    },
}


def _arguments(properties: JsonSchema, *required: str) -> JsonSchema:
    """A tool's input schema: an object of these properties and no other."""
    schema: JsonSchema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    schema["additionalProperties"] = False
    return schema


_EXPECTED_PER_FILE = {
    "type": "object", "additionalProperties": _SHA256,
    "description": "Preconditions: path -> SHA-256 (hex) of the file's content as you read "
                   "it. A block for a file whose content differs fails with \"changed since "
                   "it was read\" and nothing is written to that file.",
}

APPLY_EDITS = ToolSpec(
    name="apply_edits",
    title="Apply edit blocks",
    description=(
        "Apply the edit blocks in `response` to the workspace's files, block by block in "
        "order. Each block must match the file exactly once. The result lists every block "
        "(applied, failed with the reason and the file's real lines, skipped, "
        "already-applied) and the retry feedback. Shell commands in the response are "
        "reported, never run."),
    input_schema=_arguments({
        **_RESPONSE_ARGUMENTS,
        "dry_run": {"type": "boolean", "default": False,
                    "description": "Check only; write nothing."},
        "expected_sha256": _EXPECTED_PER_FILE,
    }, "response"),
    annotations=_WRITES,
)

CHECK_EDITS = ToolSpec(
    name="check_edits",
    title="Check edit blocks",
    description=(
        "Check the edit blocks in `response` against the workspace's files without writing "
        "anything: which would apply, and for each that would not, why, where, and the "
        "file's real lines. Each file's `sha256` in the result can be passed to apply_edits "
        "as `expected_sha256`."),
    input_schema=_arguments({**_RESPONSE_ARGUMENTS, "expected_sha256": _EXPECTED_PER_FILE},
                            "response"),
    annotations=_READS_ONLY,
)

EDIT_FILE = ToolSpec(
    name="edit_file",
    title="Replace a string in a file",
    description=(
        "Replace `old_string` with `new_string` in the file at `path`. `old_string` must "
        "occur exactly once (all occurrences with `replace_all`), copied exactly from the "
        "file. On failure the result shows where the closest text is and how it differs."),
    input_schema=_arguments({
        "path": {"type": "string", "description": "The file, relative to the workspace root."},
        "old_string": {"type": "string", "description": "The exact text to replace."},
        "new_string": {"type": "string", "description": "The text to put in its place."},
        "replace_all": {"type": "boolean", "default": False,
                        "description": "Replace every occurrence of old_string."},
        "expected_sha256": {
            **_SHA256,
            "description": "Precondition: the SHA-256 (hex) of the file's content as you "
                           "read it; if it changed since, nothing is written.",
        },
    }, "path", "old_string", "new_string"),
    annotations=_WRITES,
)

FORMAT_INSTRUCTIONS = ToolSpec(
    name="format_instructions",
    title="How to write edit blocks",
    description=(
        "The system-prompt text teaching an edit format: the rules every block follows and "
        "a worked example. Without `format`, every format that is on by default."),
    input_schema=_arguments({
        "format": {"type": "string", "enum": list(INSTRUCTED_FORMAT_NAMES),
                   "description": "One format (default: every format taught by default)."},
    }),
    annotations=_READS_ONLY,
)

TOOL_SPECS: tuple[ToolSpec, ...] = (APPLY_EDITS, CHECK_EDITS, EDIT_FILE, FORMAT_INSTRUCTIONS)
TOOLS_BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in TOOL_SPECS}

__all__ = ["INSTRUCTED_FORMAT_NAMES", "TOOLS_BY_NAME", "TOOL_SPECS", "ToolSpec"]
