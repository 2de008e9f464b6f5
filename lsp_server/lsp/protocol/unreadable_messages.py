"""What a JSON-RPC message the server cannot read still says: its id, and whether it asks.

A request whose body is not valid UTF-8, is nested deeper than Python's JSON reader goes
(about 990 levels), or is not JSON at all, still deserves an error answer: without one the
client waits forever. :func:`salvage` finds the message's top-level ``id`` and whether it
has a ``method`` (a request) or not (an answer to one of the server's requests), reading as
little of it as it can.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

# The top-level fields are looked for in at most this many tokens: a garbage body of
# megabytes must not keep the event loop busy (~20 ms of tokens on a slow machine).
MAX_TOKENS = 100_000

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")

MessageId = int | str


@dataclass(frozen=True)
class Salvaged:
    """What could be read of a message: its id (None: none, or not a valid one) and whether
    it is a request (None: not known, the body was too long to look through)."""

    id: MessageId | None
    is_request: bool | None


@dataclass(frozen=True)
class Unreadable:
    """A message body ``json.loads`` refused, and why."""

    error: Exception


def decode(body: bytes) -> Any:
    """The body's JSON, or :class:`Unreadable`."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:
        return Unreadable(exc)


def valid_id(value: Any) -> MessageId | None:
    """``value`` if it can be a JSON-RPC id LSP uses (an integer or a string), else None."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def from_object(data: Any) -> Salvaged:
    """What a decoded message that could not be structured says of itself."""
    if not isinstance(data, dict):
        return Salvaged(None, None)
    return Salvaged(valid_id(data.get("id")), "method" in data)


def salvage(body: bytes) -> Salvaged:
    """The id and kind of a message body that ``json.loads`` refused."""
    text = body.decode("utf-8", "replace")
    try:
        return from_object(json.loads(text))  # it was only the UTF-8
    except (ValueError, RecursionError):
        return _scan(text)


def _scalar(token: str) -> Any:
    if token.startswith('"'):
        try:
            return json.loads(token)
        except ValueError:
            return None
    return int(token) if _INTEGER.fullmatch(token) else None


def _scan(text: str) -> Salvaged:
    """The top-level ``id`` and ``method`` of an object, from its tokens (nested values are
    skipped by depth, never decoded)."""
    fields: dict[str, Any] = {}
    depth = 0
    key: str | None = None  # the top-level key whose value comes next
    expect_key = False
    for count, match in enumerate(_TOKEN.finditer(text)):
        if count >= MAX_TOKENS:
            return Salvaged(valid_id(fields.get("id")), True if "method" in fields else None)
        token = match.group()
        if token in "{[":
            depth += 1
            expect_key = depth == 1 and token == "{"
            key = None
        elif token in "}]":
            depth -= 1
        elif depth != 1 or token == ":":
            continue
        elif token == ",":
            expect_key, key = True, None
        elif expect_key:
            key, expect_key = _scalar(token), False
        elif key in ("id", "method"):
            fields[key] = _scalar(token)
            if "id" in fields and "method" in fields:
                break
    return Salvaged(valid_id(fields.get("id")), "method" in fields)


def parse_error_message(exc: Exception) -> str:
    """What was wrong with a body ``json.loads`` refused, for the error answer."""
    if isinstance(exc, UnicodeDecodeError):
        return f"the message is not valid UTF-8 (byte {exc.start})"
    if isinstance(exc, RecursionError):
        return "the message is nested too deeply to read"
    return f"the message is not JSON: {exc}"


def validation_summary(error: BaseException) -> str:
    """The first few leaf errors of a cattrs validation error, one line."""
    leaves: list[str] = []
    pending: list[BaseException] = [error]
    while pending and len(leaves) < 3:
        current = pending.pop(0)
        inner = getattr(current, "exceptions", None)  # an exception group (cattrs')
        if inner:
            pending[:0] = list(inner)
        else:
            leaves.append(f"{type(current).__name__}: {current}"[:200])
    return "; ".join(leaves) or str(error)
