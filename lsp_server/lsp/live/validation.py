"""Validating a response document against the open buffers, and applying its blocks as they
complete (``applyWhileStreaming``). State and scheduling: :mod:`.response_documents`.

One validation: a snapshot of the buffers, the :class:`StreamingPlan` told which buffers
changed since the last one and given the complete blocks (only the new ones are planned,
unless something before them changed), then the document's diagnostics, its quick-fix run
and, when the lens titles changed, ``workspace/codeLens/refresh``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ...model import Block, BlockResult, ParseResult, ParseWarning, PlanResult
from ...streaming_plan import block_identity
from ..client_refusals import plan_for_client
from ..editor import Editor
from ..off_loop import off_loop, plans_inline
from ..protocol.diagnostics import TOLERANT_MATCHES, plan_diagnostics, response_block_diagnostics
from ..protocol.positions import TextLines
from ..protocol.shown import shown
from ..protocol.workspace_edit import workspace_edit_json
from ..run_store import EditRequest, Run
from ..stale_edits import changed_since
from .code_lens import first_difference

if TYPE_CHECKING:
    from ..file_reader import FileReader
    from .state import ResponseDocument


async def validate_once(editor: Editor, live: ResponseDocument) -> None:
    """Validate ``live``'s blocks against the buffers as they are now."""
    generation = live.generation
    options = live.options
    await editor.hold_planning()
    reader = editor.reader(options.max_file_bytes)
    roots = editor.roots()
    parsed = live.parsed
    # Every block the parse closed is validated and shown (a lens, Apply all, a lens click
    # run it); only applying while streaming waits for a block to be complete (apply_ready).
    blocks = parsed.blocks
    plan = live.response.planner(reader, roots)
    plan.files_changed(live.changed_paths)
    live.changed_paths = set()
    settled = live.applied.settled(blocks)
    continues = plan.continues(blocks, settled)
    to_plan = blocks[plan.planned:] if continues else blocks
    read_before = plan.read_paths if continues else set()  # else planned again: read anew
    inline = plans_inline("", ParseResult(blocks=list(to_plan)), reader, roots,
                          read_before.__contains__)
    results = await off_loop(inline, plan.update, blocks, settled)
    if live.closed:
        return
    if not inline:  # a buffer read in the worker thread may have changed meanwhile
        # (one read by an earlier update was read before this one started: a didChange of
        # it since is a buffer change the document heard of, see buffer_changed)
        changed = _changed_since_read(editor, reader, plan.new_paths)
        if changed:
            live.changed_paths |= changed
            live.generation += 1
    # A lens's title is its block's result, resolved when the editor shows it: the lenses
    # are asked for again when the list changed or a result did (a new object).
    results_changed = (len(results) != len(live.results)
                       or first_difference(results, live.results) != len(results))
    live.results, live.reader, live.validated_parse = results, reader, parsed
    live.validated_generation = generation
    editor.buffers.keep_parses(reader.read_buffers)
    _publish(editor, live)
    lenses = live.lenses_json()
    if lenses != live.lens_text or results_changed:
        live.lens_text = lenses
        if editor.features.code_lens_refresh:
            editor.client.refresh_code_lenses()


def _changed_since_read(editor: Editor, reader: FileReader,
                        paths: set[Path]) -> set[Path]:
    """The paths whose open buffer is no longer the text ``reader`` gave (a didChange came
    while planning ran in a worker thread, before the plan had read the path)."""
    changed = set()
    for path in paths:
        read = reader.buffer(path)
        live = editor.buffers.get(reader.uri_for(path))
        if (read is None) != (live is None) or (
                read is not None and live is not None and live.text is not read.text):
            changed.add(path)
    return changed


def _publish(editor: Editor, live: ResponseDocument) -> None:
    """The document's diagnostics (its failures and malformed blocks, and on the target
    files), and its run for quick fixes and feedback."""
    assert live.reader is not None
    reader = live.reader
    noted = _noted(live)
    warnings = live.warnings
    if _published_already(editor, live, noted, warnings):
        return
    plan = PlanResult(blocks=noted, warnings=warnings)
    features = editor.features
    diagnostics = plan_diagnostics(plan, live.run_id, features, reader.uri_for,
                                   reader.client_text, live.uri, live.text)
    failed_here = response_block_diagnostics(noted, live.run_id, TextLines(live.text),
                                             features.encoding)
    if failed_here:
        on_response = diagnostics.setdefault(live.uri, [])
        on_response += failed_here
        on_response.sort(key=lambda d: d.range.start.line)
    changed = editor.diagnostics.publish_live(live.uri, diagnostics)
    live.published = (noted, warnings, editor.diagnostics.live_layer(live.uri))
    if changed:
        # Quick fixes and feedback on them find their blocks in this run (unchanged while
        # the diagnostics are).
        editor.runs.add(Run(live.run_id, EditRequest(live.text, live.uri, live.options),
                            PlanResult(blocks=list(live.results), warnings=warnings)))


