"""Locate a code block (docs/formats.md "code-block"): the merge (``lsp_server.merge``) turns
the file's lines and the fence's code into the file's new lines, whole file or snippet; this
policy applies them as the minimal line edits, as whole-file's ``write`` does, and turns a
merge failure into the engine's usual failure.

- The new lines are aligned with the current ones (:func:`whole_file.line_opcodes` and
  :func:`whole_file.kept_and_new`, as whole-file does): lines the merge kept stay kept lines
  (their text and origin), so the editor receives only the changed lines and the file's EOL
  style, BOM and final newline are untouched.
- A merge that changes nothing is ``already-applied`` (its new text is already there).
- Failures: an ambiguous unit lists every candidate (``candidateLines``: the ``at`` fix,
  whose chosen line goes back to the merge as ``at_line``); snippet lines that cannot be
  placed are diagnosed like any old text (estimated line, did-you-mean, the whitespace fix
  when a tolerant match would place them); every other failure keeps the merge's reason and
  estimated line. A code block applies whole or not at all: the merge never answers half.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ambiguity import places_diagnosis
from ..diagnosis import Diagnosis, diagnose
from ..matching import FileMatcher
from ..model import Block
from .already_applied import AlreadyApplied
from .common import BlockFailure, LocateOptions, Placement, tolerant_unique
from .whole_file import kept_and_new, line_opcodes

if TYPE_CHECKING:
    from ..merge import MergeFailure

# How many of a unit's lines the failure's context shows at each candidate.
_CANDIDATE_CONTEXT = 3


def locate_code_block(block: Block, fm: FileMatcher, options: LocateOptions) -> Placement:
    """The file's lines become the merge's: kept lines where they agree, new text where they
    differ; :class:`AlreadyApplied` when the merge changes nothing."""
    # The merge loads on the first code block: a run without one (every ``llm-edits`` run
    # loads all the locate policies) does not pay for importing it.
    from ..merge import MergeFailure, MergeRequest, merge_code_block

    current = fm.lines
    chosen = options.chosen_place(block)
    outcome = merge_code_block(MergeRequest(
        file_lines=current or None,  # an empty file is filled as a new one would be
        code_lines=block.new,
        path=block.file,
        info=block.info,
        whitespace=options.tolerant,
        at_line=None if chosen is None else int(chosen),
    ))
    if isinstance(outcome, MergeFailure):
        raise merge_failure(outcome, block, fm, options)
    if outcome.lines == current and current:
        return AlreadyApplied([], outcome.first_line, outcome.match)
    items = kept_and_new(line_opcodes(current, outcome.lines), outcome.lines)
    return Placement([(0, len(current), items)], outcome.first_line, outcome.match)


def merge_failure(failure: MergeFailure, block: Block, fm: FileMatcher,
                  options: LocateOptions) -> BlockFailure:
    """The block failure of a merge failure, its diagnosis made when it is read."""
    line = failure.line or 0
    if failure.kind == "ambiguous" and failure.candidates:
        candidates = sorted(failure.candidates)
        length = min(len(block.new), _CANDIDATE_CONTEXT)

        def explain_places() -> Diagnosis:
            return places_diagnosis(fm, candidates, length,
                                    lambda words: f"{failure.reason} (candidates at {words})")

        return BlockFailure(failure.reason, candidates[0], ambiguous=True,
                            explain=explain_places)
    if failure.kind == "not-found" and failure.unplaced and fm.lines:
        needle = list(failure.unplaced)

        def explain_unplaced() -> Diagnosis:
            return diagnose(fm, needle, failure.reason, hint_line=failure.line,
                            tolerant_start=tolerant_unique(fm, options, needle, 0),
                            allow_closest=False)

        return BlockFailure(failure.reason, line, explain=explain_unplaced)
    return BlockFailure(failure.reason, line)
