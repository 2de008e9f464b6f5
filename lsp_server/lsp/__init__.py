"""The language server's parts below the LSP glue (``lsp_server/server.py``).

- :mod:`.buffers`: open buffers, their versions and the parses kept for their texts;
  :mod:`.file_reader`: the files one run sees (a snapshot of the buffers, else the disk).
- :mod:`.run_store`: the recent runs that fixes and feedback refer to by ``runId``.
- :mod:`.commands`: what each ``llmEdits.*`` command does.
- :mod:`.options`: command arguments and options, validated.
- :mod:`.positions`: LSP lines and columns (UTF-8/16/32) against the model's code points.
- :mod:`.client_features`: what the client can take, read from its capabilities.
- :mod:`.workspace_edit`, :mod:`.diagnostics`, :mod:`.code_actions`: the engine's results
  as LSP objects.
- :mod:`.pygls_hooks`: every use of pygls internals, each saying what it replaces and why.
- :mod:`.planning_hold`: a test hook holding runs before planning until the test releases them.
"""
