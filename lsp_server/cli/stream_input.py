"""Reading a response as it arrives (``--stream``): whatever the pipe holds at each read,
decoded as UTF-8 piece by piece.

``os.read`` returns as soon as some bytes are there (a line-buffered or whole-file read would
wait for a newline or for the end, and a block would be reported late). The incremental
decoder keeps the bytes of a character cut between two reads until its end arrives;
undecodable bytes become U+FFFD, as in :func:`.response.read_response`.
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Iterator

import click

_READ_BYTES = 65536  # at most this much per read; a read returns what is there


class InputStopped(Exception):
    """Reading stopped before the end: the response grew past ``--max-response-bytes``, or a
    read failed. The text before it has been yielded; the message says why (a usage error,
    exit 2, once the blocks so far are reported)."""


def response_chunks(response: str, max_bytes: int) -> Iterator[str]:
    """The response's text as it arrives from ``response`` (``-``: standard input; a file or
    a named pipe otherwise), a leading BOM dropped. Raises :class:`InputStopped` past
    ``max_bytes`` or when a read fails (the text before it has been yielded), a usage error
    when it cannot be opened."""
    fd = _open(response)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    received = 0
    started = False  # a BOM may only open the text
    try:
        while data := _read(fd, response):
            received += len(data)
            if received > max_bytes:
                raise InputStopped(
                    f"the response is larger than {max_bytes} bytes (--max-response-bytes); "
                    "the rest was not read")
            text = decoder.decode(data)
            if text and not started:
                started = True
                text = text.removeprefix("\ufeff")
            if text:
                yield text
        if rest := decoder.decode(b"", final=True):  # a character cut short at the end
            yield rest
    finally:
        if response != "-":
            os.close(fd)


def _open(response: str) -> int:
    if response == "-":
        return sys.stdin.fileno()
    try:
        return os.open(response, os.O_RDONLY)
    except OSError as exc:
        raise click.BadParameter(f"cannot read {response!r}: {exc.strerror or exc}",
                                 param_hint="RESPONSE") from None


def _read(fd: int, response: str) -> bytes:
    try:
        return os.read(fd, _READ_BYTES)
    except OSError as exc:
        raise InputStopped(f"cannot read {response!r}: {exc.strerror or exc}") from None


__all__ = ["InputStopped", "response_chunks"]
