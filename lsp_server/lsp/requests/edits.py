"""What each ``llmEdits.*`` command does, below the LSP glue.

``server.py`` registers the commands and turns errors into LSP error responses; the
functions here take the server (its session state and the few LSP calls a run makes:
progress, ``workspace/applyEdit``, diagnostics, log messages) and the command's argument,
and return the command's result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from ..block_spans import BlockSpans
from ..feedback import build_feedback
from ..formats import DEFAULT_FORMAT_NAMES
from ..instructions import format_instructions
from ..model import FileEdit, ParseResult, ParseWarning, PlanResult
from ..parsing import block_text_fields, parse_response
from ..results import JsonObject, changed_files, result_dict, warning_dict
from ..workspace import read_disk_file
from .ambiguity_fixes import at_candidate
from .block_selection import note_empty_selection, report_selection, select_blocks
from .change_annotations import block_spans_for, edit_annotations
from .client_refusals import plan_for_client
from .closest_fix import Planner, plan_at_closest
from .diagnostics import CODE_FAILED, Diagnostics, plan_diagnostics, warning_diagnostic
from .file_reader import FileReader
from .off_loop import (
    INLINE_MAX_BLOCKS,
    INLINE_MAX_CHARS,
    converts_inline,
    encoded,
    off_loop,
    plans_inline,
)
from .options import (
    CommandError,
    check_response_size,
    parse_edit_argument,
    parse_feedback_request,
    parse_fix_request,
    parse_instructions_request,
    parse_options,
)
from .positions import BOM, TextLines
from .pygls_hooks import EncodedJson
from .response_runs import ResponseDocumentRun
from .run_store import EditRequest, Run
from .shown import shown
from .workspace_edit import workspace_edit_json

if TYPE_CHECKING:
    from ..server import LlmEditsServer

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


def edit_request(ls: LlmEditsServer, argument: Any) -> EditRequest:
    """Validate an edit command's argument and fetch the response text."""
    parsed = parse_edit_argument(argument, ls.default_options)
    text = parsed.response
    if text is None:
        assert parsed.response_uri is not None
        text = response_document_text(ls, parsed.response_uri)
    try:
        check_response_size(text, parsed.options.max_response_bytes)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    return EditRequest(text.removeprefix(BOM), parsed.response_uri, parsed.options)


def response_document_text(ls: LlmEditsServer, uri: str) -> str:
    """The text of the response document: the open buffer, else the file."""
    buffer = ls.buffers.get(uri)
    if buffer is not None:
        return buffer.text
    fs_path = to_fs_path(uri)
    snapshot = read_disk_file(Path(fs_path)) if fs_path else None
    if snapshot is None or snapshot.text is None:
        raise CommandError(f"responseUri {uri} is not an open document (nor a readable file)")
    return snapshot.text


async def parse(request: EditRequest) -> ParseResult:
    max_block_lines = request.options.max_block_lines  # the parser stops long blocks early
    if len(request.text) <= INLINE_MAX_CHARS:
        parsed = parse_response(request.text, request.options.formats,
                                max_block_lines=max_block_lines)
    else:
        parsed = await asyncio.to_thread(parse_response, request.text, request.options.formats,
                                         max_block_lines=max_block_lines)
    limit = request.options.max_blocks
    if len(parsed.blocks) > limit:
        raise CommandError(
            f"the response has {len(parsed.blocks)} blocks, more than maxBlocks ({limit}); "
            "split it or raise maxBlocks in initializationOptions")
    return parsed


