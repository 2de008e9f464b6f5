"""The use cases, below every front end: options with their one validation, a run, a live
response, block selection. Speaks no LSP, imports no click, writes no file.

The server (``lsp_server.lsp``), the CLI (``lsp_server.cli``) and the agents' face are
adapters over it: they read the response and the files their way, call in here, and do
their own thing with the plan (send an edit, write files, answer a tool call).

- :mod:`.options`: :class:`~.options.EditOptions`, :func:`~.options.parse_options`.
- :mod:`.run`: :func:`~.run.run_response` (text + options + a file reader ->
  :class:`~.run.RunOutcome`: the plan, ``result_json()``, ``feedback``).
- :mod:`.live`: :class:`~.live.LiveResponse`, a response read as it grows (``--stream``,
  response documents).
- :mod:`.selection`: running some blocks (``options.blocks``, ``--blocks``).
"""
