"""``llm-edits``: the engine on files on disk, from a shell.

A thin adapter: it reads the response, asks the engine (:func:`lsp_server.plan_response`,
:func:`lsp_server.parse_response`) what every block does, prints that, and for ``apply``
writes the engine's per-file results to disk. It decides nothing about matching itself.

Commands (``RESPONSE`` is a file or ``-`` for stdin):

- ``check RESPONSE``: dry run; a table of every block; exit 1 if any block fails.
- ``apply RESPONSE``: the same, then writes the files (atomically per file, BOM and line
  endings kept; creates, renames and deletes as planned).
- ``parse RESPONSE``: the blocks found, without looking at any file.
- ``feedback RESPONSE``: the retry text for the model (failed blocks with the real lines).
- ``instructions [FORMAT]``: system-prompt text teaching a model the format(s).

Exit codes: 0 every block matched (or applied), 1 some block failed or was skipped (or a file
could not be written, or the response held only malformed blocks), 2 invalid usage (bad
option, unreadable response, missing root), 3 internal error.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import __version__
from .limits import (
    DEFAULT_MAX_BLOCK_LINES,
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_RESPONSE_BYTES,
)
from .model import (
    FORMATS,
    BlockResult,
    FileEdit,
    FileSnapshot,
    PlanResult,
    ResourceOp,
)
from .results import block_dict, warning_dict

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

_STATUS_STYLE = {
    "applied": "green",
    "validated": "green",
    "failed": "bold red",
    "skipped": "yellow",
}


class _Group(click.Group):
    """Turns an unexpected exception into a one-line error (exit 3) instead of a traceback;
    ``LLM_EDITS_DEBUG=1`` lets it through for bug reports."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except OSError as exc:
            if exc.errno == errno.EPIPE:  # `llm-edits ... | head`: click handles it
                raise
            return self._internal(exc)
        except Exception as exc:
            return self._internal(exc)

    @staticmethod
    def _internal(exc: Exception):
        if os.environ.get("LLM_EDITS_DEBUG"):
            raise exc
        err = click.ClickException(
            f"internal error: {type(exc).__name__}: {exc} "
            "(set LLM_EDITS_DEBUG=1 to see the traceback)"
        )
        err.exit_code = EXIT_INTERNAL
        raise err from exc


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Exit codes: 0 every block matched/applied, 1 a block failed or was skipped, "
           "2 usage error, 3 internal error.",
)
@click.version_option(__version__, prog_name="llm-edits")
def cli() -> None:
    """Check and apply the edit blocks of an LLM response to files on disk.

    RESPONSE is a file holding the model's answer, or - to read it from stdin. Nothing is
    written except by `apply`; shell commands the response suggests are only printed.
    """


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (``llm-edits``)."""
    cli.main(args=argv, prog_name="llm-edits")


# ------------------------------------------------------------------------------ options


def _parse_formats(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> set[str] | None:
    if value is None:
        return None
    names = {name.strip() for name in value.split(",") if name.strip()}
    unknown = sorted(names - set(FORMATS))
    if unknown or not names:
        raise click.BadParameter(
            f"unknown format(s) {', '.join(unknown) or '(none given)'}; "
            f"choose from {', '.join(FORMATS)}"
        )
    return names


_response_argument = click.argument(
    "response", type=click.Path(dir_okay=True, allow_dash=True), metavar="RESPONSE"
)
_formats_option = click.option(
    "--formats", callback=_parse_formats, metavar="LIST",
    help=f"Comma-separated formats to detect (default: all of {', '.join(FORMATS)}).",
)
_json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")


def _plan_options(func: Callable) -> Callable:
    options = [
        _response_argument,
        click.option(
            "--root", "roots", multiple=True, metavar="DIR",
            type=click.Path(exists=True, file_okay=False, readable=True, resolve_path=True,
                            path_type=Path),
            help="Workspace root; paths in the response are relative to it and may not leave "
                 "it. Repeat for several roots. Default: the current directory.",
        ),
        click.option(
            "--matching", type=click.Choice(["exact", "whitespace"]), default="exact",
            show_default=True,
            help="whitespace: also accept a unique match that ignores leading/trailing "
                 "whitespace (re-indenting the new lines).",
        ),
        click.option("--atomic", is_flag=True,
                     help="All or nothing: if any block fails, change nothing."),
        _formats_option,
        _json_option,
        *_limit_options,
    ]
    for option in reversed(options):
        func = option(func)
    return func


_limit_options = [
    click.option("--max-response-bytes", type=click.IntRange(min=1),
                 default=DEFAULT_MAX_RESPONSE_BYTES, show_default=True,
                 help="Refuse a larger response."),
    click.option("--max-blocks", type=click.IntRange(min=1), default=DEFAULT_MAX_BLOCKS,
                 show_default=True, help="Refuse a response with more blocks."),
    click.option("--max-file-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_FILE_BYTES,
                 show_default=True, help="Fail blocks whose file is larger."),
    click.option("--max-block-lines", type=click.IntRange(min=1), default=DEFAULT_MAX_BLOCK_LINES,
                 show_default=True, help="Fail blocks with more lines (old and new)."),
]


_diff_option = click.option(
    "--diff", "show_diff", is_flag=True, help="Show a coloured unified diff of the changes."
)
_feedback_file_option = click.option(
    "--feedback-file", type=click.Path(dir_okay=False, writable=True, path_type=Path),
    metavar="PATH", help="Also write the retry feedback for the model to PATH.",
)


# ----------------------------------------------------------------------------- commands


@cli.command(short_help="Dry run: validate every block against the files.")
@_plan_options
@_diff_option
@_feedback_file_option
def check(response: str, roots: tuple[Path, ...], matching: str, atomic: bool,
          formats: set[str] | None, as_json: bool, show_diff: bool,
          feedback_file: Path | None, **limits: int) -> None:
    """Validate every block against the files (dry run); exit 1 if any fails."""
    run = _plan(response, roots, matching=matching, atomic=atomic, formats=formats,
                dry_run=True, limits=limits)
    _report(run, as_json=as_json, show_diff=show_diff, applied=None)
    _write_feedback_file(feedback_file, run, atomic)
    sys.exit(_exit_code(run.result))


@cli.command(short_help="Write the blocks that match to the files.")
@_plan_options
@_diff_option
@_feedback_file_option
def apply(response: str, roots: tuple[Path, ...], matching: str, atomic: bool,
          formats: set[str] | None, as_json: bool, show_diff: bool,
          feedback_file: Path | None, **limits: int) -> None:
    """Apply the blocks that match and write the files; exit 1 if any block fails."""
    run = _plan(response, roots, matching=matching, atomic=atomic, formats=formats,
                dry_run=False, limits=limits)
    summaries = _summarise(run.result.changes)  # before writing: the diff needs the old text
    write_errors = _write_changes(run.result, atomic=atomic,
                                  max_file_bytes=limits["max_file_bytes"])
    written = bool(run.result.changes) and not (atomic and write_errors)
    _report(run, as_json=as_json, show_diff=show_diff, applied=written, summaries=summaries,
            write_errors=write_errors)
    _write_feedback_file(feedback_file, run, atomic)
    sys.exit(EXIT_FAILED if write_errors else _exit_code(run.result))


@cli.command(short_help="List the blocks found, reading no file.")
@_response_argument
@_formats_option
@_json_option
def parse(response: str, formats: set[str] | None, as_json: bool) -> None:
    """List the blocks found in RESPONSE without reading any file."""
    from .parsing import block_text_fields, parse_response

    parsed = parse_response(_read_response(response), formats)
    if as_json:
        _echo_json({
            "blocks": [block_text_fields(b) for b in parsed.blocks],
            "warnings": [warning_dict(w) for w in parsed.warnings],
            "shellSuggestions": list(parsed.shell_suggestions),
        })
        return
    console = _console()
    if parsed.blocks:
        table = Table(title=f"{len(parsed.blocks)} block(s) found", title_justify="left")
        for name in ("#", "format", "op", "file", "response line", "lines -/+"):
            table.add_column(name, overflow="fold")
        for b in parsed.blocks:
            target = b.file + (f" → {b.move_to}" if b.move_to else "")
            if b.hunks is not None:
                removed = sum(k == "-" for h in b.hunks for k, _ in h.lines)
                added = sum(k == "+" for h in b.hunks for k, _ in h.lines)
            else:
                removed, added = len(b.old), len(b.new)
            table.add_row(str(b.index + 1), b.format, b.op, Text(_shown(target)),
                          str(b.response_line + 1), f"-{removed} +{added}")
        console.print(table)
    else:
        console.print("No edit blocks found.")
    _print_warnings_and_suggestions(console, parsed.warnings, parsed.shell_suggestions)


@cli.command(short_help="Print retry feedback for the model.")
@_plan_options
def feedback(response: str, roots: tuple[Path, ...], matching: str, atomic: bool,
             formats: set[str] | None, as_json: bool, **limits: int) -> None:
    """Print the retry feedback for the model: failed blocks with the file's real lines.

    Runs as a dry run against the files as they are now. After `apply`, use
    `apply --feedback-file PATH` instead (the applied blocks no longer match).
    """
    run = _plan(response, roots, matching=matching, atomic=atomic, formats=formats,
                dry_run=True, limits=limits)
    text = _feedback_text(run, atomic)
    if as_json:
        _echo_json({"text": text})
    else:
        _echo_text(text)
    sys.exit(_exit_code(run.result))


@cli.command(short_help="Print system-prompt text teaching a format.")
@click.argument("format_name", metavar="[FORMAT]", required=False,
                type=click.Choice(list(FORMATS)))
@_json_option
def instructions(format_name: str | None, as_json: bool) -> None:
    """Print system-prompt text teaching a model FORMAT (all formats when omitted)."""
    from .instructions import FORMAT_NAMES, format_instructions

    text = format_instructions(format_name)
    if as_json:
        _echo_json({"text": text, "formats": list(FORMAT_NAMES)})
    else:
        click.echo(text, nl=False)


# ---------------------------------------------------------------------------- planning


@dataclass
class _Run:
    result: PlanResult
    roots: list[Path]
    dry_run: bool


def _read_response(response: str, max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> str:
    try:
        if response == "-":
            data = sys.stdin.buffer.read(max_bytes + 1)
        else:
            with open(response, "rb") as fh:
                data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise click.BadParameter(
            f"cannot read {response!r}: {exc.strerror or exc}", param_hint="RESPONSE"
        ) from None
    if len(data) > max_bytes:
        raise click.BadParameter(
            f"{response!r} is larger than {max_bytes} bytes (--max-response-bytes)",
            param_hint="RESPONSE",
        )
    # A response is text from a model: undecodable bytes become U+FFFD rather than an error.
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff")


def _plan(response: str, roots: tuple[Path, ...], *, matching: str, atomic: bool,
          formats: set[str] | None, dry_run: bool, limits: dict[str, int]) -> _Run:
    from .parsing import parse_response
    from .planning import plan_edits
    from .workspace import read_disk_file

    text = _read_response(response, limits["max_response_bytes"])
    root_list = list(roots) or [_cwd_root()]
    parsed = parse_response(text, formats)
    if len(parsed.blocks) > limits["max_blocks"]:
        raise click.BadParameter(
            f"the response has {len(parsed.blocks)} blocks, more than {limits['max_blocks']} "
            "(--max-blocks)", param_hint="RESPONSE")
    max_file_bytes = limits["max_file_bytes"]
    result = plan_edits(parsed, lambda path: read_disk_file(path, max_file_bytes), root_list,
                        matching=matching, atomic=atomic, dry_run=dry_run,
                        max_block_lines=limits["max_block_lines"])
    return _Run(result, root_list, dry_run)


def _cwd_root() -> Path:
    try:
        root = Path.cwd().resolve()
    except OSError as exc:
        raise click.UsageError(f"cannot use the current directory as root: {exc}") from None
    if not os.access(root, os.R_OK | os.X_OK):
        raise click.UsageError(f"the current directory {root} is not readable; pass --root")
    return root


def _exit_code(result: PlanResult) -> int:
    if not result.ok:
        return EXIT_FAILED
    if not result.blocks and result.warnings:
        return EXIT_FAILED  # only malformed blocks: nothing usable
    return EXIT_OK


def _feedback_text(run: _Run, atomic: bool) -> str:
    from .feedback import build_feedback

    return build_feedback(run.result, _disk_lines, atomic=atomic)


def _disk_lines(path: Path) -> list[str] | None:
    from .model import text_to_lines
    from .workspace import read_disk_file

    snapshot = read_disk_file(path)
    if snapshot.text is None or snapshot.binary or snapshot.error:
        return None
    return text_to_lines(snapshot.text.removeprefix("\ufeff"))


def _write_feedback_file(path: Path | None, run: _Run, atomic: bool) -> None:
    if path is None:
        return
    try:
        path.write_text(_feedback_text(run, atomic), encoding="utf-8")
    except OSError as exc:
        click.echo(f"llm-edits: cannot write feedback to {path}: {exc.strerror or exc}",
                   err=True)


# ------------------------------------------------------------------------------ writing


def _write_changes(result: PlanResult, *, atomic: bool,
                   max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> list[str]:
    """Carry out ``result.changes`` in order; returns error messages (empty: all written).

    A failed write marks the blocks of that file failed and the file's later changes are
    left out, as the engine skips later blocks of a failed file. With ``atomic`` everything
    already written is put back and the other blocks go back to ``validated``.
    """
    undo: list[Callable[[], None]] = []
    errors: list[str] = []
    failed_paths: set[Path] = set()
    for change in result.changes:
        paths = _change_paths(change)
        if paths & failed_paths:
            continue
        try:
            if isinstance(change, ResourceOp):
                _do_resource_op(change, undo)
            else:
                _do_file_edit(change, undo, max_file_bytes)
        except OSError as exc:
            errors.append(f"{change.path}: {exc.strerror or exc}")
            failed_paths |= paths
            if atomic:
                for step in reversed(undo):
                    with contextlib.suppress(OSError):
                        step()
            _mark_write_failure(result, paths, errors[-1], atomic)
            if atomic:
                break
    return errors


def _change_paths(change: FileEdit | ResourceOp) -> set[Path]:
    paths = {change.path}
    if isinstance(change, ResourceOp) and change.new_path is not None:
        paths.add(change.new_path)
    return paths


def _mark_write_failure(result: PlanResult, paths: set[Path], message: str,
                        atomic: bool) -> None:
    for block in result.blocks:
        if block.status != "applied":
            continue
        if block.path in paths:
            block.status = "failed"
            block.reason = f"Could not write the file: {message}"
        elif atomic:
            block.status = "validated"


def _do_resource_op(op: ResourceOp, undo: list[Callable[[], None]]) -> None:
    if op.kind == "create":
        if op.path.is_file() and op.path.stat().st_size == 0:
            return  # an existing empty file may be filled (FORMATS.md)
        _make_parents(op.path, undo)
        with open(op.path, "xb"):  # "x": never clobber, even if the file appeared meanwhile
            pass
        undo.append(lambda p=op.path: p.unlink())
    elif op.kind == "rename":
        assert op.new_path is not None
        if op.new_path.exists():
            raise FileExistsError(errno.EEXIST, f"{op.new_path} already exists")
        _make_parents(op.new_path, undo)
        os.rename(op.path, op.new_path)
        undo.append(lambda a=op.path, b=op.new_path: os.rename(b, a))
    elif op.kind == "delete":
        info = os.lstat(op.path)
        if stat.S_ISLNK(info.st_mode):  # remove the link itself; undo re-creates the link
            link = os.readlink(op.path)
            op.path.unlink()
            undo.append(lambda p=op.path, t=link: os.symlink(t, p))
            return
        if not stat.S_ISREG(info.st_mode):  # reading a FIFO for the undo copy would block
            raise OSError(errno.EINVAL, "not a regular file; not deleted")
        saved = op.path.read_bytes()
        mode = info.st_mode
        op.path.unlink()

        def restore(p: Path = op.path, data: bytes = saved, m: int = mode) -> None:
            p.write_bytes(data)
            os.chmod(p, stat.S_IMODE(m))

        undo.append(restore)


def _make_parents(path: Path, undo: list[Callable[[], None]]) -> None:
    missing = [p for p in reversed(path.parents) if not p.exists()]
    for directory in missing:
        directory.mkdir()
        undo.append(lambda d=directory: d.rmdir())


def _do_file_edit(edit: FileEdit, undo: list[Callable[[], None]],
                  max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
    from .workspace import read_disk_file

    current = read_disk_file(edit.path, max_file_bytes)
    expected = ("\ufeff" if edit.has_bom else "") + edit.original
    if (current.text or "") != expected:
        # The file changed between planning and writing: its edits are stale.
        raise OSError(errno.ESTALE, "the file changed on disk since it was read; run again")
    previous = edit.path.read_bytes() if edit.path.exists() else None
    data = ("\ufeff" if edit.has_bom else "") + edit.new_text
    _atomic_write(edit.path, data.encode("utf-8", errors="surrogateescape"))
    if previous is not None:
        undo.append(lambda p=edit.path, d=previous: _atomic_write(p, d))


def _atomic_write(path: Path, data: bytes) -> None:
    """Write via a temporary file in the same directory and ``os.replace``: a reader sees
    the old or the new file, never half of one. Keeps the file's permission bits.

    A symlink is written through (the planner confined its target to the workspace):
    replacing the link itself would turn it into a copy and leave its target unedited."""
    path = Path(os.path.realpath(path))
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# ---------------------------------------------------------------------------- reporting


@dataclass
class _FileSummary:
    kind: str  # edit | create | rename | delete
    path: Path
    new_path: Path | None = None
    old_text: str | None = None  # None: unknown / not applicable
    new_text: str | None = None


def _summarise(changes: list[FileEdit | ResourceOp]) -> list[_FileSummary]:
    """One summary per affected file, folding a create + fill or an update + rename."""
    by_path: dict[Path, _FileSummary] = {}
    order: list[_FileSummary] = []
    for change in changes:
        if isinstance(change, FileEdit):
            summary = by_path.get(change.path)
            if summary is None:
                summary = _FileSummary("edit", change.path, old_text=change.original)
                by_path[change.path] = summary
                order.append(summary)
            elif summary.old_text is None:
                summary.old_text = change.original
            summary.new_text = change.new_text
        elif change.kind == "create":
            summary = _FileSummary("create", change.path, old_text="", new_text="")
            by_path[change.path] = summary
            order.append(summary)
        elif change.kind == "rename":
            assert change.new_path is not None
            summary = by_path.pop(change.path, None)
            if summary is None:
                summary = _FileSummary("rename", change.path)
                order.append(summary)
            if summary.kind == "edit":
                summary.kind = "rename"
            summary.new_path = change.new_path
            by_path[change.new_path] = summary
        else:  # delete
            summary = by_path.pop(change.path, None)
            if summary is None:
                summary = _FileSummary("delete", change.path, old_text=_read_for_diff(change))
                order.append(summary)
            summary.kind = "delete"
            summary.new_text = None
    return order


def _read_for_diff(op: ResourceOp) -> str | None:
    from .workspace import read_disk_file

    snapshot: FileSnapshot = read_disk_file(op.path)
    if snapshot.text is None or snapshot.binary or snapshot.error:
        return None
    return snapshot.text.removeprefix("\ufeff")


def _display_path(path: Path, roots: list[Path]) -> str:
    for root in roots:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            continue
    return str(path)


def _diff_lines(summary: _FileSummary, roots: list[Path]) -> list[str]:
    old_name = _display_path(summary.path, roots)
    new_name = _display_path(summary.new_path, roots) if summary.new_path else old_name
    from_file = "/dev/null" if summary.kind == "create" else f"a/{old_name}"
    to_file = "/dev/null" if summary.kind == "delete" else f"b/{new_name}"
    old = (summary.old_text or "").splitlines()
    new = (summary.new_text or "").splitlines() if summary.kind != "delete" else []
    if summary.kind == "rename" and summary.new_text is None:
        new = old
    lines = list(difflib.unified_diff(old, new, from_file, to_file, lineterm=""))
    if summary.kind == "rename":
        head = [f"rename from {old_name}", f"rename to {new_name}"]
        return head + lines
    if not lines and summary.kind in ("create", "delete"):
        what = "new empty file" if summary.kind == "create" else "deleted file"
        return [f"--- {from_file}", f"+++ {to_file}", f"({what})"]
    return lines


def _line_counts(summary: _FileSummary) -> tuple[int, int]:
    old = (summary.old_text or "").splitlines()
    new = (summary.new_text or "").splitlines() if summary.kind != "delete" else []
    if summary.kind == "rename" and summary.new_text is None:
        return 0, 0
    added = removed = 0
    for line in difflib.unified_diff(old, new, lineterm="", n=0):
        if line.startswith(("+++", "---")):
            continue
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return added, removed


def _file_json(summary: _FileSummary, roots: list[Path], with_diff: bool) -> dict:
    added, removed = _line_counts(summary)
    out: dict = {
        "path": _display_path(summary.path, roots),
        "uri": summary.path.as_uri(),
        "kind": summary.kind,
        "linesAdded": added,
        "linesRemoved": removed,
    }
    if summary.new_path is not None:
        out["newPath"] = _display_path(summary.new_path, roots)
        out["newUri"] = summary.new_path.as_uri()
    if with_diff:
        out["diff"] = "".join(line + "\n" for line in _diff_lines(summary, roots))
    return out


def _echo_json(data: dict) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


# Text from the response or the files (paths, reasons, file lines, the diff) is shown with
# control characters escaped: printed raw, a response's escape sequences would drive the
# terminal (colours, the window title, OSC 52 clipboard writes, hyperlinks).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _shown(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _echo_text(text: str) -> None:
    """Plain text (feedback, instructions) for a terminal, or verbatim into a pipe/file."""
    click.echo(_shown(text) if sys.stdout.isatty() else text, nl=False)


def _console() -> Console:
    console = Console(highlight=False, soft_wrap=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = 120  # pipes and logs: avoid wrapping at rich's 80-column default
    return console


def _report(run: _Run, *, as_json: bool, show_diff: bool, applied: bool | None,
            summaries: list[_FileSummary] | None = None,
            write_errors: list[str] | None = None) -> None:
    result = run.result
    if summaries is None:
        summaries = _summarise(result.changes)
    if as_json:
        data: dict = {
            "blocks": [block_dict(b, Path.as_uri) for b in result.blocks],
            "shellSuggestions": list(result.shell_suggestions),
            "warnings": [warning_dict(w) for w in result.warnings],
            "files": [_file_json(s, run.roots, show_diff) for s in summaries],
            "ok": _exit_code(result) == EXIT_OK and not write_errors,
            "dryRun": run.dry_run,
        }
        if applied is not None:
            data["applied"] = applied
        if write_errors:
            data["writeErrors"] = list(write_errors)
        _echo_json(data)
        return

    console = _console()
    if result.blocks:
        console.print(_blocks_table(result.blocks))
    else:
        console.print("No edit blocks found.")
    _print_failure_details(console, result.blocks)
    _print_warnings_and_suggestions(console, result.warnings, result.shell_suggestions)
    if show_diff and summaries:
        console.print()
        for summary in summaries:
            _print_diff(console, _diff_lines(summary, run.roots))
    if write_errors:
        console.print()
        for message in write_errors:
            console.print(Text(f"Could not write {message}", style="bold red"))
    console.print()
    console.print(_summary_line(result, summaries, run, applied), soft_wrap=True)
    fixes = _fix_suggestions(result.blocks)
    if fixes:
        console.print(Text(fixes, style="cyan"), soft_wrap=True)
    if any(b.status in ("failed", "skipped") for b in result.blocks):
        command = "apply --feedback-file PATH" if not run.dry_run else "feedback RESPONSE"
        console.print(Text(f"For the model: `llm-edits {command}` writes retry feedback "
                           "(reasons, the real lines, what not to re-send).", style="dim"),
                      soft_wrap=True)


def _blocks_table(blocks: list[BlockResult]) -> Table:
    table = Table(show_lines=False, header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("status")
    table.add_column("file", overflow="fold")
    table.add_column("format")
    table.add_column("line", justify="right")
    table.add_column("match")
    table.add_column("reason", overflow="fold", ratio=1)
    for b in blocks:
        match = b.match or ""
        if b.offset:
            match += f" ({b.offset:+d} lines)"
        reason = Text(_shown(b.reason or ""))
        if b.hint and b.status != "failed":  # a failure's hint is in the details below
            if b.reason:
                reason.append("\n")
            reason.append(_shown(b.hint), style="cyan")
        table.add_row(
            str(b.index + 1),
            Text(b.status, style=_STATUS_STYLE.get(b.status, "")),
            Text(_shown(b.file)),
            b.format,
            str(b.line + 1) if b.line is not None else "",
            match,
            reason,
        )
    return table


def _print_failure_details(console: Console, blocks: list[BlockResult]) -> None:
    """Under the table, each failure's hint and the real file lines around its estimated
    line (the engine's ``context``), the estimated line marked."""
    for b in blocks:
        if b.status != "failed" or not (b.hint or b.context):
            continue
        console.print()
        head = Text(f"Block {b.index + 1} failed: ", style="bold red")
        head.append(f"{_shown(b.file)} ({b.format}, response line {b.response_line + 1})")
        console.print(head)
        if b.reason:
            console.print(Text(f"  {_shown(b.reason)}"), soft_wrap=True)
        if b.hint:
            console.print(Text(f"  {_shown(b.hint)}", style="cyan"), soft_wrap=True)
        if b.context:
            width = len(str(max(n for n, _ in b.context) + 1))
            for n, text in b.context:
                marked = n == b.line
                line = Text(f"  {'>' if marked else ' '} {n + 1:>{width}} | {_shown(text)}",
                            style="bold" if marked else "dim")
                console.print(line, soft_wrap=True)


def _print_warnings_and_suggestions(console: Console, warnings, suggestions) -> None:
    if warnings:
        console.print()
        console.print(Text("Warnings (not blocks):", style="bold yellow"))
        for w in warnings:
            console.print(Text(f"  response line {w.response_line + 1}: {_shown(w.message)}"))
    if suggestions:
        console.print()
        console.print(Text("Suggested shell commands (not run; review and run them yourself):",
                           style="bold"))
        for command in suggestions:
            console.print(Text(f"  $ {_shown(command)}"))


def _print_diff(console: Console, lines: list[str]) -> None:
    for line in lines:
        if line.startswith(("+++", "---", "rename ")):
            style = "bold"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        else:
            style = ""
        console.print(Text(_shown(line), style=style), soft_wrap=True)


def _summary_line(result: PlanResult, summaries: list[_FileSummary], run: _Run,
                  applied: bool | None) -> Text:
    counts: dict[str, int] = {}
    for b in result.blocks:
        counts[b.status] = counts.get(b.status, 0) + 1
    text = Text(", ".join(f"{n} {status}" for status, n in counts.items()) or "0 blocks",
                style="bold")
    files = [
        _display_path(s.path, run.roots)
        + (f" → {_display_path(s.new_path, run.roots)}" if s.new_path else "")
        + ("" if s.kind == "edit" else f" ({s.kind})")
        for s in summaries
    ]
    if run.dry_run:
        text.append(" — dry run, nothing written")
        if files:
            text.append("\nWould change: " + ", ".join(files), style="")
    elif applied:
        text.append("\nWritten: " + ", ".join(files), style="")
    else:
        text.append(" — nothing written")
    return text


def _fix_suggestions(blocks: list[BlockResult]) -> str:
    tolerant = [b.index + 1 for b in blocks if b.fixes.get("matching") == "whitespace"]
    if not tolerant:
        return ""
    numbers = ", ".join(str(n) for n in tolerant)
    return (f"Block(s) {numbers} would apply with --matching whitespace "
            "(they differ from the file only in indentation or trailing spaces).")


if __name__ == "__main__":  # pragma: no cover
    main()