async def plan(
    ls: LlmEditsServer, request: EditRequest, reader: FileReader, title: str,
    spans: BlockSpans | None = None, planner: Planner = plan_for_client,
    document: ResponseDocumentRun | None = None, **planning: Any
) -> PlanResult:
    """Parse and plan (in a worker thread unless small), with work-done progress for long
    runs; the parses of buffers the run made are kept for the next runs. Blocks this client
    or these buffers cannot take are refused (:mod:`.client_refusals`). ``spans`` records
    which block made which change (for change annotations); ``planner`` plans (a fix may
    plan in steps, :mod:`.closest_fix`); ``document``: the run is of a response document
    (:mod:`.response_runs`)."""
    parsed = await parse(request)
    selection = select_blocks(request.options, parsed, planning)
    if document is not None:
        document.before_planning(parsed, planning)
    progress = None
    if ls.features.work_done_progress and (
        len(parsed.blocks) >= PROGRESS_MIN_BLOCKS or len(request.text) >= PROGRESS_MIN_CHARS
    ):
        progress = await ls.begin_progress(title, f"checking {len(parsed.blocks)} blocks")
    try:
        if ls.planning_hold.enabled:
            await ls.planning_hold.wait(ls.notify_planning_held)
        planning.setdefault("matching", request.options.matching)
        planning.setdefault("atomic", request.options.atomic)
        planning.setdefault("max_block_lines", request.options.max_block_lines)
        if spans is not None:
            planning["on_change"] = spans.record
            planning["before_replanning"] = spans.spans.clear
        roots = ls.roots()
        result = await off_loop(plans_inline(request.text, parsed, reader, roots), planner,
                                parsed, reader, roots, ls.features, **planning)
        ls.buffers.keep_parses(reader.read_buffers)
        result = report_selection(result, parsed, selection)
        return result if document is None else document.after_planning(result)
    finally:
        if progress is not None:
            ls.end_progress(progress)


# ------------------------------------------------------------------ finishing a run


def changed_since(ls: LlmEditsServer, plan: PlanResult, reader: FileReader) -> str | None:
    """Why the plan's text edits no longer fit the open buffers (None: they fit).

    A run plans against a snapshot; didChange may arrive while it plans (large runs plan
    in a worker thread). Such an edit must not be sent: a client without versioned edits
    (``changes``) would apply it to the newer text, and a file read from disk and opened
    since carries no version for any editor to check.
    """
    for change in plan.changes:
        if isinstance(change, FileEdit):
            failure = _buffer_changed(ls, reader, change)
            if failure is not None:
                return failure
    return None


def _buffer_changed(ls: LlmEditsServer, reader: FileReader, change: FileEdit) -> str | None:
    """Why ``change`` no longer fits the file's open buffer (None: it fits).

    The version alone does not tell: a buffer closed and opened again starts at version 1
    again. So the text is compared too, unless it is the very string the run read (then
    nothing happened to it: every didChange/didOpen makes a new one).
    """
    uri = reader.uri_for(change.path)
    live = ls.buffers.get(uri)
    read = reader.buffer(change.path)
    if live is None:
        if read is None:
            return None  # read from disk and not open: the editor checks nothing, as before
        return (f"{shown(uri)} was closed while the edit was computed (its unsaved text may "
                "be gone); nothing was applied, run again")
    if read is not None and live.text is read.text:
        return None
    if change.version is not None and live.version != change.version:
        return (f"{shown(uri)} changed while the edit was computed (version "
                f"{change.version} → {live.version}); nothing was applied, run again")
    if live.text.removeprefix(BOM) != change.original:
        how = "closed and reopened with other text" if read is not None else (
            "opened and changed")
        return (f"{shown(uri)} was {how} while the edit was computed; nothing was applied, "
                "run again")
    return None


def texts_after(plan: PlanResult, reader: FileReader) -> Callable[[Path], str | None]:
    """The editor's texts once the plan's edit is applied (for diagnostic ranges)."""
    edited = {c.path: c.new_text for c in plan.changes if isinstance(c, FileEdit)}
    boms = reader.bom_buffers()

    def text_for(path: Path) -> str | None:
        if path in edited:
            return (BOM if path in boms else "") + edited[path]
        return reader.client_text(path)

    return text_for


async def _send(ls: LlmEditsServer, plan: PlanResult, reader: FileReader, edit: JsonObject,
                label: str, timeout: float) -> tuple[bool, str | None]:
    """Send the edit unless a buffer it edits changed meanwhile: (applied, why not)."""
    failure = changed_since(ls, plan, reader)
    if failure is not None:
        return False, failure
    applied, failure = await ls.send_edit(edit, label, timeout)
    if applied:
        mark_applied(plan)
    return applied, failure


def _log_run(ls: LlmEditsServer, command: str, plan: PlanResult, run_id: str, apply: bool,
             applied: bool, failure: str | None) -> None:
    if ls.tracing:
        ls.log_message(f"{command}: {summary(plan)}"
                       + (f"; applied={applied}" if apply else "")
                       + (f" ({failure})" if failure else "") + f"; run {run_id}")
    if failure:
        ls.log_message(f"{command}: edit not applied: {failure}", types.MessageType.Warning)


