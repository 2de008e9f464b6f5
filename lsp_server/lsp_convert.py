"""Plain conversions between the engine's model and LSP (lsprotocol) objects.

Nothing here talks to a client: the server glue (``server.py``) calls these functions with
what it knows (the negotiated position encoding, the client's capabilities, which files are
open buffers) and sends the results. Everything is unit-testable without a running server.

- Position encodings: LSP columns count UTF-16 code units unless the client negotiated
  UTF-8 or UTF-32; the model counts Python code points. Lines end at ``\\r\\n``, ``\\r`` or
  ``\\n`` only (LSP's definition, unlike :meth:`str.splitlines`, which also breaks at form
  feeds and U+2028).
- :func:`apply_content_change`: one ``didChange`` event applied to a buffer's text.
- :func:`workspace_edit`: a :class:`~lsp_server.model.PlanResult`'s changes as one
  ``WorkspaceEdit``, with ``documentChanges`` and resource operations when the client can take
  them, else the ``changes`` map plus warnings naming what could not be expressed.
- :func:`plan_diagnostics`: failures, tolerant matches and malformed blocks as diagnostics.
- :func:`result_dict` / :func:`block_dict` (from :mod:`lsp_server.results`): the command
  result, re-exported for the server.
- :class:`EditOptions`: command options merged over ``initializationOptions`` defaults.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter

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
    ParseWarning,
    PlanResult,
    ResourceOp,
    TextEdit,
)
from .results import UriFor, block_dict, changed_files, result_dict, warning_dict

SOURCE = "llm-edits"
CODE_FAILED = "failed"
CODE_WHITESPACE = "whitespace-match"
CODE_MALFORMED = "malformed-block"
BOM = "\ufeff"
# Match kinds that found the text only by tolerating differences (FORMATS.md "match").
TOLERANT_MATCHES = frozenset({"whitespace", "trailing-whitespace", "unicode"})
OK_STATUSES = frozenset({"applied", "validated"})

_LSP_CONVERTER = get_converter()  # lsprotocol's own: JSON to and from its types

# ------------------------------------------------------------------ position encodings

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def code_units(text: str, encoding: str) -> int:
    """Length of ``text`` in the code units of a position encoding (utf-8/16/32)."""
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def column_from_units(line: str, units: int, encoding: str) -> int:
    """Code-point column in ``line`` of a client column; clamped to the line's end.

    A column that falls inside a character's code units (which the spec leaves undefined)
    moves past that character.
    """
    if encoding == types.PositionEncodingKind.Utf32:
        return max(0, min(units, len(line)))
    count = 0
    for index, char in enumerate(line):
        if count >= units:
            return index
        count += code_units(char, encoding)
    return len(line)


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` as LSP counts them, without terminators.

    A text ending with a line break has a final empty line (the position after the break).
    """
    if "\r" not in text:
        return text.split("\n")  # several times faster than the regex, same lines
    return _LINE_BREAK.split(text)


def line_count(text: str) -> int:
    """How many LSP lines ``text`` has (``len(split_lines(text))``, without splitting)."""
    breaks = text.count("\n")
    if "\r" in text:
        breaks += text.count("\r") - text.count("\r\n")
    return breaks + 1


class TextLines:
    """The LSP lines of a text by number, splitting the text only when it must.

    Converting an edit position needs the text of its line only for a column past 0, and
    the planner's edits are whole-line except at the end of a file without a final newline
    (the last line, found from the end). So most files are never split; counting the lines
    is a few C scans (``count``: the :func:`line_count` of ``text`` when the caller knows it,
    e.g. kept with an open buffer). Indexing takes ``0 <= index < len(self)``.
    """

    __slots__ = ("_count", "_lines", "text")

    def __init__(self, text: str, count: int | None = None) -> None:
        self.text = text
        self._lines: list[str] | None = None
        self._count = count

    def __len__(self) -> int:
        if self._count is None:
            self._count = line_count(self.text)
        return self._count

    def __getitem__(self, index: int) -> str:
        if self._lines is None:
            if index == len(self) - 1:
                text = self.text
                return text[max(text.rfind("\n"), text.rfind("\r")) + 1:]
            self._lines = split_lines(self.text)
        return self._lines[index]


def line_starts(text: str) -> list[int]:
    """String offset where each LSP line of ``text`` starts."""
    return [0, *(m.end() for m in _LINE_BREAK.finditer(text))]


