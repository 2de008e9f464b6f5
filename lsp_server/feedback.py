"""Retry feedback: the text a user pastes back to the model after some blocks failed.

Seeds 001 and 002 ask that failed edits be "visible to the AI in subsequent exchanges for
retry with corrected anchors". :func:`build_feedback` turns a :class:`PlanResult` into that
text:

- for every failed block: its number, file, format and response line, the reason, the hint
  (did-you-mean / how to fix), and the *actual* file lines around the estimated line with
  1-based line numbers, the estimated line marked (from ``BlockResult.context``; when the
  engine gave none, from ``read_lines(path)``);
- the blocks skipped because of that failure (later blocks for the same file);
- parts of the response that were not blocks at all (malformed, unclosed, no path);
- what was applied (or, after a dry run, what matched and will apply), and what the files
  already had (``already-applied``: the response was applied before): neither is to be
  re-sent;
- a closing instruction: re-read the files and send corrected blocks only.

Signature::

    build_feedback(result, read_lines=None, *, index=None, atomic=False) -> str

``read_lines(path)`` returns a file's current lines without terminators, or None when it
cannot be read; ``index`` restricts the failure part to one block (and the blocks it caused
to be skipped), as ``llmEdits.copyFeedback`` does; ``atomic=True`` says the run was
all-or-nothing, so a failure means nothing was written and the matching blocks must be sent
again with the corrected ones. With no blocks, or every block applied, the text says so.

Used by the server (``llmEdits.feedback``, ``llmEdits.copyFeedback``),
``llm-edits feedback`` and the MCP tools. :func:`build_call_feedback` is the same for one
tool call making one edit (MCP's ``edit_file``): it speaks of the call, as the agent sent
arguments and no response. Pure: reads nothing itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from .ambiguity import candidates_feedback, fence_for
from .model import BlockResult, ParseWarning, PlanResult

ReadLines = Callable[[Path], list[str] | None]

# Lines shown around the estimated line when the engine gave no context of its own.
CONTEXT_BEFORE = 3
CONTEXT_AFTER = 8
MAX_CONTEXT_LINE_CHARS = 300  # a minified line must not swamp the feedback

_OK = ("applied", "validated")


def without_excluded(plan: PlanResult) -> tuple[PlanResult, bool]:
    """``plan`` without its excluded blocks (what retry feedback reports on), and whether
    every block of it was excluded (then nothing ran)."""
    kept = [b for b in plan.blocks if b.status != "excluded"]
    if len(kept) == len(plan.blocks):
        return plan, False
    return replace(plan, blocks=kept), not kept


def build_feedback(
    result: PlanResult,
    read_lines: ReadLines | None = None,
    *,
    index: int | None = None,
    atomic: bool = False,
) -> str:
    """The retry feedback for ``result`` (see the module docstring)."""
    result, nothing_run = without_excluded(result)  # blocks the user left out: not reported
    if nothing_run:
        return "No block was selected to run, so nothing was changed.\n"
    shown = _Shown.select(result, index)
    short = _short_answer(result, shown, index)
    if short is not None:
        return short
    nothing_written = atomic and any(b.status == "failed" for b in result.blocks)
    out = [_NOT_WRITTEN if nothing_written else _SOME_FAILED, ""]
    if shown.failed:
        out += ["## Failed blocks", ""]
    for block in shown.failed:
        out += _failed_section(block, shown.skipped_by.get(block.index, []), read_lines)
    out += _listed("## Skipped blocks (an earlier block for the same file failed)",
                   [f"- {_label(b)}" for b in shown.orphan_skipped])
    out += _listed("## Not understood (not applied)",
                   [f"- response line {w.response_line + 1}: {w.message}"
                    for w in shown.warnings])
    out += _ok_section(shown.ok_blocks, nothing_written)
    out += _listed("## Already applied (the files already have these changes: do not send "
                   "them again)", [f"- {_label(b)}" for b in shown.done])
    out += _listed("## Shell commands you suggested (shown to the user, not run)",
                   [f"- `{cmd}`" for cmd in result.shell_suggestions])
    out.append(_RESEND_ALL if nothing_written else _RESEND_FAILED)
    return "\n".join(out).rstrip("\n") + "\n"


def build_call_feedback(result: PlanResult, call: str,
                        read_lines: ReadLines | None = None) -> str:
    """The retry feedback on one tool call that makes one edit (an agent's ``edit_file``):
    the call named, never a response's blocks and lines (there is no response text, only
    the call's arguments); a failure's reason, hint and file lines as :func:`build_feedback`
    gives them."""
    failed = _with_status(result.blocks, "failed")
    if not failed:
        done = {b.status for b in result.blocks}
        how = next((_CALL_DONE[status] for status in _CALL_DONE if status in done),
                   "made no edit")
        return f"The {call} call {how}; there is nothing to correct.\n"
    block = failed[0]
    out = [f"Your {call} call on {block.file} could not be applied; the file was not "
           "changed.", ""]
    out += _failure_details(block, read_lines, "the file")
    out += ["", f"Read {block.file} again as it is now, then call {call} again, copying the "
            "text you replace from the current file."]
    return "\n".join(out) + "\n"


_CALL_DONE = {"applied": "was applied", "validated": "matches the file",
              "already-applied": "changed nothing: the file already has this change"}


_NOT_WRITTEN = ("Your edits were NOT applied: they were to be applied all together or not at "
                "all, and some blocks failed. Nothing was written.")
_SOME_FAILED = "Some of your edit blocks could not be applied."
_RESEND_ALL = ("Re-read the files named above as they are now, then send the whole change "
               "again: the corrected blocks and, unchanged, the blocks listed as correct.")
_RESEND_FAILED = ("Re-read the files named above as they are now, then send corrected blocks "
                  "for the failed and skipped edits only, copying the lines you quote from the "
                  "current file. Do not re-send blocks that were applied.")


@dataclass
class _Shown:
    """What the feedback reports: all of the result, or one block's part of it."""

    failed: list[BlockResult]
    skipped_by: dict[int, list[BlockResult]]  # failed block's index -> the skips it caused
    orphan_skipped: list[BlockResult]  # skipped blocks whose failure is not shown
    warnings: list[ParseWarning]
    ok_blocks: list[BlockResult]
    done: list[BlockResult]  # already applied: their new text was in the files

    @classmethod
    def select(cls, result: PlanResult, index: int | None) -> _Shown:
        blocks = result.blocks
        selected = blocks if index is None else [b for b in blocks if b.index == index]
        failed = _with_status(selected, "failed")
        skipped_by = _skipped_by_failure(blocks)
        shown_skipped = {b.index for f in failed for b in skipped_by.get(f.index, [])}
        # Skipped blocks whose failed cause is outside the selection still need re-sending.
        orphan_skipped = [b for b in _with_status(selected, "skipped")
                          if b.index not in shown_skipped]
        warnings = result.warnings if index is None else []
        return cls(failed, skipped_by, orphan_skipped, warnings, _with_status(blocks, *_OK),
                   _with_status(blocks, "already-applied"))


def _with_status(blocks: list[BlockResult], *statuses: str) -> list[BlockResult]:
    return [b for b in blocks if b.status in statuses]


def _short_answer(result: PlanResult, shown: _Shown, index: int | None) -> str | None:
    """The one-line answer when there is nothing to correct, else None."""
    if not result.blocks and not shown.warnings:
        return "No edit blocks were found in the response, so nothing was changed.\n"
    if shown.failed or shown.orphan_skipped or shown.warnings:
        return None
    if index is not None and not any(b.index == index for b in result.blocks):
        return f"There is no block {index + 1} in the response.\n"
    return f"{_all_ok(shown.ok_blocks, shown.done)}; there is nothing to correct.\n"


def _all_ok(ok_blocks: list[BlockResult], done: list[BlockResult]) -> str:
    """"All N edit blocks applied", saying how many of them the files already had."""
    if not ok_blocks:
        return (f"All {len(done)} edit blocks were already applied (the files already have "
                "their changes)")
    verb = "applied" if all(b.status == "applied" for b in ok_blocks) else "matched"
    if not done:
        return f"All {len(ok_blocks)} edit blocks {verb}"
    return (f"All {len(ok_blocks) + len(done)} edit blocks {verb} or were already applied "
            f"({len(done)} already: the files had their changes)")


def _listed(title: str, items: list[str]) -> list[str]:
    """A titled list, or nothing when there are no items."""
    return [title, "", *items, ""] if items else []


def _skipped_by_failure(blocks: list[BlockResult]) -> dict[int, list[BlockResult]]:
    """Each failed block's index → the later skipped blocks for the same file."""
    last_failure: dict[object, int] = {}
    caused: dict[int, list[BlockResult]] = {}
    for b in blocks:
        key = _file_key(b)
        if b.status == "failed":
            last_failure[key] = b.index
        elif b.status == "skipped" and key in last_failure:
            caused.setdefault(last_failure[key], []).append(b)
    return caused


def _file_key(block: BlockResult) -> object:
    return block.path if block.path is not None else block.file


def _label(block: BlockResult) -> str:
    return (
        f"block {block.index + 1}: {block.file} ({block.format}, "
        f"response line {block.response_line + 1})"
    )


def _failed_section(
    block: BlockResult, skipped: list[BlockResult], read_lines: ReadLines | None
) -> list[str]:
    out = [f"### Block {block.index + 1}: {block.file}"]
    out.append(f"Format: {block.format}, starting at line {block.response_line + 1} of your "
               "response.")
    # "as the blocks before it leave it": in a dry run the earlier matching blocks are not on
    # disk yet, but the engine's line numbers count them.
    out += _failure_details(block, read_lines, _AFTER_EARLIER_BLOCKS)
    if skipped:
        out.append("Skipped because of this failure (not applied, send them again corrected):")
        out.extend(f"- {_label(b)}" for b in skipped)
    out.append("")
    return out


_AFTER_EARLIER_BLOCKS = "the file as the blocks before this one leave it"


def _failure_details(block: BlockResult, read_lines: ReadLines | None,
                     the_file: str) -> list[str]:
    """Why ``block`` failed and where: its reason, hint, and every place it matches (an
    ambiguous block) or the file's numbered lines around the estimated line. ``the_file``
    names the text those lines are of."""
    out = [f"Reason: {block.reason or 'failed'}"]
    if block.hint:
        out.append(f"Hint: {block.hint}")
    context = _context_lines(block, read_lines)
    candidates = candidates_feedback(block, the_file)  # every place an ambiguous block matches
    if candidates:
        out.extend(candidates)
    elif context:
        where = f"line {block.line + 1}" if block.line is not None else "the estimated place"
        out.append(f"{the_file[0].upper()}{the_file[1:]}, around {where} (line numbers are for "
                   "reference only, they are not part of the file):")
        out.extend(_numbered(context, block.line))
    elif block.line is not None:
        out.append(f"Estimated line in the file: {block.line + 1}.")
    return out


def _context_lines(
    block: BlockResult, read_lines: ReadLines | None
) -> list[tuple[int, str]]:
    if block.context:
        return list(block.context)
    if read_lines is None or block.path is None or block.line is None:
        return []
    try:
        lines = read_lines(block.path)
    except Exception:  # a reader failure must not cost the rest of the feedback
        return []
    if not lines:
        return []
    start = max(0, block.line - CONTEXT_BEFORE)
    end = min(len(lines), block.line + CONTEXT_AFTER + 1)
    return [(n, lines[n]) for n in range(start, end)]


def _numbered(context: list[tuple[int, str]], marked: int | None) -> list[str]:
    width = len(str(max(n for n, _ in context) + 1))
    body = []
    for n, text in context:
        if len(text) > MAX_CONTEXT_LINE_CHARS:
            text = text[:MAX_CONTEXT_LINE_CHARS] + " …(line cut)"
        mark = ">" if n == marked else " "
        body.append(f"{mark} {n + 1:>{width}} | {text}")
    fence = fence_for(body)
    return [fence, *body, fence]


def _ok_section(ok_blocks: list[BlockResult], nothing_written: bool) -> list[str]:
    applied = [b for b in ok_blocks if b.status == "applied"]
    validated = [b for b in ok_blocks if b.status == "validated"]
    out: list[str] = []
    if applied:
        out.append("## Applied (already in the files: do not send these again)")
        out.append("")
        out.extend(f"- {_label(b)}" for b in applied)
        out.append("")
    if validated:
        if nothing_written:
            out.append("## Correct but not applied (send these again unchanged)")
        else:
            out.append("## Matched: these apply as written (do not send them again)")
        out.append("")
        out.extend(f"- {_label(b)}" for b in validated)
        out.append("")
    return out
