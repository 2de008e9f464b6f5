"""``llm-edits mcp``: the tools over stdio, on the files under ``--root``."""

from __future__ import annotations

from pathlib import Path

from .calls import Limits
from .disk import DiskWorkspace


def serve_stdio(roots: list[Path], limits: Limits) -> None:
    """Serve the tools on stdin/stdout until the client closes stdin."""
    import anyio
    from mcp.server.stdio import stdio_server

    from .sdk import build_server

    server = build_server(DiskWorkspace(roots, limits))

    async def serve() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)


__all__ = ["serve_stdio"]
