"""``python -m lsp_server.cli``: the same as the ``llm-edits`` command."""

from . import main

main()
