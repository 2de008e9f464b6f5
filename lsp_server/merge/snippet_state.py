"""What a merge by definitions knows while it runs, and the edits it makes on the file's
lines.

The driver (snippet.py) matches units by name and calls the modules that answer edits for
the rest: new definitions (placement.py) and imports (imports.py). Those read the lines,
the elisions and where each shown unit landed from this state, never from the driver, so
the modules depend on this one and the driver on them, and none on the driver.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..matching import FileMatcher
from .indent import indent_unit
from .units import Unit


@dataclass(frozen=True)
class Edit:
    """File lines ``[start, end)`` become ``lines``."""

    start: int
    end: int
    lines: list[str]


@dataclass
class SnippetState:
    """One snippet being merged into one file's lines."""

    file_lines: list[str]
    code_lines: list[str]
    elided: frozenset[int]
    whitespace: bool
    at_line: int | None
    edits: list[Edit] = field(default_factory=list)
    placed: dict[int, tuple[int, int]] = field(default_factory=dict)  # id(unit) -> file span
    by_name: int = 0  # definitions merged by name
    default_gap: int = 1  # blank lines before a new unit where the file shows none
    # A definition (or a statement of a node type) starting on a line, at any depth
    unit_at: Callable[[int, str | None], Unit | None] = lambda line, node_type: None
    blocks_by_first_line: bool = True  # not Markdown: its paragraphs and lists are no blocks
    # Python: a bare `...` in a new definition is its body (a stub), not an elision.
    ellipsis_is_code: bool = False

    def __post_init__(self) -> None:
        self.code_unit = indent_unit(self.code_lines)
        self._file_unit: str | None = None
        self._matcher: FileMatcher | None = None

    @property
    def file_unit(self) -> str:
        """The file's indentation step, read when a unit is re-indented (the lines of a big
        file are not all read for a merge that needs no re-indentation)."""
        if self._file_unit is None:
            first = next((line for line in self.file_lines if line[:1] in (" ", "\t")
                          and line.strip()), "")
            if first.startswith("\t") or "\t" not in self.code_unit:
                # Only tabs <-> spaces is converted: the kind is enough, and spaces' width
                # matters only when the snippet indents with tabs.
                self._file_unit = "\t" if first.startswith("\t") else "    "
            else:
                self._file_unit = indent_unit(self.file_lines[:2000])
        return self._file_unit

    @property
    def matcher(self) -> FileMatcher:
        if self._matcher is None:
            self._matcher = FileMatcher(self.file_lines)
        return self._matcher
