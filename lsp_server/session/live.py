"""A live response: a response read as it grows, by the CLI's ``--stream`` and by the
server's response documents alike.

:meth:`LiveResponse.feed` takes the text so far (the whole of it, and where it changed) and
says what that did (:class:`LiveUpdate`): the parse, how many blocks from the first are
complete (no text to come can change them, :mod:`lsp_server.parsing.completion`), which
blocks completed with this text, and whether the response went over a limit. The blocks'
plans come from the plan kept between feeds (:meth:`LiveResponse.planner`, a
:class:`~lsp_server.streaming_plan.StreamingPlan`: a newly completed block costs one
block's planning). What is done with them (applied while streaming, written to disk,
shown) is the front end's.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..formats import FORMATS
from ..model import Block, ParseResult, ParseWarning
from ..parsing import parse_response
from ..parsing.completion import complete_count
from ..parsing.incremental import IncrementalParse, first_difference
from ..streaming_plan import StreamingPlan
from .options import EditOptions, OptionsError, check_response_size
from .run import ReadFile, too_many_blocks

log = logging.getLogger(__name__)

# A line that could start or change anything a parse finds: a marker line of some format (by
# its first character, indented or not), a fence, JSON (agents' tool calls), a shell command
# (backticks, a prompt), a diff or patch line, U+FFFD, a carriage return. Text appended after
# complete blocks without such a line changes no block, warning or shell suggestion (see
# LiveResponse._unchanged_by): the parse is not run again for it.
_MARKER_FIRST = "".join(sorted({char for fmt in FORMATS for marker in fmt.markers
                                for char in marker.first_chars}))
_MAY_MATTER = re.compile(
    r"^[ \t]*[" + re.escape(_MARKER_FIRST + "+-@*#<>=|") + r"]"
    r"|[" + re.escape("`~{}[]\"$\\\ufffd\r") + r"]", re.MULTILINE)


@dataclass
class LiveUpdate:
    """What one :meth:`LiveResponse.feed` did."""

    parsed: ParseResult
    complete: int  # how many blocks, from the first, are complete now
    completed: list[Block] = field(default_factory=list)  # those that were not before
    # Those of them the stream completed: the change lies after every block complete before
    # it (text arriving at the end, or typed into the block being written). A change above
    # (an edit inside a complete block, a paste above the blocks) completes no block "while
    # streaming": what it completes waits for the user (applyWhileStreaming).
    streamed: list[Block] = field(default_factory=list)
    # The response is over a limit (maxResponseBytes: nothing parsed; maxBlocks: the blocks
    # past the limit are never complete): what to tell the user, and which limit it is.
    refused: str | None = None
    refused_by: str | None = None


class LiveResponse:
    """A response read as it grows: its text so far, parse, complete blocks and plan."""

    def __init__(self, options: EditOptions) -> None:
        self.options = options
        self.text = ""
        self.ended = False
        self.parsed = ParseResult()
        self.complete = 0
        self.refused: str | None = None
        self._parse = self._new_parse()
        self._plan: StreamingPlan | None = None
        self._plan_roots: list[Path] = []
        # Where the text after the complete blocks starts (the line after the last one): a
        # change from there on is the stream's, one above it an edit of what was complete.
        self._tail_start = 0
        # Text appended since the last parse that could not change it (_unchanged_by): the
        # lowest offset it changed from, for the next parse (None: nothing waits).
        self._unparsed_from: int | None = None
        self.reread = 0  # characters the parses re-read, in all (tests and benchmarks)

    def _new_parse(self) -> IncrementalParse:
        return IncrementalParse(self.options.formats,
                                max_block_lines=self.options.max_block_lines)

    @property
    def pending(self) -> list[ParseWarning]:
        """Blocks started and not closed at the end of the text: being written."""
        return [w for w in self.parsed.warnings if w.pending]

    def feed(self, text: str, changed_from: int | None, *, ended: bool = False) -> LiveUpdate:
        """Take the text so far (BOM-less), changed from offset ``changed_from`` on (None:
        anywhere); ``ended``: no more text comes (every block is complete)."""
        before = self.complete
        if changed_from is None:
            changed_from = first_difference(self.text, text)
        streaming = changed_from >= self._tail_start
        if not ended and self._unchanged_by(text, changed_from):
            self.text = text
            self._unparsed_from = min(changed_from, self._unparsed_from or changed_from)
            return LiveUpdate(self.parsed, self.complete, refused=self.refused)
        if self._unparsed_from is not None:
            changed_from = min(changed_from, self._unparsed_from)
            self._unparsed_from = None
        self.text, self.ended = text, ended
        self.complete, self.refused = 0, None
        self._tail_start = 0
        try:
            check_response_size(text, self.options)
        except OptionsError as exc:
            self.refused = str(exc)
            self.parsed = ParseResult(warnings=[ParseWarning(0, self.refused)])
            return LiveUpdate(self.parsed, 0, refused=self.refused,
                              refused_by="maxResponseBytes")
        self._reparse(text, changed_from, ended)
        too_many = too_many_blocks(len(self.parsed.blocks), self.options)
        if too_many is not None:
            self.refused = too_many
            self.complete = min(self.complete, self.options.max_blocks)
        completed = self.parsed.blocks[before:self.complete]
        self._tail_start = self._complete_end()
        return LiveUpdate(self.parsed, self.complete, completed,
                          completed if streaming else [], self.refused,
                          None if too_many is None else "maxBlocks")

    def reread_at_most(self, text: str, changed_from: int | None) -> int:
        """How many characters :meth:`feed` of ``text`` re-reads at most: none when the
        parse is kept (prose after complete blocks), else the text from the last parse's
        first line re-read (a re-parse never starts above it unless the change does), or
        all of it. Lets a front end feed a costly text off its event loop."""
        if changed_from is None:
            changed_from = first_difference(self.text, text)
        if self._unchanged_by(text, changed_from):
            return 0
        if self._unparsed_from is not None:
            changed_from = min(changed_from, self._unparsed_from)
        cut = self._parse.line_offset(self._parse.last_reparse_from)
        return len(text) - cut if changed_from >= cut else len(text)

    def _unchanged_by(self, text: str, changed_from: int) -> bool:
        """Whether the parse of ``text`` is the last one: every block is complete (no text
        appended changes one), nothing read is still open, and the text changed only from
        the last line of the previous one on, with no line that may matter (_MAY_MATTER).
        Such text (prose after the last block) could only complete a block, and none is
        waiting; a block written later starts on a line that matters, and then the parse
        reads it all. Costs the new lines: a long prose tail is not re-read per line."""
        blocks = self.parsed.blocks
        if (not blocks or self.complete != len(blocks) or self.refused is not None
                or self._parse.unsettled_from() is not None):
            return False  # (a block being written is an unsettled span)
        old = self.text
        last_line = max(old.rfind("\n"), old.rfind("\r")) + 1
        # The text above its last line is the same (changed_from); that line and what
        # follows, before and after the change, hold nothing that matters.
        return (changed_from >= last_line and _MAY_MATTER.search(old, last_line) is None
                and _MAY_MATTER.search(text, last_line) is None)

    def _complete_end(self) -> int:
        """The offset of the line after the last complete block (0: none is complete). The
        block completed last lies below the parse's cut, so this counts the lines the parse
        re-read at most."""
        if not self.complete:
            return 0
        return self._parse.line_offset(self.parsed.blocks[self.complete - 1].end_line)

    def _reparse(self, text: str, changed_from: int, ended: bool) -> None:
        try:
            self.parsed = self._parse.update(text, changed_from)
            self.reread += len(text) - self._parse.line_offset(self._parse.last_reparse_from)
            self.complete = complete_count(text, self._parse, ended=ended)
        except Exception:  # a parser bug must not cost the response its state: parse whole
            log.exception("incremental parse failed; parsing the response whole")
            self._parse = self._new_parse()
            self.parsed = parse_response(text, self.options.formats,
                                         max_block_lines=self.options.max_block_lines)
            self.complete = len(self.parsed.blocks) if ended else 0

    def planner(self, read_file: ReadFile, roots: list[Path]) -> StreamingPlan:
        """The plan kept between feeds, reading through ``read_file`` from now on (planned
        again from scratch when the roots changed)."""
        if self._plan is None or self._plan_roots != roots:
            self._plan = StreamingPlan(read_file, roots, matching=self.options.matching,
                                       max_block_lines=self.options.max_block_lines)
            self._plan_roots = list(roots)
        self._plan.read_file = read_file
        return self._plan

    @property
    def plan(self) -> StreamingPlan | None:
        """The plan kept between feeds, if one was made (:meth:`planner`)."""
        return self._plan

    @property
    def plan_roots(self) -> list[Path]:
        return list(self._plan_roots)


__all__ = ["LiveResponse", "LiveUpdate"]
