"""``llmEdits.feedback`` and ``llmEdits.copyFeedback``: retry text for the model."""

from __future__ import annotations

from typing import Any

from ...feedback import build_feedback
from ...results import JsonObject
from ..editor import Editor
from ..off_loop import (
    converts_inline,
    off_loop,
)
from .arguments import (
    parse_feedback_request,
)
from .edit_runs import edit_request, plan


async def feedback(editor: Editor, argument: Any) -> JsonObject:
    """``llmEdits.feedback``: retry text for the model, from a fresh plan of the response."""
    request = edit_request(editor, argument)
    reader = editor.reader(request.options.max_file_bytes)
    planned = await plan(editor, request, reader, "LLM edits: feedback")
    inline = converts_inline(planned, reader)
    text = await off_loop(inline, build_feedback, planned, reader.lines,
                          index=None, atomic=request.options.atomic)
    return {"text": text}


async def copy_feedback(editor: Editor, argument: Any) -> JsonObject:
    """``llmEdits.copyFeedback``: retry text for a kept run (one block, or all)."""
    run_id, index = parse_feedback_request(argument)
    run = editor.runs.get(run_id)
    reader = editor.reader(run.request.options.max_file_bytes)
    # In a worker thread: the feedback reads the failed blocks' files, of any size.
    text = await off_loop(False, build_feedback, run.plan, reader.lines,
                          index=index, atomic=run.request.options.atomic)
    return {"text": text}