def offset_at(text: str, position: types.Position, encoding: str) -> int:
    """String offset of a client position; lines and columns past the end are clamped."""
    starts = line_starts(text)
    if position.line >= len(starts):
        return len(text)
    start = starts[position.line]
    end = len(text)
    if position.line + 1 < len(starts):
        end = starts[position.line + 1]
        end -= 2 if text.startswith("\r\n", end - 2) else 1
    return start + column_from_units(text[start:end], position.character, encoding)


def client_position_json(
    lines: Sequence[str], line: int, column: int, encoding: str, line0_shift: int = 0
) -> dict[str, int]:
    """A model position (code-point column) in client units, as JSON (``{line, character}``).

    ``lines`` are the text's LSP lines (a list or :class:`TextLines`). A line past the end
    becomes the end of the text. ``line0_shift`` (client units) is added to columns on line 0:
    a buffer whose text starts with a BOM character that the model's text does not contain.
    """
    if line >= len(lines):
        line = max(0, len(lines) - 1)
        column = len(lines[line]) if lines else 0
    character = 0
    if column > 0 and lines:  # column 0 needs no look at the line
        prefix = lines[line][:column]
        # ASCII is one unit per character in every encoding: no encoding to count.
        character = len(prefix) if prefix.isascii() else code_units(prefix, encoding)
    if line == 0:
        character += line0_shift
    return {"line": line, "character": character}


def client_position(
    lines: Sequence[str], line: int, column: int, encoding: str, line0_shift: int = 0
) -> types.Position:
    """:func:`client_position_json` as a :class:`lsprotocol.types.Position`."""
    return types.Position(**client_position_json(lines, line, column, encoding, line0_shift))


def apply_content_change(
    text: str, change: types.TextDocumentContentChangeEvent, encoding: str
) -> str:
    """``text`` after one ``didChange`` content change (incremental or whole-document)."""
    change_range = getattr(change, "range", None)
    if change_range is None:
        return change.text
    start = offset_at(text, change_range.start, encoding)
    end = max(start, offset_at(text, change_range.end, encoding))
    return text[:start] + change.text + text[end:]


# ------------------------------------------------------------------ client features


def encoding_name(encoding: Any) -> str:
    """``"utf-8"``/``"utf-16"``/``"utf-32"`` from pygls's negotiated value (enum or string)."""
    name = str(getattr(encoding, "value", encoding) or "utf-16")
    return name if name in ("utf-8", "utf-32") else "utf-16"


@dataclass(frozen=True)
class ClientFeatures:
    """What the server may send this client (from its capabilities at ``initialize``)."""

    encoding: str = types.PositionEncodingKind.Utf16
    document_changes: bool = False
    resource_operations: frozenset[str] = frozenset()
    related_information: bool = False
    work_done_progress: bool = False
    apply_edit: bool = True


def client_features(capabilities: types.ClientCapabilities | None, encoding: str) -> ClientFeatures:
    """Read the capabilities that change what the server sends."""
    caps = capabilities or types.ClientCapabilities()
    workspace_edit_caps = caps.workspace.workspace_edit if caps.workspace else None
    publish = caps.text_document.publish_diagnostics if caps.text_document else None
    return ClientFeatures(
        encoding=encoding_name(encoding),
        document_changes=bool(workspace_edit_caps and workspace_edit_caps.document_changes),
        resource_operations=frozenset(
            str(getattr(op, "value", op))
            for op in ((workspace_edit_caps and workspace_edit_caps.resource_operations) or [])
        ),
        related_information=bool(publish and publish.related_information),
        work_done_progress=bool(caps.window and caps.window.work_done_progress),
        apply_edit=bool(caps.workspace and caps.workspace.apply_edit),
    )


# ------------------------------------------------------------------ options


@dataclass
class EditOptions:
    """Options of the edit commands, merged over the ``initializationOptions`` defaults."""

    matching: str = "exact"
    atomic: bool = False
    formats: set[str] | None = None  # None: every format
    include_text: bool = False
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_blocks: int = DEFAULT_MAX_BLOCKS
    max_block_lines: int = DEFAULT_MAX_BLOCK_LINES

    def as_dict(self) -> dict[str, Any]:
        """The options as a command would send them (for the run store and feedback)."""
        return {
            "matching": self.matching,
            "atomic": self.atomic,
            "formats": sorted(self.formats) if self.formats is not None else None,
            "includeText": self.include_text,
        }


