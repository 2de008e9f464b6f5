"""LLM Edits: turn an LLM response's edit blocks into safe editor edits.

The engine is plain Python, importable without LSP (CONTRACT.md "Python API"):

- :func:`parse_response` (response text → blocks, warnings, shell suggestions)
- :func:`plan_edits` (parsed blocks + file texts → per-block results and per-file edits)
- :func:`plan_response` (both in one call)

The language server (``python -m lsp_server``) and the ``llm-edits`` CLI are thin adapters.
"""

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
from .parsing import parse_response
from .planning import plan_edits, plan_response

__version__ = "0.1.0"

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
