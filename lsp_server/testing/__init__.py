"""The test harness: editors and clients that drive ``python -m lsp_server`` as a real editor does.

Tests, the fuzzer, the benchmarks and the evaluations all drive the server with these parts,
so there is one reading of positions and edits and one way to answer ``workspace/applyEdit``:

- :mod:`~lsp_server.testing.positions`: an editor's own reading of positions and text edits.
- :mod:`~lsp_server.testing.editor`: :class:`Editor`, the test editor, over a pytest-lsp client
  (the ``client`` fixture of an end-to-end test): buffers with versions, ``workspace/applyEdit``
  answered as VS Code does.
- :mod:`~lsp_server.testing.editor_session`: :class:`EditorSession`, the same editor with a
  server of its own (fuzzing, long runs, killing the server, holding a run).
- :mod:`~lsp_server.testing.wire_client`: clients that write frames themselves (the
  benchmarks' fast client; raw frames no LSP library would send).

The editors need the development extras (pytest-lsp); the product never imports this package.
"""

from __future__ import annotations

import sys

SERVER_COMMAND = [sys.executable, "-m", "lsp_server"]
