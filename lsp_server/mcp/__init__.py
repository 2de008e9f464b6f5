"""The engine as a Model Context Protocol server: agents call it as their edit tool.

Four tools (:mod:`.tool_specs`): ``apply_edits``, ``check_edits``, ``edit_file``,
``format_instructions``. The modules keep the tools apart from the transport:

- :mod:`.tool_specs`: names, descriptions, argument schemas, annotations (plain data);
- :mod:`.arguments`: a call's arguments checked into a typed call, or a tool error;
- :mod:`.preconditions`: ``expected_sha256`` (a file changed since the agent read it);
- :mod:`.calls`: one call run against a workspace (:class:`.calls.AgentWorkspace`);
- :mod:`.rendering`: the outcome as ``structuredContent`` and a text for a model;
- :mod:`.disk`: the workspace of ``llm-edits mcp`` (files on disk, written atomically);
- :mod:`.sdk`: the tools served through the official ``mcp`` SDK (any transport);
- :mod:`.stdio`: ``llm-edits mcp`` over stdio;
- :mod:`.http`: the streamable-HTTP endpoint (127.0.0.1, a bearer token, Host/Origin
  checked) the language server serves when its ``mcp`` setting is on.

Nothing here is imported by ``llm-edits --version`` or the language server's start-up: the
SDK loads only when a transport starts.
"""
