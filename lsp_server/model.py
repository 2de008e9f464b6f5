"""The engine's data model: one block model for every format, and the results of planning.

Every parser (``lsp_server.parsing.*``) produces :class:`Block` objects; the planner
(``lsp_server.planning``) turns them into :class:`BlockResult` entries and per-file
:class:`FileEdit` / :class:`ResourceOp` changes. Nothing here knows about LSP: the server
glue converts these objects to lsprotocol types, the CLI applies them to files on disk.

Conventions:
- Text is held as lists of lines *without* line terminators, already CRLF→LF normalised.
- Line numbers are 0-based everywhere (file lines and response lines), as in LSP.
- Columns in :class:`TextEdit` are Python code points in the BOM-less text; the LSP glue
  converts them to the negotiated position encoding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

# update: change lines of an existing file; create: new file (never clobbers);
# delete: remove the file; rename: move it (``Block.move_to``) without changing text;
# append: search-replace's empty SEARCH (create if missing/empty, else append at the end);
# write: whole-file's complete new text (create if missing, else minimal edits to that text).
Op = Literal["update", "create", "delete", "rename", "append", "write"]
# already-applied: the block's new text is in the file where its old text would be (the
# response was applied before); nothing is written and it is not a failure.
# excluded: the caller ran only some blocks (options.blocks, --blocks); not planned at all.
Status = Literal["applied", "validated", "failed", "skipped", "already-applied", "excluded"]
# The statuses of blocks that did not fail: what an all-or-nothing run and exit codes count.
OK_STATUSES: frozenset[str] = frozenset({"applied", "validated", "already-applied", "excluded"})
# How a block matched: exact, whitespace (leading/trailing ignored), plus apply-patch's
# Codex ladder levels trailing-whitespace and unicode.
MatchKind = Literal["exact", "trailing-whitespace", "whitespace", "unicode"]


def lines_to_text(lines: list[str]) -> str:
    """``["a", "b"]`` → ``"a\\nb\\n"``; ``[]`` → ``""``.

    This is the text form of ``llmEdits.parse``'s texts (docs/protocol.md).
    """
    return "".join(line + "\n" for line in lines)


def text_to_lines(text: str) -> list[str]:
    """The lines of ``text`` without terminators: THE line splitter of the package.

    ``\\r\\n``, ``\\n`` and a lone ``\\r`` end a line, as in LSP and editors (so the engine's
    line numbers, the feedback's and the editor's agree); nothing else does (unlike
    :meth:`str.splitlines`, a form feed or U+2028 stays inside its line). A final line break
    adds no empty line: ``"a\\nb\\n"`` and ``"a\\nb"`` → ``["a", "b"]``, ``""`` → ``[]``.
    Inverse of :func:`lines_to_text`.
    """
    if not text:
        return []
    if "\r" in text:  # the scan is far cheaper than two replace() copies
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


@dataclass(slots=True)  # many thousands per big response: smaller, faster
class Hunk:
    """One hunk of a hunk-based format (hunk-patch, apply-patch, unified-diff).

    ``lines`` keeps the diff body in order as ``(kind, text)`` with kind ``" "`` (context),
    ``"-"`` (removed) or ``"+"`` (added).
    """

    header: str  # text after "@@" ("" for a bare @@); for unified diff "-l,n +l,n"
    lines: list[tuple[str, str]] = field(default_factory=list)
    anchor: str | None = None  # hunk-patch "@@ ANCHOR" / apply-patch "@@ context line"
    old_start: int | None = None  # unified diff: 1-based old start line from the header
    end_of_file: bool = False  # apply-patch "*** End of File"
    response_line: int = 0

    @property
    def old(self) -> list[str]:
        """Context and removed lines: what must be found in the file."""
        return [t for k, t in self.lines if k != "+"]

    @property
    def new(self) -> list[str]:
        """Context and added lines: what the found lines become."""
        return [t for k, t in self.lines if k != "-"]


@dataclass(slots=True)
class ToolEdit:
    """What an agent's tool call says beyond lines (formats ``str-replace`` and
    ``apply-patch-call``; docs/formats.md "Agents' tool calls").

    ``old_text`` is an exact substring of the file (CRLF→LF), not whole lines; ``Block.old``
    and ``Block.new`` hold the same texts as lines, for previews and feedback.
    """

    call_id: str | None = None  # the call's id, to answer it (apply_patch_call_output)
    old_text: str = ""  # str-replace: the exact text replaced
    new_text: str = ""  # str-replace: what replaces it; insert: the text inserted
    replace_all: bool = False  # every occurrence (else the old text must be unique)
    expected: int | None = None  # this many occurrences, all replaced (edit_block)
    insert_line: int | None = None  # insert: after this 1-based line (0: at the top)


@dataclass(slots=True)  # many thousands per big response: smaller, faster
class Block:
    """One edit block, whatever its format (docs/formats.md, "What one block is").

    For line formats (edit-v3, edit-v2, search-replace, semantic-diff) ``anchor + old +
    trailing`` must match the file and becomes ``anchor + new + trailing``. Hunk formats use
    ``hunks`` instead (and leave anchor/old/new/trailing empty). For ``create`` the file's
    content is ``new``.
    """

    format: str
    file: str  # path as written, unwrapped (a/ b/ stripped); for a move, the source path
    op: Op = "update"
    anchor: list[str] = field(default_factory=list)
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    trailing: list[str] = field(default_factory=list)
    hunks: list[Hunk] | None = None
    move_to: str | None = None  # rename / "Move to" / "moved to" target, as written
    response_line: int = 0  # 0-based response line where the block starts (path line if any)
    end_line: int = 0  # 0-based response line just after the block
    raw: str = ""
    index: int = 0  # position in the response, set by parse_response
    create_text: str | None = None  # exact content for creates whose format gives it verbatim
    info: str = ""  # code-block: the fence's language word (only breaks ties of a file's language)
    tool: ToolEdit | None = None  # str-replace, apply-patch-call: what the agent's call says


@dataclass(slots=True)  # many thousands per big response: smaller, faster
class ParseWarning:
    """Something in the response that is not a block: malformed, unclosed, no path, limits."""

    response_line: int
    message: str
    # A block started but not closed at the END of the response: in a response still being
    # written (a streamed document) it is a block being written, not a mistake.
    pending: bool = False
    format: str | None = None  # the format of the block warned about, when known
    file: str | None = None  # its file, when known


@dataclass
class ParseResult:
    blocks: list[Block] = field(default_factory=list)
    warnings: list[ParseWarning] = field(default_factory=list)
    shell_suggestions: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------- planning


class Prepared(Protocol):
    """A reusable parse of a file's text (``file_text.PreparedText``; named by this protocol,
    not imported: file_text builds on this model)."""

    def for_text(self, text: str) -> Any: ...


@dataclass
class FileSnapshot:
    """What the caller knows of one path: an open buffer, a file on disk, or nothing.

    The server passes buffer text (unsaved changes included) with its version; the CLI and
    the server for files not open read disk (version None). ``text`` keeps the file's own
    line endings and a leading BOM if the source had one.
    """

    text: str | None  # None: does not exist
    version: int | None = None  # buffer version; None for disk
    is_dir: bool = False
    binary: bool = False  # NUL byte in the first 8 KiB
    error: str | None = None  # could not be read / decoded: the reason
    # Optional reusable parse of ``text`` (a ``file_text.PreparedText`` made from this very
    # string): the server keeps one per open buffer version; used only if it matches.
    prepared: Prepared | None = None


@dataclass
class TextEdit:
    """Replace the range [start, end) with new_text; code-point columns, BOM excluded."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int
    new_text: str


