"""Re-parsing a response that grows (a response document being streamed into).

``IncrementalParse.update(text)`` always returns what ``parse_response(text, ...)`` returns.
"""

from __future__ import annotations

from ..limits import DEFAULT_MAX_BLOCK_LINES
from ..model import ParseResult
from . import parse_response

__all__ = ["IncrementalParse"]


class IncrementalParse:
    """The parse of one response across its versions."""

    def __init__(self, formats: set[str] | None = None, *,
                 max_block_lines: int | None = DEFAULT_MAX_BLOCK_LINES) -> None:
        self._formats = None if formats is None else set(formats)
        self._max_block_lines = max_block_lines
        self._result = ParseResult()
        self.last_reparse_from = 0  # the response line the last update parsed from

    @property
    def result(self) -> ParseResult:
        """The last update's result."""
        return self._result

    def update(self, text: str, changed_from: int | None = None) -> ParseResult:
        """The parse of ``text``; ``changed_from``: the lowest character offset that may
        differ from the previous text (None: found by comparing)."""
        self._result = parse_response(text, self._formats, max_block_lines=self._max_block_lines)
        self.last_reparse_from = 0
        return self._result
