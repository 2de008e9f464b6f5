"""Planning a response that grows: each newly completed block costs one block's planning.

A response streamed into an editor is parsed again and again (``parsing.incremental``); its
complete blocks only ever grow in number, except when an earlier block changes (the user
edited above the stream, or a block that has no end marker got longer) or a file the plan
read changed (the user typed in it, an edit was applied). :class:`StreamingPlan` keeps the
planner (``planning.block_planner``) between updates: blocks it has planned stay planned,
new ones are run over what the earlier ones left. Anything else starts again from scratch,
so the results always equal :func:`planning.plan_edits` of the same blocks over the same
files. No LSP here: the server and the CLI's ``--stream`` use it.

Settled blocks. The caller may name blocks whose effect is already in the files (applied
while the response streamed): they are not planned again (their new text is there; a second
run would at best find it already applied), and their result is the one the caller gives.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from itertools import compress, count
from pathlib import Path

from .limits import DEFAULT_MAX_BLOCK_LINES
from .model import Block, BlockResult, FileSnapshot, ParseResult, PlanResult
from .planning import ReadFile, block_planner

__all__ = ["BlockIdentity", "StreamingPlan", "block_identity"]

BlockIdentity = tuple


def block_identity(block: Block) -> BlockIdentity:
    """What a block does, without where it stands in the response (its lines, its index):
    the same block after text was inserted above it has the same identity (a record of the
    blocks applied from a streamed response is kept by it)."""
    hunks = tuple((h.header, tuple(h.lines), h.anchor, h.old_start, h.end_of_file)
                  for h in block.hunks or ())
    tool = block.tool  # an agent's call: its exact strings (``"a\n"`` and ``"a"`` differ)
    call = None if tool is None else (tool.call_id, tool.old_text, tool.new_text,
                                      tool.replace_all, tool.expected, tool.insert_line)
    return (block.format, block.file, block.op, tuple(block.anchor), tuple(block.old),
            tuple(block.new), tuple(block.trailing), hunks, block.move_to, block.create_text,
            call)


class _PathsRead:
    """The plan's file reader: ``read_file``, noting the paths read (all, and those the
    current update read first)."""

    def __init__(self, read_file: ReadFile) -> None:
        self.read_file = read_file
        self.paths: set[Path] = set()
        self.new_paths: set[Path] = set()

    def forget(self) -> None:
        self.paths, self.new_paths = set(), set()

    def __call__(self, path: Path) -> FileSnapshot:
        if path not in self.paths:
            self.new_paths.add(path)
            self.paths.add(path)
        return self.read_file(path)


class StreamingPlan:
    """The plan of a growing list of blocks, kept between updates.

    ``read_file`` may be replaced between updates (:attr:`read_file`): the server gives each
    update a fresh snapshot of its buffers. Paths already read keep the text they were read
    with until the caller reports them changed (:meth:`files_changed`).
    """

    def __init__(self, read_file: ReadFile, roots: list[Path], *, matching: str = "exact",
                 max_block_lines: int | None = DEFAULT_MAX_BLOCK_LINES) -> None:
        self._reads = _PathsRead(read_file)
        self._roots = list(roots)
        self._matching = matching
        self._max_block_lines = max_block_lines
        self.resets = 0  # how many times planning started again (for tests and benchmarks)
        self._start()

    @property
    def read_file(self) -> ReadFile:
        return self._reads.read_file

    @read_file.setter
    def read_file(self, read_file: ReadFile) -> None:
        self._reads.read_file = read_file

    def _start(self) -> None:
        # The planner reads through _reads, which does not refer back to this plan: a plan
        # dropped (its response document closed) is freed at once, with the files it read,
        # not left in a cycle for a garbage collector the server runs rarely.
        self._reads.forget()
        self._planner = block_planner(self._reads, self._roots, matching=self._matching,
                                      max_block_lines=self._max_block_lines)
        self._blocks: list[Block] = []  # the blocks planned, in order
        self._settled: list[BlockResult | None] = []  # their settled results, if given
        self._any_settled = False
        self._results: list[BlockResult] = []

    @property
    def _read_paths(self) -> set[Path]:
        return self._reads.paths

    @property
    def _new_paths(self) -> set[Path]:
        return self._reads.new_paths

    # ------------------------------------------------------------------ updating

    def reset(self) -> None:
        """Forget every block planned: the next update plans from scratch."""
        self.resets += 1
        self._start()

    def files_changed(self, paths: Iterable[Path]) -> bool:
        """Some files changed since they were read: start again if the plan read one of
        them (compared as written and with symlinks resolved). Whether it did."""
        paths = set(paths)
        if not paths or not self._read_paths:
            return False
        hit = not paths.isdisjoint(self._read_paths)
        if not hit:
            read = {os.path.realpath(p) for p in self._read_paths}
            hit = any(os.path.realpath(p) in read for p in paths)
        if hit:
            self.reset()
        return hit

    def update(self, blocks: Sequence[Block],
               settled: Mapping[int, BlockResult] | None = None) -> list[BlockResult]:
        """Plan ``blocks`` (the response's complete blocks, in order): only those after the
        ones already planned, unless an earlier one changed (or is settled now and was not,
        or the other way round), then all of them again. ``settled[i]``: block ``i`` is not
        planned, its result is that one. The results so far, one per block."""
        settled = settled or {}
        if not self._same_prefix(blocks, settled):
            self.reset()
        self._reads.new_paths = set()
        for block in blocks[len(self._blocks):]:
            result = settled.get(block.index)
            if result is None:
                self._results.append(self._planner.run(block))
            else:
                self._results.append(result)
            self._blocks.append(block)
            self._settled.append(result)
            self._any_settled = self._any_settled or result is not None
        return self.results

    def continues(self, blocks: Sequence[Block],
                  settled: Mapping[int, BlockResult] | None = None) -> bool:
        """Whether :meth:`update` with these arguments would plan only the blocks after
        those planned (else it starts again)."""
        return self._same_prefix(blocks, settled or {})

    def _same_prefix(self, blocks: Sequence[Block], settled: Mapping[int, BlockResult]) -> bool:
        """Whether the blocks planned are the first of ``blocks``, unchanged."""
        planned = self._blocks
        if len(blocks) < len(planned):
            return False
        # A parse kept between updates hands back the very objects of the blocks it did not
        # parse again: those are found equal in one C-level pass, the rest field by field.
        same = next(compress(count(), map(operator.is_not, blocks, planned)), len(planned))
        for p in range(same, len(planned)):
            if blocks[p] != planned[p]:
                return False
            # Equal: keep the parse's object from now on. Otherwise a block the parse read
            # again once (it stood after the cut) would stop the identity pass at it on every
            # later update, and each update would compare every block after it field by field
            # (1,363 blocks streamed: ~350 comparisons per update, seconds in all).
            planned[p] = blocks[p]
        if not settled and not self._any_settled:
            return True
        return all((settled.get(block.index) is None) == (kept is None)
                   for block, kept in zip(blocks, self._settled, strict=False))

    # ------------------------------------------------------------------ reading

    @property
    def results(self) -> list[BlockResult]:
        """One result per block planned, in order (the planner's own objects: read only)."""
        return list(self._results)

    @property
    def planned(self) -> int:
        """How many blocks are planned."""
        return len(self._blocks)

    def reads(self, path: Path) -> bool:
        """Whether the plan read ``path`` (as written or with symlinks resolved). Two
        lookups, no walk over the paths read: safe while an update runs in another thread."""
        return path in self._read_paths or Path(os.path.realpath(path)) in self._read_paths

    @property
    def read_paths(self) -> set[Path]:
        """The paths the plan read (as the planner asked for them)."""
        return set(self._read_paths)

    @property
    def new_paths(self) -> set[Path]:
        """The paths the last update read for the first time (the others were read by
        earlier updates, with the snapshots :attr:`read_file` gave then)."""
        return set(self._new_paths)

    def plan_result(self, parsed: ParseResult, *, atomic: bool = False) -> PlanResult:
        """The plan of the blocks so far as :func:`planning.plan_edits` (a dry run) gives
        it: results (copies), the composed changes, the warnings of ``parsed`` and of
        planning. Planning can go on afterwards."""
        composed = self._planner.finish(parsed, atomic, True, release=False)
        composed.blocks = [replace(result) for result in self._results]
        return composed
