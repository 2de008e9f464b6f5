"""The default limits, one set for the server, the CLI and the Python API.

Each bounds what a hostile or broken response can cost; a user raises them with the
server's ``initializationOptions``/command ``options`` (``maxResponseBytes``, ...), the CLI's
``--max-*`` options or the engine's keywords. docs/safety.md has the table and the
measurements behind the numbers.
"""

from __future__ import annotations

# Models write responses of well under 1 MB; parsing holds ~2 KB per block, so a response
# of tiny blocks at 50 MiB peaked at 1.8 GB before maxBlocks could refuse it.
DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024
# A real response has tens of blocks; a hostile 16 MB one can hold 300,000 (seconds of
# planning and gigabytes of results): refuse it before planning.
DEFAULT_MAX_BLOCKS = 10_000
# Files larger than this are not read: their blocks fail with the limit named.
DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024
# Blocks longer than this (old and new lines) fail without being located.
DEFAULT_MAX_BLOCK_LINES = 200_000

__all__ = [
    "DEFAULT_MAX_BLOCKS",
    "DEFAULT_MAX_BLOCK_LINES",
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_MAX_RESPONSE_BYTES",
]