def parse_options(options: Any, defaults: Any = None) -> EditOptions:
    """Validate ``options`` (a command's) over ``defaults`` (``initializationOptions``).

    Raises ``ValueError`` with a message for the user on a wrong type or unknown value.
    """
    merged: dict[str, Any] = {}
    for name, source in (("initializationOptions", defaults), ("options", options)):
        if source is None:
            continue
        if not isinstance(source, dict):
            raise ValueError(f"{name} must be an object, got {type(source).__name__}")
        merged.update({k: v for k, v in source.items() if v is not None})
    result = EditOptions()
    matching = merged.get("matching", "exact")
    if matching not in ("exact", "whitespace"):
        raise ValueError(f"options.matching must be 'exact' or 'whitespace', got {matching!r}")
    result.matching = matching
    for key, attr in (("atomic", "atomic"), ("includeText", "include_text")):
        value = merged.get(key, False)
        if not isinstance(value, bool):
            raise ValueError(f"options.{key} must be true or false, got {value!r}")
        setattr(result, attr, value)
    formats = merged.get("formats")
    if formats is not None:
        if not isinstance(formats, list) or not all(isinstance(f, str) for f in formats):
            raise ValueError("options.formats must be a list of format names")
        unknown = sorted(set(formats) - set(FORMATS))
        if unknown:
            raise ValueError(
                f"unknown format(s) {', '.join(unknown)}; known formats: {', '.join(FORMATS)}"
            )
        # An empty list (a client forwarding an unset setting) means every format.
        result.formats = set(formats) or None
    for key, attr in (("maxResponseBytes", "max_response_bytes"),
                      ("maxFileBytes", "max_file_bytes"), ("maxBlocks", "max_blocks"),
                      ("maxBlockLines", "max_block_lines")):
        limit = merged.get(key, getattr(result, attr))
        if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
            raise ValueError(f"{key} must be a positive integer, got {limit!r}")
        setattr(result, attr, limit)
    return result


def check_response_size(text: str, limit: int) -> None:
    """Refuse a response larger than ``limit`` UTF-8 bytes with a message saying so."""
    # Cheap bound first: a code point is at most 4 UTF-8 bytes.
    if len(text) * 4 <= limit:
        return
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise ValueError(
            f"the response is {size} bytes, more than maxResponseBytes ({limit}); "
            "split it or raise maxResponseBytes in initializationOptions"
        )


# ------------------------------------------------------------------ workspace edit


JsonObject = dict[str, Any]
# The edit of a run's lines: given a changed file's path and original text, its TextLines
# (the server passes ones whose line count it keeps with the open buffer).
LinesFor = Callable[[Path, str], TextLines]


def _range_json(lines: Sequence[str], edit: TextEdit, encoding: str, shift: int) -> JsonObject:
    return {"start": client_position_json(lines, edit.start_line, edit.start_col, encoding, shift),
            "end": client_position_json(lines, edit.end_line, edit.end_col, encoding, shift)}


def _text_edits_json(
    file_edit: FileEdit, lines: TextLines, encoding: str, line0_shift: int
) -> list[JsonObject]:
    return [{"range": _range_json(lines, e, encoding, line0_shift), "newText": e.new_text}
            for e in file_edit.edits]


def _whole_text_edit_json(original: str, new_text: str, encoding: str, shift: int) -> JsonObject:
    """One edit replacing all of ``original`` (the model's text) by ``new_text``."""
    lines = split_lines(original)
    last = len(lines) - 1
    return {"range": {"start": client_position_json(lines, 0, 0, encoding, shift),
                      "end": client_position_json(lines, last, len(lines[last]), encoding, shift)},
            "newText": new_text}


def _block_line_for(plan: PlanResult, path: Path) -> int:
    """The response line of the last successful block that targets ``path`` (for warnings)."""
    lines = [b.response_line for b in plan.blocks if b.path == path and b.status in OK_STATUSES]
    return lines[-1] if lines else 0


