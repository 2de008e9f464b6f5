"""``llmEdits.parse``, ``llmEdits.preview`` and ``llmEdits.apply``."""

from __future__ import annotations

from typing import Any

from ...parsing import block_text_fields
from ...results import JsonObject, warning_dict
from ...session.selection import empty_selection_message
from ..editor import Editor
from ..errors import CommandError
from ..live.documents import ResponseDocuments
from ..live.runs import ResponseDocumentRun, lens_block_of
from ..live.target_lens import response_document_target
from ..off_loop import (
    INLINE_MAX_BLOCKS,
    INLINE_MAX_CHARS,
    converts_inline,
    encoded,
    off_loop,
)
from ..protocol.change_annotations import block_spans_for
from ..protocol.diagnostics import warning_diagnostic
from ..protocol.positions import TextLines
from ..protocol.pygls_hooks import EncodedJson
from .edit_runs import count, edit_request, finish_run, parse, plan


async def parse_command(editor: Editor, argument: Any) -> JsonObject | EncodedJson:
    """``llmEdits.parse``: the blocks and warnings, nothing planned."""
    request = edit_request(editor, argument)
    parsed = await parse(request, editor.roots())
    if request.response_uri is not None:
        encoding = editor.features.encoding
        response_lines = TextLines(request.text)
        editor.diagnostics.publish_uri(request.response_uri, [
            warning_diagnostic(w, None, response_lines, encoding) for w in parsed.warnings])
    if editor.tracing:
        editor.log_message(f"llmEdits.parse: {count(parsed.blocks, 'block')}, "
                           f"{count(parsed.warnings, 'warning')}")
    inline = len(request.text) <= INLINE_MAX_CHARS and len(parsed.blocks) <= INLINE_MAX_BLOCKS

    def result_json() -> JsonObject:
        return {
            "blocks": [block_text_fields(b) for b in parsed.blocks],
            "warnings": [warning_dict(w) for w in parsed.warnings],
            "shellSuggestions": list(parsed.shell_suggestions),
        }

    return await encoded(await off_loop(inline, result_json), inline)


async def run_edits(editor: Editor, documents: ResponseDocuments, argument: Any, *,
                    apply: bool) -> JsonObject | EncodedJson:
    """``llmEdits.preview`` / ``llmEdits.apply`` (of a response document's text when
    ``responseUri`` names one of ``documents``)."""
    command = "llmEdits.apply" if apply else "llmEdits.preview"
    request = edit_request(editor, argument)
    if response_document_target(request.options.target, editor.roots(), documents):
        raise CommandError(f"options.target {request.options.target} is a response document: "
                           "an answer is applied to a file, never to a response")
    reader = editor.reader(request.options.max_file_bytes)
    spans = block_spans_for(editor.features)  # which block made which change, for annotations
    live = documents.state(request.response_uri) if request.response_uri else None
    document = (ResponseDocumentRun(live, request, lens_block_of(argument))
                if live is not None else None)
    title = "LLM edits: " + ("apply" if apply else "preview")
    planned = await plan(editor, request, reader, title, spans, document=document)
    result, _ = await finish_run(editor, command, request, reader, planned, apply=apply,
                                 spans=spans, publish=document is None)
    message = empty_selection_message(request.options.blocks, len(result["blocks"]))
    if message is not None:
        result["message"] = message
    if document is not None:
        document.add_pending(result)
        if result.get("applied"):
            document.record_applied(planned)
    return await encoded(result, converts_inline(planned, reader))
