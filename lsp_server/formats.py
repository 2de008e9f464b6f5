"""The format registry: every edit format the engine knows, one :class:`Format` entry each.

Everything that lists formats iterates :data:`FORMATS` (or :data:`FORMAT_NAMES`): the parsing
dispatch and its shared marker scan (``lsp_server.parsing``), locating blocks in files
(``lsp_server.planning``), the CLI's ``--formats`` and the server's ``formats`` option, and the
instructions. Adding a format takes a parser module in ``lsp_server/parsing/`` (``find_blocks``
and ``render``), a locate policy in ``lsp_server/locate/`` (or an existing one), an
instructions file in ``lsp_server/instructions/``, and one entry here.

This module imports nothing of the engine: the CLI lists the format names in its ``--help``
without loading the parsers or the planner. An entry names its parser module and locate policy,
and imports them when asked for them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .locate import LocatePolicy
    from .model import Block
    from .parsing.parsed_span import ParsedSpan

# A parser: (normalised response text, its lines, its marker lines: a
# ``parsing.marker_scan.MarkerLines``, not imported here since the scan reads this registry)
# -> what it read where.
FindBlocks = Callable[[str, list[str], Any], list["ParsedSpan"]]


@dataclass(frozen=True, slots=True)
class MarkerLine:
    """A kind of line the parsers start from, found for every format in one regex pass.

    ``pattern`` (a regex without capturing groups) must match at the start of a line;
    ``first_chars`` are all the characters it can start with (the scan skips other lines on
    that one character). A ``whole_line`` marker is the whole line, trailing whitespace
    allowed, and the scan keeps its text; otherwise it keeps the offset where the marker
    starts. A line is found as the first kind that matches it, so kinds should differ in their
    first characters. ``indent``: up to that many spaces may come before the marker (one kind
    at most; the scan keeps the offset where its line starts).
    """

    kind: str  # the scan's key for these lines
    pattern: str
    first_chars: str
    whole_line: bool = False
    indent: int = 0


@dataclass(frozen=True, slots=True)
class Format:
    """One edit format: its name, the lines its blocks start from, and the code for it."""

    name: str
    parser: str  # module of lsp_server.parsing: find_blocks(text, lines, markers), render(block)
    locate_policy: str  # name of its locate policy in lsp_server.locate
    markers: tuple[MarkerLine, ...]  # what the shared marker scan finds for its parser
    # File in lsp_server/instructions/ teaching a model the format; "" for an agent's own
    # tool-call format (the agent's tool defines it: there is nothing to teach).
    instructions: str
    # Detected only when the caller names it (``formats``): not in DEFAULT_FORMAT_NAMES, nor
    # in the instructions that teach every format.
    opt_in: bool = False
    # While a response grows (parsing.incremental, parsing.completion): what decides a span
    # of this format, a rule of parsing.incremental.SETTLING_RULES; None: its last line (a
    # closing marker). ``fences``: the fences its parser pairs from the start of the text
    # (parsing.incremental.FENCE_RULES), which a re-parse must not cut through.
    settling: str | None = None
    fences: str | None = None

    def parser_module(self) -> ModuleType:
        return import_module(f"{__package__}.parsing.{self.parser}")

    @property
    def find_blocks(self) -> FindBlocks:
        """The parser: every block (and malformed one) of this format in a response."""
        return self.parser_module().find_blocks

    @property
    def render(self) -> Callable[[Block], str]:
        """The renderer: a block as text of this format (ValueError for ops it cannot say)."""
        return self.parser_module().render

    @property
    def locate(self) -> LocatePolicy:
        """The locate policy: where a block of this format sits in a file's lines."""
        return getattr(import_module(f"{__package__}.locate"), self.locate_policy)


# The "««« EDIT" blocks of edit-v3 and edit-v2 share their markers (and one nesting pass):
# which format a block is follows from its first structural marker.
_EDIT_MARKERS = MarkerLine(
    "edit_markers", "««« EDIT|═══════(?: REPL)?|»»»(?: EDIT END)?|───────", "«═»─",
    whole_line=True)
# search-replace markers take 5 to 9 characters: a literal run of 5 plus up to 4 more (a
# branch that starts with a literal is rejected before it is entered).
_SEARCH_REPLACE_MARKERS = MarkerLine(
    "search_replace_markers", "<<<<<<{0,4} SEARCH>?|======{0,4}|>>>>>>{0,4} REPLACE", "<=>",
    whole_line=True)

FORMATS: tuple[Format, ...] = (
    Format("edit-v3", "edit_v3", "locate_line_block", (_EDIT_MARKERS,), "edit-v3.md"),
    Format("edit-v2", "edit_v2", "locate_line_block", (_EDIT_MARKERS,), "edit-v2.md"),
    Format("search-replace", "search_replace", "locate_line_block", (_SEARCH_REPLACE_MARKERS,),
           "search-replace.md"),
    Format("hunk-patch", "hunk_patch", "locate_hunk_patch", (
        MarkerLine("edit_calls", r"edit[ \t]*\{", "e"),
        # Every fence line: hunk-patch's parser keeps the json ones, code-block pairs them all
        # (one scan finds both; a kind owns its first characters).
        MarkerLine("json_fences", r"(?:`{3,}|~{3,})", "`~", indent=3),
    ), "hunk-patch.md", settling="next-edit-call", fences="json"),
    Format("semantic-diff", "semantic_diff", "locate_semantic_block",
           (MarkerLine("file_sections", "## File ", "#"),), "semantic-diff.md",
           settling="next-file-section"),
    Format("apply-patch", "apply_patch", "locate_apply_patch",
           # Begin Patch starts a patch; End Patch and the file markers at a line start are
           # read to find file markers outside every patch and padded Begin Patch lines.
           (MarkerLine("patch_markers",
                       r"\*\*\* (?:Begin Patch|End Patch|(?:Add|Delete|Update) File:)", "*"),),
           "apply-patch.md", settling="next-begin-patch"),
    Format("unified-diff", "unified_diff", "locate_unified_diff", (
        MarkerLine("minus_lines", "--- ", "-"),  # a "+++ " line must follow: the parser checks
        MarkerLine("git_headers", "diff --git ", "d"),
    ), "unified-diff.md", settling="hunk-look-ahead"),
    # Agents' tool calls (JSON): each finds its own values, only in a response holding one
    # of its key names (a str.find), so they add no marker line to the shared scan.
    Format("str-replace", "str_replace", "locate_str_replace", (), ""),
    Format("apply-patch-call", "apply_patch_call", "locate_apply_patch", (), ""),
    # Pairs the fence lines of hunk-patch's "json_fences" kind (every fence line); its spans
    # give way to every other format's (parse_response), so a fence inside another block
    # stays text.
    Format("code-block", "code_block", "locate_code_block", (), "code-block.md",
           fences="code"),
    Format("whole-file", "whole_file", "locate_whole_file", (), "whole-file.md", opt_in=True,
           fences="code"),
)

FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in FORMATS)
# What "every format" means when the caller names none: all but the opt-in ones.
DEFAULT_FORMATS: tuple[Format, ...] = tuple(f for f in FORMATS if not f.opt_in)
DEFAULT_FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in DEFAULT_FORMATS)

_BY_NAME: dict[str, Format] = {f.name: f for f in FORMATS}


def format_named(name: str) -> Format:
    """The registry entry of format ``name``; ``KeyError`` for a name not in the registry."""
    return _BY_NAME[name]
