"""The ``llmEdits.*`` commands and the requests the editor sends, one module per family:
:mod:`.edits` (parse, preview, apply), :mod:`.fixes` (applyFix), :mod:`.feedback`,
:mod:`.configuration` (settings, instructions, watch arguments), :mod:`.code_actions`;
:mod:`.edit_runs` is what every edit run does (read, parse, plan, send, publish, keep);
:mod:`.arguments` validates the commands' arguments."""
