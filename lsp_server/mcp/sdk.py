"""The tools served through the official ``mcp`` SDK: its low-level ``Server`` with a
``tools/list`` and a ``tools/call`` handler, for any transport (stdio here, streamable HTTP
in the language server). This is the one module of the package that imports the SDK's server.
"""

from __future__ import annotations

import logging
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from .. import __version__
from .calls import AgentWorkspace, run_tool
from .rendering import ToolOutcome
from .tool_specs import TOOL_SPECS, TOOLS_BY_NAME, ToolSpec

_log = logging.getLogger(__name__)

SERVER_INSTRUCTIONS = (
    "Edits files through LLM Edits: `edit_file` replaces one exact string; `apply_edits` "
    "applies edit blocks in any common format (SEARCH/REPLACE, unified diff, apply-patch, "
    "tool-call JSON); `check_edits` checks them without writing. A failed edit says why and "
    "shows the file's real lines: re-read them and retry only what failed.")


def sdk_tool(spec: ToolSpec) -> types.Tool:
    annotations = spec.annotations
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema,
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=annotations.get("readOnlyHint"),
            destructive_hint=annotations.get("destructiveHint"),
            idempotent_hint=annotations.get("idempotentHint"),
            open_world_hint=annotations.get("openWorldHint"),
        ),
    )


def sdk_result(outcome: ToolOutcome) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=outcome.text)],
                                structured_content=outcome.structured,
                                is_error=outcome.is_error)


def build_server(workspace: AgentWorkspace, name: str = "llm-edits") -> Server[Any]:
    """An SDK server whose tools run against ``workspace``."""
    tools = [sdk_tool(spec) for spec in TOOL_SPECS]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOLS_BY_NAME:  # not a tool's failure: the call is wrong
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {params.name!r}; the tools "
                                                 f"are {', '.join(TOOLS_BY_NAME)}")
        try:
            outcome = await run_tool(params.name, params.arguments, workspace)
        except Exception as exc:  # a bug must not end the session: the agent is told
            _log.exception("tool %s failed", params.name)
            outcome = ToolOutcome.error(f"{params.name}: internal error: "
                                        f"{type(exc).__name__}: {exc}")
        return sdk_result(outcome)

    return Server(name, version=__version__, title="LLM Edits",
                  instructions=SERVER_INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call_tool)


__all__ = ["SERVER_INSTRUCTIONS", "build_server", "sdk_result", "sdk_tool"]