async def finish_run(
    ls: LlmEditsServer, command: str, request: EditRequest, reader: FileReader,
    plan: PlanResult, *, apply: bool, run_id: str | None = None, label: str | None = None,
    spans: BlockSpans | None = None, publish: bool = True,
) -> tuple[JsonObject, Diagnostics]:
    """Convert, send (apply), publish diagnostics, remember the run, build the result.

    A new run's diagnostics replace everything published before (unless ``publish`` is
    false: a response document's are its live validation's); for a fix of an existing run
    (``run_id`` given) they are returned for the caller to merge.
    """
    features = ls.features
    roots = ls.roots()
    inline = converts_inline(plan, reader)  # else converted in a worker thread (off_loop)

    def lines_for(path: Path, text: str) -> TextLines:
        if not inline:  # the line count kept with a buffer is the event loop's to keep
            return TextLines(text)
        return ls.buffers.text_lines(reader.uri_for(path), text)

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
        applied, failure = await _send(ls, plan, reader, edit, label,
                                       request.options.apply_edit_timeout)
    new_run = run_id is None
    run_id = run_id or ls.new_run_id()
    text_for = texts_after(plan, reader) if applied else reader.client_text
    diagnostics = await off_loop(inline, plan_diagnostics, plan, run_id, features,
                                 reader.uri_for, text_for, request.response_uri, request.text)
    if new_run:
        ls.runs.add(Run(run_id, request, plan))
    if new_run and publish:
        send = None
        if not inline:  # encoding thousands of diagnostics takes a tenth of a second or more
            send = ls.publish_encoded(await off_loop(False, ls.encode_publications, diagnostics))
        ls.diagnostics.publish_run(diagnostics, send)

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
    _log_run(ls, command, plan, run_id, apply, applied, failure)
    return result, diagnostics


# ------------------------------------------------------------------ the commands


async def parse_command(ls: LlmEditsServer, argument: Any) -> JsonObject | EncodedJson:
    """``llmEdits.parse``: the blocks and warnings, nothing planned."""
    request = edit_request(ls, argument)
    parsed = await parse(request)
    if request.response_uri is not None:
        encoding = ls.features.encoding
        response_lines = TextLines(request.text)
        ls.diagnostics.publish_uri(request.response_uri, [
            warning_diagnostic(w, None, response_lines, encoding) for w in parsed.warnings])
    if ls.tracing:
        ls.log_message(f"llmEdits.parse: {count(parsed.blocks, 'block')}, "
                       f"{count(parsed.warnings, 'warning')}")
    inline = len(request.text) <= INLINE_MAX_CHARS and len(parsed.blocks) <= INLINE_MAX_BLOCKS

    def result_json() -> JsonObject:
        return {
            "blocks": [block_text_fields(b) for b in parsed.blocks],
            "warnings": [warning_dict(w) for w in parsed.warnings],
            "shellSuggestions": list(parsed.shell_suggestions),
        }

    return await encoded(await off_loop(inline, result_json), inline)


async def run_edits(ls: LlmEditsServer, argument: Any, *,
                    apply: bool) -> JsonObject | EncodedJson:
    """``llmEdits.preview`` / ``llmEdits.apply``."""
    command = "llmEdits.apply" if apply else "llmEdits.preview"
    request = edit_request(ls, argument)
    reader = ls.reader(request.options)
    spans = block_spans_for(ls.features)  # which block made which change, for annotations
    live = ls.responses.state(request.response_uri) if request.response_uri else None
    document = ResponseDocumentRun(live, request) if live is not None else None
    planned = await plan(ls, request, reader, "LLM edits: " + ("apply" if apply else "preview"),
                         spans, document=document)
    result, _ = await finish_run(ls, command, request, reader, planned, apply=apply,
                                 spans=spans, publish=document is None)
    note_empty_selection(result, request.options)
    if document is not None:
        document.add_pending(result)
        if result.get("applied"):
            document.record_applied(planned)
    return await encoded(result, converts_inline(planned, reader))