def workspace_edit_json(
    plan: PlanResult,
    features: ClientFeatures,
    uri_for: UriFor,
    bom_buffers: Iterable[Path] = (),
    root: Path | None = None,
    lines_for: LinesFor | None = None,
) -> tuple[JsonObject | None, list[ParseWarning]]:
    """The plan's changes as one WorkspaceEdit for this client (its JSON), and what it could
    not express.

    ``bom_buffers``: open buffers whose text starts with U+FEFF (the model's columns exclude
    it, the client's include it, so line-0 columns shift and no edit covers it). ``root``
    makes paths in warnings relative. ``lines_for`` gives a changed file's lines (default: a
    new :class:`TextLines` of its original text). Returns ``(None, [])`` when nothing changes.

    The JSON is written out directly, as the protocol's converter writes a
    :class:`lsprotocol.types.WorkspaceEdit` (:func:`workspace_edit` gives that object):
    building thousands of attrs objects and walking them again costs more than planning
    a small run.
    """
    encoding = features.encoding
    bom_paths = set(bom_buffers)
    shift_units = code_units(BOM, encoding)

    def shift_for(path: Path) -> int:
        return shift_units if path in bom_paths else 0

    def shown(path: Path) -> str:
        if root is not None:
            try:
                return path.relative_to(root).as_posix()
            except ValueError:
                pass
        return str(path)

    warnings: list[ParseWarning] = []
    supported = features.resource_operations if features.document_changes else frozenset()
    document_changes: list[JsonObject] = []
    # The `changes` fallback: one entry per URI, each computed against the client's text.
    changes: dict[str, list[JsonObject]] = {}
    first_original: dict[str, tuple[str, int]] = {}
    created_unsent: set[Path] = set()

    for change in plan.changes:
        if isinstance(change, ResourceOp):
            if change.kind in supported:
                document_changes.append(_resource_operation_json(change, uri_for))
                continue
            line = _block_line_for(plan, change.path)
            if change.kind == "create":
                created_unsent.add(change.path)
                warnings.append(ParseWarning(line, (
                    f"this editor cannot create files through LSP: {shown(change.path)} is "
                    "sent as text for a new, unsaved buffer; save it to create the file")))
            elif change.kind == "rename":
                target = shown(change.new_path) if change.new_path else "?"
                warnings.append(ParseWarning(line, (
                    f"this editor cannot rename files through LSP: {shown(change.path)} was not "
                    f"moved to {target}; run `git mv {shown(change.path)} {target}`")))
            else:
                warnings.append(ParseWarning(line, (
                    f"this editor cannot delete files through LSP: {shown(change.path)} was not "
                    f"deleted; run `git rm {shown(change.path)}`")))
            continue
        uri = uri_for(change.path)
        shift = shift_for(change.path)
        lines = (lines_for(change.path, change.original) if lines_for is not None
                 else TextLines(change.original))
        edits = _text_edits_json(change, lines, encoding, shift)
        if features.document_changes:
            document_changes.append({"textDocument": {"uri": uri, "version": change.version},
                                     "edits": edits})
        elif uri in changes:
            # A second edit of the same file cannot follow the first in `changes` (edits of
            # one URI all refer to the client's text): replace the whole text instead.
            original, first_shift = first_original[uri]
            changes[uri] = [_whole_text_edit_json(original, change.new_text, encoding,
                                                  first_shift)]
        else:
            first_original[uri] = (change.original, shift)
            changes[uri] = edits

    if features.document_changes:
        if not document_changes:
            return None, warnings
        return {"documentChanges": document_changes}, warnings
    if not changes:
        return None, warnings
    return {"changes": changes}, warnings


def _resource_operation_json(op: ResourceOp, uri_for: UriFor) -> JsonObject:
    if op.kind == "rename":
        assert op.new_path is not None, "a rename has a target"
        return {"oldUri": uri_for(op.path), "newUri": uri_for(op.new_path), "kind": "rename"}
    return {"uri": uri_for(op.path), "kind": op.kind}  # create, delete


def workspace_edit(
    plan: PlanResult,
    features: ClientFeatures,
    uri_for: UriFor,
    bom_buffers: Iterable[Path] = (),
    root: Path | None = None,
    lines_for: LinesFor | None = None,
) -> tuple[types.WorkspaceEdit | None, list[ParseWarning]]:
    """:func:`workspace_edit_json` as a :class:`lsprotocol.types.WorkspaceEdit` object."""
    edit, warnings = workspace_edit_json(plan, features, uri_for, bom_buffers, root, lines_for)
    if edit is None:
        return None, warnings
    return _LSP_CONVERTER.structure(edit, types.WorkspaceEdit), warnings


# ------------------------------------------------------------------ diagnostics


