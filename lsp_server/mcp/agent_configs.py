"""The configuration each agent takes to reach the editor's MCP endpoint, as text to paste.

One place for every client's **Copy MCP Server Config** (VS Code) and the Neovim and Emacs
commands that show it: ``llmEdits.mcpEndpoint`` returns these texts with the URL and token.
The keys follow each agent's documentation (docs/agents.md says which were tried).
"""

from __future__ import annotations

import json

SERVER_NAME = "llm-edits"
TOKEN_VARIABLE = "LLM_EDITS_MCP_TOKEN"


def agent_configs(url: str, token: str) -> dict[str, str]:
    """Agent name -> the configuration text reaching ``url`` with ``token``."""
    headers = {"Authorization": f"Bearer {token}"}
    return {
        "Claude Code": _json({"mcpServers": {SERVER_NAME: {
            "type": "http", "url": url, "headers": headers}}}),
        "Codex CLI": (
            f"# ~/.codex/config.toml; Codex reads the token from the environment:\n"
            f"#   export {TOKEN_VARIABLE}={token}\n"
            f"[mcp_servers.{SERVER_NAME}]\n"
            f"url = {json.dumps(url)}\n"
            f"bearer_token_env_var = \"{TOKEN_VARIABLE}\"\n"),
        # httpUrl: Gemini CLI reads `url` as an SSE endpoint
        "Gemini CLI": _json({"mcpServers": {SERVER_NAME: {"httpUrl": url, "headers": headers}}}),
        "VS Code (mcp.json)": _json({"servers": {SERVER_NAME: {
            "type": "http", "url": url, "headers": headers}}}),
    }


def _json(value: object) -> str:
    return json.dumps(value, indent=2) + "\n"


__all__ = ["SERVER_NAME", "TOKEN_VARIABLE", "agent_configs"]
