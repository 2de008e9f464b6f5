"""One edit run of a command, below the LSP glue: the request read (argument, response
text), parsed and planned against a snapshot of the buffers (in a worker thread unless small,
with work-done progress for long runs), then finished: converted to a workspace edit, sent
(apply), its diagnostics published, the run kept, the result built."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from ...block_spans import BlockSpans
from ...model import FileEdit, ParseResult, ParseWarning, PlanResult
from ...results import JsonObject, changed_files, result_dict
from ...session.options import OptionsError
from ...session.run import parse_within_limits, planning_options, report_selection, select
from ...workspace import read_disk_file
from ..client_refusals import plan_for_client
from ..editor import Editor
from ..errors import CommandError
from ..file_reader import FileReader
from ..live.runs import ResponseDocumentRun
from ..off_loop import (
    INLINE_MAX_CHARS,
    converts_inline,
    off_loop,
    plans_inline,
)
from ..protocol.change_annotations import edit_annotations
from ..protocol.diagnostics import Diagnostics, plan_diagnostics
from ..protocol.positions import BOM, TextLines
from ..protocol.workspace_edit import workspace_edit_json
from ..run_store import EditRequest, Run
from ..stale_edits import changed_since
from .arguments import parse_edit_argument
from .closest_fix import Planner

# Work-done progress is shown for runs at least this big (small runs finish in milliseconds).
PROGRESS_MIN_BLOCKS = 20
PROGRESS_MIN_CHARS = 512 * 1024


def count(items: list, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def summary(plan: PlanResult) -> str:
    """One line for the log: how many blocks, by status."""
    counts: dict[str, int] = {}
    for block in plan.blocks:
        counts[block.status] = counts.get(block.status, 0) + 1
    parts = [f"{n} {status}" for status, n in sorted(counts.items())]
    return f"{len(plan.blocks)} block(s)" + (f": {', '.join(parts)}" if parts else "")


def mark_applied(plan: PlanResult) -> None:
    """After the editor applied the edit: validated blocks become applied."""
    for block in plan.blocks:
        if block.status == "validated":
            block.status = "applied"


# ------------------------------------------------------------------ requests and planning


def edit_request(editor: Editor, argument: Any) -> EditRequest:
    """Validate an edit command's argument and fetch the response text."""
    parsed = parse_edit_argument(argument, editor.default_options)
    text = parsed.response
    if text is None:
        assert parsed.response_uri is not None
        text = response_document_text(editor, parsed.response_uri)
    return EditRequest(text.removeprefix(BOM), parsed.response_uri, parsed.options)


def response_document_text(editor: Editor, uri: str) -> str:
    """The text of the response document: the open buffer, else the file."""
    buffer = editor.buffers.get(uri)
    if buffer is not None:
        return buffer.text
    fs_path = to_fs_path(uri)
    snapshot = read_disk_file(Path(fs_path)) if fs_path else None
    if snapshot is None or snapshot.text is None:
        raise CommandError(f"responseUri {uri} is not an open document (nor a readable file)")
    return snapshot.text


async def parse(request: EditRequest, roots: list[Path]) -> ParseResult:
    """The response parsed within the limits (in a worker thread unless small)."""
    try:
        if len(request.text) <= INLINE_MAX_CHARS:
            return parse_within_limits(request.text, request.options, roots)
        return await asyncio.to_thread(parse_within_limits, request.text, request.options,
                                       roots)
    except OptionsError as exc:
        raise CommandError(str(exc)) from None


async def plan(
    editor: Editor, request: EditRequest, reader: FileReader, title: str,
    spans: BlockSpans | None = None, planner: Planner = plan_for_client,
    document: ResponseDocumentRun | None = None, **planning: Any
) -> PlanResult:
    """Parse and plan (in a worker thread unless small), with work-done progress for long
    runs; the parses of buffers the run made are kept for the next runs. Blocks this client
    or these buffers cannot take are refused (:mod:`.client_refusals`). ``spans`` records
    which block made which change (for change annotations); ``planner`` plans (a fix may
    plan in steps, :mod:`.closest_fix`); ``document``: the run is of a response document
    (:mod:`..live.runs`)."""
    roots = editor.roots()
    parsed = await parse(request, roots)
    try:
        selection = select(request.options, parsed, planning)
    except OptionsError as exc:
        raise CommandError(str(exc)) from None
    if document is not None:
        document.before_planning(parsed, planning)
    progress = None
    if editor.features.work_done_progress and (
        len(parsed.blocks) >= PROGRESS_MIN_BLOCKS or len(request.text) >= PROGRESS_MIN_CHARS
    ):
        progress = await editor.client.begin_progress(
            title, f"checking {len(parsed.blocks)} blocks")
    try:
        await editor.hold_planning()
        planning_options(request.options, planning)
        if spans is not None:
            planning["on_change"] = spans.record
            planning["before_replanning"] = spans.spans.clear
        result = await off_loop(plans_inline(request.text, parsed, reader, roots), planner,
                                parsed, reader, roots, editor.features, **planning)
        editor.buffers.keep_parses(reader.read_buffers)
        result = report_selection(result, parsed, selection)
        return result if document is None else document.after_planning(result)
    finally:
        if progress is not None:
            editor.client.end_progress(progress)