def _line_range(text: str | TextLines | None, line: int, encoding: str) -> types.Range:
    """The whole of ``line`` in ``text`` (the client's view of the file).

    Pass a :class:`TextLines` when asking for several lines of one text (split once).
    """
    lines: Sequence[str] = [""] if text is None else (
        TextLines(text) if isinstance(text, str) else text)
    line = max(0, line)
    length = 0
    if line < len(lines):
        content = lines[line]
        length = len(content) if content.isascii() else code_units(content, encoding)
    return types.Range(
        start=types.Position(line=line, character=0),
        end=types.Position(line=line, character=length),
    )


def diagnostic_message(block: BlockResult) -> str:
    """A failed block's reason followed by its hint (how to fix, did you mean)."""
    message = block.reason or "failed"
    if block.hint:
        message += "\n" + block.hint
    return message


def plan_diagnostics(
    plan: PlanResult,
    run_id: str,
    features: ClientFeatures,
    uri_for: UriFor,
    text_for: Callable[[Path], str | None],
    response_uri: str | None = None,
    response_text: str | None = None,
) -> dict[str, list[types.Diagnostic]]:
    """Diagnostics for one run, by URI.

    - a failed block: Error on its target file at its estimated line, ``code`` "failed",
      with ``relatedInformation`` pointing at the block in the response document when the
      response came from one (and the client shows related information); a block whose path
      was refused has no target file and is reported on the response document instead;
    - a block that matched only tolerantly: Warning at its line, ``code`` "whitespace-match";
    - a parse warning (malformed, unclosed, no path, ...): Warning on the response document,
      ``code`` "malformed-block".

    ``text_for(path)`` gives the file's text as the client shows it (for whole-line ranges).
    Every diagnostic carries ``data: {"runId", "index"}`` (index null for parse warnings).
    """
    encoding = features.encoding
    out: dict[str, list[types.Diagnostic]] = {}
    texts: dict[Path, TextLines | None] = {}
    response_lines = TextLines(response_text) if response_text is not None else None

    def file_text(path: Path) -> TextLines | None:
        if path not in texts:
            text = text_for(path)
            texts[path] = TextLines(text) if text is not None else None
        return texts[path]

    def response_location(response_line: int) -> types.Location | None:
        if response_uri is None:
            return None
        return types.Location(
            uri=response_uri, range=_line_range(response_lines, response_line, encoding))

    for block in plan.blocks:
        data = {"runId": run_id, "index": block.index}
        if block.status == "failed":
            location = response_location(block.response_line)
            if block.path is not None:
                related = None
                if location is not None and features.related_information:
                    related = [types.DiagnosticRelatedInformation(
                        location=location,
                        message=f"block {block.index + 1} of the response ({block.format})",
                    )]
                out.setdefault(uri_for(block.path), []).append(types.Diagnostic(
                    range=_line_range(file_text(block.path), block.line or 0, encoding),
                    message=diagnostic_message(block),
                    severity=types.DiagnosticSeverity.Error,
                    code=CODE_FAILED,
                    source=SOURCE,
                    related_information=related,
                    data=data,
                ))
            elif location is not None:
                out.setdefault(location.uri, []).append(types.Diagnostic(
                    range=location.range,
                    message=f"{block.file}: {diagnostic_message(block)}",
                    severity=types.DiagnosticSeverity.Error,
                    code=CODE_FAILED,
                    source=SOURCE,
                    data=data,
                ))
        elif (
            block.status in OK_STATUSES
            and block.match in TOLERANT_MATCHES
            and block.path is not None
            and block.line is not None
        ):
            out.setdefault(uri_for(block.path), []).append(types.Diagnostic(
                range=_line_range(file_text(block.path), block.line, encoding),
                message=(f"block {block.index + 1} matched only by ignoring "
                         f"{_tolerance_words(block.match)}; check the result"),
                severity=types.DiagnosticSeverity.Warning,
                code=CODE_WHITESPACE,
                source=SOURCE,
                data=data,
            ))
    if response_uri is not None:
        for warning in plan.warnings:
            out.setdefault(response_uri, []).append(
                warning_diagnostic(warning, run_id, response_lines, encoding))
    return out


def warning_diagnostic(
    warning: ParseWarning, run_id: str | None, response_text: str | TextLines | None,
    encoding: str,
) -> types.Diagnostic:
    """A parse warning as a diagnostic on the response document.

    For several warnings of one response, pass its :class:`TextLines` (split once).
    """
    return types.Diagnostic(
        range=_line_range(response_text, warning.response_line, encoding),
        message=warning.message,
        severity=types.DiagnosticSeverity.Warning,
        code=CODE_MALFORMED,
        source=SOURCE,
        data={"runId": run_id, "index": None},
    )


