"""LLM Edits: turn an LLM response's edit blocks into safe editor edits.

The engine is plain Python, importable without LSP (docs/python-api.md):

- :func:`parse_response` (response text → blocks, warnings, shell suggestions)
- :func:`plan_edits` (parsed blocks + file texts → per-block results and per-file edits)
- :func:`plan_response` (both in one call)

The language server (``python -m lsp_server``) and the ``llm-edits`` CLI are thin adapters.
"""

from typing import TYPE_CHECKING

from .model import (
    Block,
    BlockResult,
    FileEdit,
    FileSnapshot,
    Hunk,
    ParseResult,
    ParseWarning,
    PlanResult,
    ResourceOp,
    TextEdit,
)

if TYPE_CHECKING:  # what __getattr__ below returns, for type checkers and editors
    from .parsing import parse_response
    from .planning import plan_edits, plan_response

__version__ = "0.1.0"

# The engine's functions load on first use (PEP 562): `llm-edits --version` and the CLI's
# start-up import this package but not the parsers and the planner.
_ENGINE_FUNCTIONS = {
    "parse_response": "parsing",
    "plan_edits": "planning",
    "plan_response": "planning",
}


def __getattr__(name: str) -> object:
    module = _ENGINE_FUNCTIONS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{module}", __name__), name)

__all__ = [
    "Block",
    "BlockResult",
    "FileEdit",
    "FileSnapshot",
    "Hunk",
    "ParseResult",
    "ParseWarning",
    "PlanResult",
    "ResourceOp",
    "TextEdit",
    "parse_response",
    "plan_edits",
    "plan_response",
]
