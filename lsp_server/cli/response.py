"""Reading the response: a file or ``-`` (stdin), within ``--max-response-bytes``."""

from __future__ import annotations

import sys

import click

from ..limits import DEFAULT_MAX_RESPONSE_BYTES


def read_response(response: str, max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> str:
    """The response's text from a file or ``-`` (stdin); a usage error when unreadable or
    larger than ``max_bytes``."""
    try:
        if response == "-":
            data = sys.stdin.buffer.read(max_bytes + 1)
        else:
            with open(response, "rb") as fh:
                data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise click.BadParameter(
            f"cannot read {response!r}: {exc.strerror or exc}", param_hint="RESPONSE"
        ) from None
    if len(data) > max_bytes:
        raise click.BadParameter(
            f"{response!r} is larger than {max_bytes} bytes (--max-response-bytes)",
            param_hint="RESPONSE",
        )
    # A response is text from a model: undecodable bytes become U+FFFD rather than an error.
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff")


__all__ = ["read_response"]