def _tolerance_words(match: str | None) -> str:
    return {
        "whitespace": "leading/trailing whitespace",
        "trailing-whitespace": "trailing whitespace",
        "unicode": "whitespace and Unicode punctuation differences",
    }.get(match or "", "differences")


# ------------------------------------------------------------------ results


def mark_applied(plan: PlanResult) -> None:
    """After the editor applied the edit: validated blocks become applied."""
    for block in plan.blocks:
        if block.status == "validated":
            block.status = "applied"


def summary(plan: PlanResult) -> str:
    """One line for the log: how many blocks, by status."""
    counts: dict[str, int] = {}
    for block in plan.blocks:
        counts[block.status] = counts.get(block.status, 0) + 1
    parts = [f"{n} {status}" for status, n in sorted(counts.items())]
    return f"{len(plan.blocks)} block(s)" + (f": {', '.join(parts)}" if parts else "")


@dataclass
class FixRequest:
    """A validated ``llmEdits.applyFix`` argument."""

    run_id: str
    index: int
    fix: str  # "whitespace" | "closest"


def parse_fix_request(argument: Any) -> FixRequest:
    if not isinstance(argument, dict):
        raise ValueError("llmEdits.applyFix takes an object {runId, index, fix}")
    run_id, index, fix = argument.get("runId"), argument.get("index"), argument.get("fix")
    if not isinstance(run_id, str):
        raise ValueError("applyFix: runId must be a string")
    if not isinstance(index, int) or isinstance(index, bool):
        raise ValueError("applyFix: index must be an integer")
    if fix not in ("whitespace", "closest"):
        raise ValueError(f"applyFix: fix must be 'whitespace' or 'closest', got {fix!r}")
    return FixRequest(run_id, index, fix)


def fix_code_actions(
    diagnostic: types.Diagnostic, fixes: dict[str, Any]
) -> list[types.CodeAction]:
    """Quick fixes offered on one of our diagnostics (``fixes`` from its block result)."""
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    run_id, index = data.get("runId"), data.get("index")
    actions: list[types.CodeAction] = []
    if run_id is None or index is None:
        return actions
    if fixes.get("matching") == "whitespace":
        title = "Apply with whitespace tolerance"
        actions.append(types.CodeAction(
            title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            is_preferred=True,
            command=types.Command(title=title, command="llmEdits.applyFix",
                                  arguments=[{"runId": run_id, "index": index,
                                              "fix": "whitespace"}])))
    closest = fixes.get("closest_line", fixes.get("closestLine"))
    if isinstance(closest, int):
        # Editors number lines from 1 for people; the result's fields stay 0-based.
        title = f"Apply at closest match (line {closest + 1})"
        actions.append(types.CodeAction(
            title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            command=types.Command(title=title, command="llmEdits.applyFix",
                                  arguments=[{"runId": run_id, "index": index,
                                              "fix": "closest"}])))
    if diagnostic.code == CODE_FAILED:
        title = "Copy retry feedback for the model"
        actions.append(types.CodeAction(
            title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            command=types.Command(title=title, command="llmEdits.copyFeedback",
                                  arguments=[{"runId": run_id, "index": index}])))
    return actions


def ranges_overlap(a: types.Range, b: types.Range) -> bool:
    """Whether two ranges share a position (touching counts: a cursor on a diagnostic)."""
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)
    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


__all__ = [
    "CODE_FAILED",
    "CODE_MALFORMED",
    "CODE_WHITESPACE",
    "SOURCE",
    "ClientFeatures",
    "EditOptions",
    "FixRequest",
    "TextLines",
    "apply_content_change",
    "block_dict",
    "changed_files",
    "check_response_size",
    "client_features",
    "client_position",
    "client_position_json",
    "code_units",
    "column_from_units",
    "diagnostic_message",
    "fix_code_actions",
    "line_count",
    "line_starts",
    "mark_applied",
    "offset_at",
    "parse_fix_request",
    "parse_options",
    "plan_diagnostics",
    "ranges_overlap",
    "result_dict",
    "split_lines",
    "summary",
    "warning_diagnostic",
    "warning_dict",
    "workspace_edit",
    "workspace_edit_json",
]