def _published_already(editor: Editor, live: ResponseDocument,
                       noted: list[BlockResult], warnings: list[ParseWarning]) -> bool:
    """Whether the diagnostics published last are those of ``noted`` and ``warnings``:
    the very same objects, and the layer published for them still shown (not cleared).

    Sound because a result is the same object only while nothing it was planned from
    changed (its block, equal and at the same line; the files the plan read: any change to
    one plans again from scratch, new objects), and a warning kept by the parse lies above
    every change. Building the diagnostics again cost ~0.3 ms a chunk on a 1 MB response
    (its warning's line looked up in the text, lsprotocol objects made and compared).
    """
    if live.published is None:
        return False
    before_noted, before_warnings, layer = live.published
    return (len(noted) == len(before_noted) and len(warnings) == len(before_warnings)
            and first_difference(noted, before_noted) == len(noted)
            and first_difference(warnings, before_warnings) == len(warnings)
            and editor.diagnostics.live_layer(live.uri) is layer)


def _notable(result: BlockResult) -> bool:
    """Whether a block has a diagnostic (a run's: failed, tolerant, already applied)."""
    return result.status not in ("validated", "applied") or result.match in TOLERANT_MATCHES


def _noted(live: ResponseDocument) -> list[BlockResult]:
    """The results that have diagnostics. Those of the blocks whose result is the very
    object it was at the last validation are kept: a chunk costs its new blocks, not a
    walk over every block of a long response."""
    kept = first_difference(live.results, live.diagnosed)
    noted = [r for r in live.noted if r.index < kept]
    noted += [r for r in live.results[kept:] if _notable(r)]
    live.diagnosed, live.noted = live.results, noted
    return noted


# ------------------------------------------------------------------ applying while streaming


async def apply_ready(editor: Editor, live: ResponseDocument) -> bool:
    """Apply the first block the stream completed that validates and was not tried yet,
    alone; whether one was tried (then the buffers changed, and the document is validated
    again before the next).

    Only a block the stream completed is applied on its own, and each at most once: one the
    user edits afterwards is another block (what it does changed), one of an old answer
    was complete before, and both wait for a click. One that does not validate when it
    completes (failed, skipped, already applied) is not tried later either."""
    complete = live.parsed.blocks[:live.complete]  # never one still being written
    streamed, attempted = live.streamed, live.attempted
    if not streamed:
        return False
    for block, result in zip(complete, live.results, strict=False):
        key = block_identity(block)
        if key not in streamed or key in attempted:
            continue
        if result.status == "validated":
            return await _apply_block(editor, live, block)
        attempted.add(key)
    return False


async def _apply_block(editor: Editor, live: ResponseDocument, block: Block) -> bool:
    options = live.options
    reader = editor.reader(options.max_file_bytes)
    roots = editor.roots()
    parsed = live.parsed
    inline = plans_inline("", ParseResult(blocks=[block]), reader, roots)
    plan = await off_loop(inline, plan_for_client, parsed, reader, roots, editor.features,
                          only={block.index}, matching=options.matching, atomic=False,
                          max_block_lines=options.max_block_lines)
    if live.closed:
        return False
    result = next((r for r in plan.blocks if r.index == block.index), None)
    key = block_identity(block)
    if result is None or result.status != "validated":
        live.attempted.add(key)  # it does not apply over the buffers as they are
        return True
    edit, _ = workspace_edit_json(plan, editor.features, reader.uri_for, reader.bom_buffers(),
                                  root=roots[0] if roots else None)
    if edit is None or changed_since(editor.buffers, plan, reader) is not None:
        # Nothing to send, or a buffer changed while planning: validated again first.
        live.generation += 1
        return edit is not None
    live.attempted.add(key)
    label = f"LLM edits: block {block.index + 1} ({block.file}) from {_source_name(live)}"
    applied, failure = await editor.client.send_edit(edit, label, options.apply_edit_timeout)
    if applied:
        live.applied.record(block, _applied(result))
    else:
        editor.log_message(f"applyWhileStreaming: block {block.index + 1} "
                           f"({shown(block.file)}) not applied: {failure}",
                           types.MessageType.Warning)
    live.generation += 1  # its status changed (and the buffers, when applied)
    return True


def _applied(result: BlockResult) -> BlockResult:
    result.status = "applied"
    return result


def _source_name(live: ResponseDocument) -> str:
    return EditRequest(live.text, live.uri, live.options).source_name