@dataclass
class FileEdit:
    """Minimal edits for one pre-existing or created file, computed against ``original``."""

    path: Path
    version: int | None
    edits: list[TextEdit]
    original: str  # the text the edits apply to (BOM-less, as the snapshot gave it)
    new_text: str  # the text after the edits (BOM-less), for previews and the CLI
    has_bom: bool = False  # the snapshot's text started with U+FEFF (kept, never edited)


@dataclass
class ResourceOp:
    kind: Literal["create", "rename", "delete"]
    path: Path
    new_path: Path | None = None  # rename target


@dataclass
class BlockResult:
    index: int
    file: str
    format: str
    status: Status
    reason: str | None = None
    line: int | None = None  # 0-based file line (match start, or estimated failure line)
    match: MatchKind | None = None  # how it matched (None: not matched, or placed by a fix)
    offset: int | None = None  # unified diff: applied this many lines away from its header
    response_line: int = 0
    path: Path | None = None  # resolved target path (None when the path was refused)
    hint: str | None = None  # "did you mean" / how to fix, for diagnostics and feedback
    anchor_preview: str = ""
    old_preview: str = ""
    new_preview: str = ""
    # How a quick fix could succeed: {"matching": "whitespace"} when tolerant matching
    # would apply it, {"closestLine": N} when a unique near match exists.
    fixes: dict = field(default_factory=dict)
    context: list[tuple[int, str]] = field(default_factory=list)  # actual lines near `line`
    call_id: str | None = None  # an agent's tool call's id (apply_patch_call), to answer it


@dataclass
class PlanResult:
    blocks: list[BlockResult] = field(default_factory=list)
    # Ordered changes: FileEdit for text, ResourceOp for create/rename/delete. A created
    # file appears as ResourceOp("create") followed by the FileEdit filling it.
    changes: list[FileEdit | ResourceOp] = field(default_factory=list)
    shell_suggestions: list[str] = field(default_factory=list)
    warnings: list[ParseWarning] = field(default_factory=list)
    files_modified: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(b.status in OK_STATUSES for b in self.blocks)
