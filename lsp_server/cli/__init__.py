"""``llm-edits``: the engine on files on disk, from a shell.

A thin adapter: it reads the response, asks the engine (:func:`lsp_server.plan_edits`,
:func:`lsp_server.parse_response`) what every block does, prints that, and for ``apply``
writes the engine's per-file results to disk. It decides nothing about matching itself.

Commands (``RESPONSE`` is a file or ``-`` for stdin):

- ``check RESPONSE``: dry run; a table of every block; exit 1 if any block fails.
- ``apply RESPONSE``: the same, then writes the files (all or nothing on an interruption,
  BOM, line endings, mode and owner kept; creates, renames and deletes as planned).
- ``check --stream`` / ``apply --stream``: the response read as it arrives, each block
  reported (and written) the moment it is complete.
- ``parse RESPONSE``: the blocks found, without looking at any file.
- ``feedback RESPONSE``: the retry text for the model (failed blocks with the real lines).
- ``instructions [FORMAT]``: system-prompt text teaching a model the format(s).

Exit codes: 0 every block matched (or applied), 1 some block failed or was skipped (or a file
could not be written, or the response held only malformed blocks), 2 invalid usage (bad
option, unreadable response, missing root), 3 internal error.

Modules:

- :mod:`.commands`: the click commands and their options;
- :mod:`.response`: reading the response (a file or stdin, within its size limit);
- :mod:`.run`: the engine's plan against the files, and the retry feedback;
- :mod:`.exit_codes`: the exit codes and the one a plan earns;
- :mod:`.changes`: what each file undergoes, its diff and line counts (from the planned
  edits);
- :mod:`.json_report` / :mod:`.text_report`: ``--json``, and the Rich report for people
  (its tables drawn by :mod:`.text_table`);
- :mod:`.output`: plain JSON, and text with terminal control characters escaped;
- :mod:`.stream_input` / :mod:`.stream` / :mod:`.stream_report`: ``--stream``: reading as
  the response arrives, when a block is complete and running it, the live table, the lines
  and the JSON lines;
- :mod:`.writes`: ``apply``'s disk writes (checked, staged, then committed; undone together
  on an interruption, or on any failure with ``--atomic``).

Start-up matters for a shell command run once per response: :mod:`.commands` imports only
click; the engine and Rich are imported by the command that needs them.
"""

from .commands import cli, main

__all__ = ["cli", "main"]
