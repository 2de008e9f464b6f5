"""The MCP SDK loads only when MCP is served: not for `llm-edits --version`, nor for the
language server's start-up (which modules load is behaviour; no timing is asserted)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SDK_MODULES = {"mcp", "mcp_types", "starlette", "uvicorn", "pydantic", "httpx2"}


@pytest.mark.parametrize("code", [
    "from lsp_server.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass",
    "import lsp_server.server",
    "import lsp_server.mcp, lsp_server.mcp.calls, lsp_server.mcp.tool_specs",
])
def test_the_sdk_is_not_loaded(code: str) -> None:
    run = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    loaded = set(json.loads(run.stdout.strip().splitlines()[-1]))
    assert not loaded & SDK_MODULES, sorted(loaded & SDK_MODULES)