def texts_after(plan: PlanResult, reader: FileReader) -> Callable[[Path], str | None]:
    """The editor's texts once the plan's edit is applied (for diagnostic ranges)."""
    edited = {c.path: c.new_text for c in plan.changes if isinstance(c, FileEdit)}
    boms = reader.bom_buffers()

    def text_for(path: Path) -> str | None:
        if path in edited:
            return (BOM if path in boms else "") + edited[path]
        return reader.client_text(path)

    return text_for


async def _send(editor: Editor, plan: PlanResult, reader: FileReader, edit: JsonObject,
                label: str, timeout: float) -> tuple[bool, str | None]:
    """Send the edit unless a buffer it edits changed meanwhile: (applied, why not)."""
    failure = changed_since(editor.buffers, plan, reader)
    if failure is not None:
        return False, failure
    applied, failure = await editor.client.send_edit(edit, label, timeout)
    if applied:
        mark_applied(plan)
    return applied, failure


def _log_run(editor: Editor, command: str, plan: PlanResult, run_id: str, apply: bool,
             applied: bool, failure: str | None) -> None:
    if editor.tracing:
        editor.log_message(f"{command}: {summary(plan)}"
                       + (f"; applied={applied}" if apply else "")
                       + (f" ({failure})" if failure else "") + f"; run {run_id}")
    if failure:
        editor.log_message(f"{command}: edit not applied: {failure}", types.MessageType.Warning)


async def finish_run(
    editor: Editor, command: str, request: EditRequest, reader: FileReader,
    plan: PlanResult, *, apply: bool, run_id: str | None = None, label: str | None = None,
    spans: BlockSpans | None = None, publish: bool = True,
) -> tuple[JsonObject, Diagnostics]:
    """Convert, send (apply), publish diagnostics, remember the run, build the result.

    A new run's diagnostics replace everything published before (unless ``publish`` is
    false: a response document's are its live validation's); for a fix of an existing run
    (``run_id`` given) they are returned for the caller to merge.
    """
    features = editor.features
    roots = editor.roots()
    inline = converts_inline(plan, reader)  # else converted in a worker thread (off_loop)

    def lines_for(path: Path, text: str) -> TextLines:
        if not inline:  # the line count kept with a buffer is the event loop's to keep
            return TextLines(text)
        return editor.buffers.text_lines(reader.uri_for(path), text)

    def convert() -> tuple[JsonObject | None, list[ParseWarning]]:
        return workspace_edit_json(
            plan, features, reader.uri_for, reader.bom_buffers(),
            root=roots[0] if roots else None, lines_for=lines_for,
            annotations=edit_annotations(plan, spans, confirm=request.options.confirm))

    edit, extra_warnings = await off_loop(inline, convert)
    applied, failure = False, None
    if apply and edit is not None:
        ran = [b for b in plan.blocks if b.status != "excluded"]
        label = label or f"LLM edits: {count(ran, 'block')} from {request.source_name}"
        applied, failure = await _send(editor, plan, reader, edit, label,
                                       request.options.apply_edit_timeout)
    new_run = run_id is None
    run_id = run_id or editor.new_run_id()
    text_for = texts_after(plan, reader) if applied else reader.client_text
    diagnostics = await off_loop(inline, plan_diagnostics, plan, run_id, features,
                                 reader.uri_for, text_for, request.response_uri, request.text)
    if new_run:
        editor.runs.add(Run(run_id, request, plan))
    if new_run and publish:
        send = None
        if not inline:  # encoding thousands of diagnostics takes a tenth of a second or more
            client = editor.client
            send = client.publish_encoded(
                await off_loop(False, client.encode_publications, diagnostics))
        editor.diagnostics.publish_run(diagnostics, send)

    def result_json() -> JsonObject:
        files = None
        if request.options.include_text:
            files = changed_files(plan, reader.uri_for, reader.client_text)
        # `edit` is the very JSON workspace/applyEdit carried.
        return result_dict(plan, edit, reader.uri_for, run_id=run_id,
                           extra_warnings=extra_warnings, files=files)

    result = await off_loop(inline, result_json)
    if apply:
        result["applied"] = applied
        if failure is not None:
            result["failureReason"] = failure
    _log_run(editor, command, plan, run_id, apply, applied, failure)
    return result, diagnostics
