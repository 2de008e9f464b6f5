"""``llmEdits.applyFix``: one block of a recent run, planned again with the fix the user chose
(whitespace tolerance, the closest match, one of an ambiguous block's places)."""

from __future__ import annotations

from typing import Any

from ...results import JsonObject
from ..editor import Editor
from ..errors import CommandError
from ..off_loop import (
    converts_inline,
    encoded,
)
from ..protocol.change_annotations import block_spans_for
from ..protocol.diagnostics import CODE_FAILED
from ..protocol.pygls_hooks import EncodedJson
from ..run_store import Run
from .ambiguity_fixes import at_candidate
from .arguments import (
    parse_fix_request,
)
from .closest_fix import plan_at_closest
from .edit_runs import finish_run, plan


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


async def apply_fix(editor: Editor, argument: Any) -> JsonObject | EncodedJson:
    """``llmEdits.applyFix``: one block of a recent run, re-planned against current buffers."""
    try:
        fix = parse_fix_request(argument)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    run = editor.runs.get(fix.run_id)
    planning = _fix_planning(run, fix.index, fix.fix, fix.line)
    reader = editor.reader(run.request.options.max_file_bytes)
    spans = block_spans_for(editor.features)
    planned = await plan(editor, run.request, reader, "LLM edits: fix", spans, **planning)
    label = f"LLM edits: fix block {fix.index + 1} from {run.request.source_name}"
    result, diagnostics = await finish_run(
        editor, "llmEdits.applyFix", run.request, reader, planned, apply=True, run_id=run.run_id,
        label=label, spans=spans)
    # The fixed block's diagnostics are replaced; the rest of the run's stay.
    fixed = [b for b in planned.blocks if b.index == fix.index]
    run.plan.blocks = [fixed[0] if b.index == fix.index and fixed else b
                       for b in run.plan.blocks]
    editor.runs.add(run)  # its size is counted again (and it is the newest run now)
    # The user chose the tolerance: only a renewed failure is worth a diagnostic.
    failures = {uri: [d for d in items if d.code == CODE_FAILED]
                for uri, items in diagnostics.items()}
    editor.diagnostics.replace_block(run.run_id, fix.index, failures)
    return await encoded(result, converts_inline(planned, reader))
