"""The language server's parts below the LSP glue (``lsp_server/server.py``), along what
they do. Each receives an :class:`~.editor.Editor` (the connection as its parts see it),
never the server object; nothing here imports ``server.py``.

- :mod:`.editor`: the connection's state (buffers, runs, diagnostics, default options,
  planning hold) and its client; :mod:`.errors`: ``CommandError``.
- :mod:`.buffers`: open buffers, their versions and the parses kept for their texts;
  :mod:`.file_reader`: the files one run sees (a snapshot of the buffers, else the disk);
  :mod:`.stale_edits`: whether a planned edit still fits the buffers;
  :mod:`.run_store`: the recent runs fixes and feedback refer to by ``runId``;
  :mod:`.client_refusals`: blocks this client or these buffers cannot take;
  :mod:`.off_loop`: what runs on the event loop and what in a worker thread.
- :mod:`.protocol`: talking LSP: pygls hooks (every use of pygls internals), transports,
  unreadable messages, positions, client features, the client's calls
  (:class:`~.protocol.client.LspClient`), and the engine's results as LSP (workspace edits,
  diagnostics, change annotations).
- :mod:`.requests`: one module per command family (edits, fixes, feedback, configuration,
  code actions) and their arguments.
- :mod:`.live`: response documents (parse, validation, lenses, outline, hovers, links).
"""