def _fix_planning(run: Run, index: int, fix: str, line: int | None = None) -> dict[str, Any]:
    """How to re-plan one block of a run with the fix the user chose."""
    planning: dict[str, Any] = {"only": {index}, "atomic": False}
    if fix == "whitespace":
        planning["matching"] = "whitespace"
        return planning
    if fix == "at":
        planning["force_at"] = {index: at_candidate(run, index, line)}
        return planning
    fixes = run.block(index).fixes or {}
    closest = fixes.get("closestLine", fixes.get("closest_line"))
    if not isinstance(closest, int):
        raise CommandError(f"block {index} of run {run.run_id} has no closest match")
    # Placed there only while the near match still is (closest_fix).
    planning["planner"] = plan_at_closest(index, closest)
    return planning


async def apply_fix(ls: LlmEditsServer, argument: Any) -> JsonObject | EncodedJson:
    """``llmEdits.applyFix``: one block of a recent run, re-planned against current buffers."""
    try:
        fix = parse_fix_request(argument)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    run = ls.runs.get(fix.run_id)
    planning = _fix_planning(run, fix.index, fix.fix, fix.line)
    reader = ls.reader(run.request.options)
    spans = block_spans_for(ls.features)
    planned = await plan(ls, run.request, reader, "LLM edits: fix", spans, **planning)
    label = f"LLM edits: fix block {fix.index + 1} from {run.request.source_name}"
    result, diagnostics = await finish_run(
        ls, "llmEdits.applyFix", run.request, reader, planned, apply=True, run_id=run.run_id,
        label=label, spans=spans)
    # The fixed block's diagnostics are replaced; the rest of the run's stay.
    fixed = [b for b in planned.blocks if b.index == fix.index]
    run.plan.blocks = [fixed[0] if b.index == fix.index and fixed else b
                       for b in run.plan.blocks]
    ls.runs.add(run)  # its size is counted again (and it is the newest run now)
    # The user chose the tolerance: only a renewed failure is worth a diagnostic.
    failures = {uri: [d for d in items if d.code == CODE_FAILED]
                for uri, items in diagnostics.items()}
    ls.diagnostics.replace_block(run.run_id, fix.index, failures)
    return await encoded(result, converts_inline(planned, reader))


async def feedback(ls: LlmEditsServer, argument: Any) -> JsonObject:
    """``llmEdits.feedback``: retry text for the model, from a fresh plan of the response."""
    request = edit_request(ls, argument)
    reader = ls.reader(request.options)
    planned = await plan(ls, request, reader, "LLM edits: feedback")
    inline = converts_inline(planned, reader)
    text = await off_loop(inline, build_feedback, planned, reader.lines,
                          index=None, atomic=request.options.atomic)
    return {"text": text}


async def copy_feedback(ls: LlmEditsServer, argument: Any) -> JsonObject:
    """``llmEdits.copyFeedback``: retry text for a kept run (one block, or all)."""
    run_id, index = parse_feedback_request(argument)
    run = ls.runs.get(run_id)
    reader = ls.reader(run.request.options)
    # In a worker thread: the feedback reads the failed blocks' files, of any size.
    text = await off_loop(False, build_feedback, run.plan, reader.lines,
                          index=index, atomic=run.request.options.atomic)
    return {"text": text}


def document_uri(argument: Any, command: str) -> str:
    """``{uri}`` of ``llmEdits.watch`` / ``unwatch``."""
    if not isinstance(argument, dict) or not isinstance(argument.get("uri"), str):
        raise CommandError(f"{command} takes {{uri}}: the URI of an open document")
    return argument["uri"]


def change_configuration(ls: LlmEditsServer, settings: Any) -> str | None:
    """``workspace/didChangeConfiguration``: the settings given (``{"llmEdits": {...}}`` or
    the options themselves) replace the defaults of the same name; a warning when they are
    not valid (then nothing changes)."""
    if isinstance(settings, dict) and isinstance(settings.get("llmEdits"), dict):
        settings = settings["llmEdits"]
    if not isinstance(settings, dict):
        return None  # a client announcing a change it does not send: nothing to do
    merged = {**ls.default_options, **settings}
    try:
        parse_options(None, merged)
    except ValueError as exc:
        return f"settings ignored: {exc}"
    ls.default_options = merged
    ls.responses.options_changed()
    return None


def instructions(argument: Any) -> JsonObject:
    """``llmEdits.instructions``: the prompt text teaching a model one format, or all."""
    name = parse_instructions_request(argument)
    try:
        text = format_instructions(name)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    return {"text": text, "formats": [name] if name else list(DEFAULT_FORMAT_NAMES)}
