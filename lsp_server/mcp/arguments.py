"""A tool call's arguments, checked: each tool's typed call, or :class:`ArgumentError` whose
message the agent reads (a tool error, so the model can correct the call).

The checks are the schema's (:mod:`.tool_specs`) and the limits a response has everywhere
(``limits``: the response's size; the planner applies the others). Clients are not trusted
to have validated against the schema.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..formats import FORMAT_NAMES
from ..limits import DEFAULT_MAX_RESPONSE_BYTES
from .tool_specs import INSTRUCTED_FORMAT_NAMES, TOOLS_BY_NAME

_SHA256 = re.compile(r"[0-9a-fA-F]{64}")


class ArgumentError(ValueError):
    """A call the tool cannot run as asked; the message says which argument and why."""


@dataclass(frozen=True)
class EditsCall:
    """apply_edits / check_edits."""

    response: str
    dry_run: bool
    formats: frozenset[str] | None = None
    matching: str = "exact"
    atomic: bool = False
    target: str | None = None
    expected_sha256: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EditFileCall:
    path: str
    old_string: str
    new_string: str
    replace_all: bool = False
    expected_sha256: str | None = None


@dataclass(frozen=True)
class InstructionsCall:
    format: str | None = None


ToolCall = EditsCall | EditFileCall | InstructionsCall


def parse_call(name: str, arguments: object,
               max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> ToolCall:
    """The typed call of tool ``name``; :class:`ArgumentError` for anything the schema
    refuses (an unknown argument, a wrong type, a missing required one) or a text over
    ``max_response_bytes``."""
    spec = TOOLS_BY_NAME.get(name)
    if spec is None:
        raise ArgumentError(f"unknown tool {name!r}; the tools are "
                            f"{', '.join(TOOLS_BY_NAME)}")
    args = _object(arguments)
    known = spec.input_schema["properties"]
    unknown = sorted(set(args) - set(known))
    if unknown:
        raise ArgumentError(f"unknown argument(s) {', '.join(map(repr, unknown))}; "
                            f"{name} takes {', '.join(known)}")
    for key in spec.input_schema.get("required", ()):
        if key not in args:
            raise ArgumentError(f"missing required argument {key!r}")
    if name == "edit_file":
        return _edit_file_call(args, max_response_bytes)
    if name == "format_instructions":
        return InstructionsCall(_optional_choice(args, "format", INSTRUCTED_FORMAT_NAMES))
    return _edits_call(args, name == "check_edits", max_response_bytes)


def _object(arguments: object) -> dict[str, Any]:
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise ArgumentError("the arguments must be a JSON object")
    return arguments


def _edits_call(args: dict[str, Any], check: bool, max_bytes: int) -> EditsCall:
    response = _string(args, "response")
    _within_limit("response", len(response.encode("utf-8", "surrogatepass")), max_bytes)
    formats = args.get("formats")
    if formats is not None:
        if not isinstance(formats, list) or not formats or not all(
                isinstance(f, str) for f in formats):
            raise ArgumentError("'formats' must be a non-empty array of format names")
        unknown = sorted(set(formats) - set(FORMAT_NAMES))
        if unknown:
            raise ArgumentError(f"unknown format(s) {', '.join(unknown)} in 'formats'; "
                                f"choose from {', '.join(FORMAT_NAMES)}")
    return EditsCall(
        response=response,
        dry_run=True if check else _boolean(args, "dry_run"),
        formats=frozenset(formats) if formats is not None else None,
        matching=_optional_choice(args, "matching", ("exact", "whitespace")) or "exact",
        atomic=_boolean(args, "atomic"),
        target=_optional_string(args, "target"),
        expected_sha256=_expected_map(args.get("expected_sha256")),
    )


def _edit_file_call(args: dict[str, Any], max_bytes: int) -> EditFileCall:
    path, old, new = (_string(args, key) for key in ("path", "old_string", "new_string"))
    if not path.strip():
        raise ArgumentError("'path' is empty")
    size = sum(len(s.encode("utf-8", "surrogatepass")) for s in (path, old, new))
    _within_limit("old_string and new_string", size, max_bytes)
    expected = args.get("expected_sha256")
    if expected is not None:
        expected = _sha256("expected_sha256", expected)
    return EditFileCall(path, old, new, _boolean(args, "replace_all"), expected)


def _expected_map(value: object) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ArgumentError("'expected_sha256' must be an object mapping paths to SHA-256 "
                            "hex digests")
    return {path: _sha256(f"expected_sha256[{path!r}]", digest)
            for path, digest in value.items()}


def _sha256(where: str, value: object) -> str:
    if not isinstance(value, str) or not _SHA256.fullmatch(value):
        raise ArgumentError(f"{where} must be a SHA-256 digest: 64 hexadecimal digits")
    return value.lower()


def _string(args: dict[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str):
        raise ArgumentError(f"{key!r} must be a string, not {_json_type(value)}")
    return value


def _optional_string(args: dict[str, Any], key: str) -> str | None:
    return None if args.get(key) is None else _string(args, key)


def _boolean(args: dict[str, Any], key: str) -> bool:
    value = args.get(key, False)
    if not isinstance(value, bool):
        raise ArgumentError(f"{key!r} must be true or false, not {_json_type(value)}")
    return value


def _optional_choice(args: dict[str, Any], key: str, choices: tuple[str, ...]) -> str | None:
    value = args.get(key)
    if value is None:
        return None
    if value not in choices:
        raise ArgumentError(f"{key!r} must be one of {', '.join(choices)}, not {value!r}")
    return value


def _within_limit(what: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise ArgumentError(f"{what} is {size} bytes, over the {max_bytes}-byte limit of a "
                            "response; send smaller edits")


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string",
             list: "an array", dict: "an object"}
    return names.get(type(value), type(value).__name__)


__all__ = ["ArgumentError", "EditFileCall", "EditsCall", "InstructionsCall", "ToolCall",
           "parse_call"]
