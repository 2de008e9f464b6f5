"""``python -m lsp_server``: start the language server (stdio by default, or --tcp)."""

from .server import main

if __name__ == "__main__":
    main()
