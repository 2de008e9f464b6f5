"""Planning: turn parsed blocks into per-block results and minimal per-file edits.

``plan_edits`` applies blocks in response order to an in-memory virtual file system that is
seeded lazily through the caller's ``read_file`` (open buffers first in the server, disk in
the CLI). A block sees each file as earlier blocks left it; a failed block changes nothing,
and later blocks for the same file are skipped (docs/formats.md "Sequential").

Composition. Each file (:class:`virtual_file.VFile`) keeps its current lines plus a
run-length map of which original line each current line still is, or that a block wrote it
(:class:`file_text.LineOrigins`). A
block replaces a range of current lines by a list of items that are either kept current
lines (anchors, context, lines equal in old and new: they keep the file's text and their
origin) or new text. Because kept lines never move relative to each other, origins stay
increasing, and at the end one walk over the runs (:meth:`file_text.LineOrigins.segments`)
yields the minimal whole-line edits against the *original* snapshot: however many blocks
touched a file, the editor receives one ``FileEdit`` whose ranges refer to the text it has,
so cursors, folds and undo survive. See docs/engine.md.

Location rules per format are docs/formats.md's; the matcher (``matching``) owns the tolerance
levels, ``diagnosis`` explains failures.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .formats import FORMATS
from .limits import DEFAULT_MAX_BLOCK_LINES
from .locate import BlockFailure, LocateOptions, LocatePolicy, Placement, Replacement
from .locate.already_applied import (
    AlreadyApplied,
    appended_already,
    created_already,
    locate_or_already_applied,
)
from .locate.common import changes_no_line
from .model import (
    Block,
    BlockResult,
    FileEdit,
    FileSnapshot,
    Hunk,
    ParseResult,
    ParseWarning,
    PlanResult,
    ResourceOp,
    text_to_lines,
)
from .virtual_file import VFile
from .workspace import PathResolver

_PREVIEW_CHARS = 50

ReadFile = Callable[[Path], FileSnapshot]
# Told each block's replacements before they are made (block index, file, replacements).
OnChange = Callable[[int, VFile, list[Replacement]], None]


# ---------------------------------------------------------------------------- helpers


def _preview(lines: list[str]) -> str:
    return lines[0][:_PREVIEW_CHARS] if lines else ""


def _previews(block: Block) -> tuple[str, str, str]:
    """The block's first anchor, old and new lines, cut short (seed 001's previews)."""
    if block.hunks:
        return _hunk_previews(block.hunks[0])
    if block.op == "create" and block.create_text is not None:
        return "", "", _preview(text_to_lines(block.create_text))
    return _preview(block.anchor), _preview(block.old), _preview(block.new)


def _hunk_previews(hunk: Hunk) -> tuple[str, str, str]:
    removed = next((t for k, t in hunk.lines if k == "-"), "")
    added = next((t for k, t in hunk.lines if k == "+"), "")
    anchor = hunk.anchor or hunk.header or ""
    return anchor[:_PREVIEW_CHARS], removed[:_PREVIEW_CHARS], added[:_PREVIEW_CHARS]


def _create_lines(block: Block) -> list[str]:
    if block.create_text is not None:
        return text_to_lines(block.create_text)
    if block.hunks:
        return [t for h in block.hunks for k, t in h.lines if k != "-"]
    return list(block.new)


# Each format's locate policy, read from the registry once (a registry entry imports its
# policy when asked; asking once per block would pay that lookup for every block).
_LOCATE_POLICIES: dict[str, LocatePolicy] = {f.name: f.locate for f in FORMATS}


# Where a whole-file operation applied.
_WHOLE_FILE = Placement([], 0, None)


# ---------------------------------------------------------------------------- planner


class _Planner:
    def __init__(self, read_file: ReadFile, roots: list[Path], matching: str,
                 force_at: dict[int, int], max_block_lines: int | None = None,
                 on_change: OnChange | None = None) -> None:
        self.max_block_lines = max_block_lines
        self.on_change = on_change
        self.read_file = read_file
        self.roots = roots
        self.options = LocateOptions(matching == "whitespace", force_at)
        self.vfs: dict[Path, VFile] = {}
        self.failed_paths: set[Path] = set()
        # Pre-existing files in first-change order (a dict: membership by identity in O(1)).
        self.touched: dict[VFile, None] = {}
        self.ops: list[tuple[ResourceOp, VFile | None]] = []
        self.results: list[BlockResult] = []
        self.warnings: list[ParseWarning] = []  # what planning noticed (a block changing nothing)
        resolver = PathResolver(roots)
        self.resolve, self.resolve_move = resolver.resolve_alias, resolver.resolve_move

    # ------------------------------------------------------------------ file system

    def get(self, path: Path) -> VFile:
        vf = self.vfs.get(path)
        if vf is None:
            try:
                snap = self.read_file(path)
            except Exception as exc:  # a reader bug must not abort the whole plan
                snap = FileSnapshot(text=None, error=f"cannot read file: {exc}")
            vf = self.vfs[path] = VFile.from_snapshot(path, snap)
        return vf

    def change(self, vf: VFile, replacements: list[Replacement]) -> None:
        if self.on_change is not None:  # the block being run is the last result
            self.on_change(self.results[-1].index, vf, replacements)
        vf.replace(replacements)
        if not vf.created:
            self.touched.setdefault(vf, None)

    def create(self, path: Path, lines: list[str]) -> VFile:
        vf = self.vfs[path] = VFile.new_file(path)
        self.ops.append((ResourceOp("create", path), vf))
        if lines:
            self.change(vf, [(0, 0, list(lines))])
        return vf

    def fill_or_create(self, path: Path, vf: VFile, lines: list[str]) -> None:
        if vf.exists:  # an existing empty file: a text edit, never CreateFile over it
            if lines:
                self.change(vf, [(0, 0, list(lines))])
        else:
            self.create(path, lines)

    def rename(self, vf: VFile, target: Path) -> None:
        source = vf.path
        self.ops.append((ResourceOp("rename", source, target), None))
        self.vfs[target] = vf
        self.vfs[source] = VFile(source, "missing")
        vf.path = target

    def check_target(self, block: Block, target: Path) -> None:
        tvf = self.get(target)
        if tvf.exists:
            raise BlockFailure(f"Target already exists: {block.move_to}", 0)

    # ------------------------------------------------------------------------ blocks

    def run(self, block: Block) -> BlockResult:
        anchor_p, old_p, new_p = _previews(block)
        res = BlockResult(
            index=block.index, file=block.file, format=block.format, status="validated",
            response_line=block.response_line, anchor_preview=anchor_p,
            old_preview=old_p, new_preview=new_p,
            call_id=block.tool.call_id if block.tool is not None else None,
        )
        self.results.append(res)
        path, why = self.resolve(block.file)
        if path is None:
            res.status, res.reason, res.line = "failed", f"Path refused: {why}", 0
            return res
        res.path = path
        if path in self.failed_paths:
            res.status, res.reason = "skipped", "Previous edit to this file failed"
            return res
        target: Path | None = None
        if block.move_to:
            target, why = self.resolve_move(path, block.move_to)
            if target is None:
                self._fail(res, BlockFailure(f"Target path refused: {why}", 0), path, None)
                return res
            if target == path:
                target = None
        try:
            placement = self.apply(block, path, target)
            res.line, res.match, res.offset = placement.line, placement.match, placement.offset
            if isinstance(placement, AlreadyApplied):
                res.status = "already-applied"
        except BlockFailure as failure:
            self._fail(res, failure, path, target)
        except Exception as exc:  # an engine bug: fail this block, keep planning the others
            failure = BlockFailure(f"internal error while planning this block: {exc!r}", 0)
            self._fail(res, failure, path, target)
        return res

    def _fail(self, res: BlockResult, failure: BlockFailure, path: Path,
              target: Path | None) -> None:
        """The block failed: later blocks for its file (and its move target) are skipped."""
        res.status, res.reason, res.line = "failed", failure.reason, failure.line
        res.hint, res.fixes, res.context = failure.hint, failure.fixes, failure.context
        self.failed_paths.add(path)
        if target is not None:
            self.failed_paths.add(target)

    def apply(self, block: Block, path: Path, target: Path | None) -> Placement:
        """Apply one block to the virtual file system, or raise BlockFailure: where it
        applied (its line, how it matched, its offset from a unified diff's header), or
        :class:`AlreadyApplied` when its new text is already there (nothing changes)."""
        self._check_size(block)
        vf = self.get(path)
        file_op = _FILE_OPS.get(block.op)
        if file_op is not None:
            return file_op(self, block, path, vf, target) or _WHOLE_FILE
        if vf.state == "missing" and block.op == "append":
            self.create(path, _create_lines(block))
            return _WHOLE_FILE
        if vf.state == "missing" and block.op == "write":
            # A file's whole text: checked as if written into an empty file, then created.
            placement = _LOCATE_POLICIES[block.format](block, vf.matcher(), self.options)
            self.create(path, _create_lines(block))
            return placement
        _check_editable(block, vf)
        if target is not None:
            self.check_target(block, target)
        if block.op == "append":
            return self.append(vf, _create_lines(block))
        policy = _LOCATE_POLICIES[block.format]
        if target is None:  # a block that moves its file is not done until the file moved
            placement = locate_or_already_applied(policy, block, vf.matcher(), self.options)
            if not isinstance(placement, AlreadyApplied) and changes_no_line(placement,
                                                                             vf.lines):
                self.warnings.append(ParseWarning(block.response_line, (
                    f"block {block.index + 1} ({block.file}) changes nothing: its old and new "
                    "text are the same")))
        else:
            placement = policy(block, vf.matcher(), self.options)
        if placement.replacements:
            self.change(vf, placement.replacements)
        if target is not None:
            self.rename(vf, target)
        return placement

    def append(self, vf: VFile, lines: list[str]) -> Placement:
        done = appended_already(lines, vf.lines)
        if done is not None:
            return done
        n = len(vf.lines)
        self.change(vf, [(n, n, lines)])
        return Placement([], n, "exact")

    def _check_size(self, block: Block) -> None:
        if self.max_block_lines is None:
            return
        count = block_line_count(block)
        if count > self.max_block_lines:
            raise BlockFailure(
                f"Block has {count} lines, more than the limit of {self.max_block_lines} "
                "(maxBlockLines); split it into smaller blocks", 0)

    # ------------------------------------------------------------ whole-file operations

    def create_file(self, block: Block, path: Path, vf: VFile,
                    target: Path | None) -> AlreadyApplied | None:
        if vf.state == "dir":
            raise BlockFailure(f"Path is a directory: {block.file}", 0)
        if vf.state == "error":  # e.g. a name too long for the file system: say what it is
            raise BlockFailure(f"Cannot create {block.file}: {vf.error}", 0)
        lines = _create_lines(block)
        if vf.exists and not vf.is_empty_text:
            done = created_already(lines, vf.lines) if vf.state == "text" else None
            if done is None:
                raise BlockFailure("File already exists", 0)
            return done
        self.fill_or_create(path, vf, lines)
        return None

    def delete_file(self, block: Block, path: Path, vf: VFile, target: Path | None) -> None:
        if not vf.exists:
            raise BlockFailure(f"File not found: {block.file}", 0)
        if vf.state == "dir":
            raise BlockFailure(f"Cannot delete a directory: {block.file}", 0)
        self.ops.append((ResourceOp("delete", path), None))
        self.vfs[path] = VFile(path, "missing")

    def rename_file(self, block: Block, path: Path, vf: VFile, target: Path | None) -> None:
        if not vf.exists:
            raise BlockFailure(f"File not found: {block.file}", 0)
        if vf.state == "dir":
            raise BlockFailure(f"Cannot move a directory: {block.file}", 0)
        if target is not None:
            self.check_target(block, target)
            self.rename(vf, target)

    # -------------------------------------------------------------------- output

    def finish(self, parsed: ParseResult, atomic: bool, dry_run: bool, *,
               release: bool = True) -> PlanResult:
        """The plan so far. ``release=False`` keeps the files' lines, so more blocks can be
        run and the plan finished again (streaming_plan); with ``dry_run`` the results are
        then left as they are."""
        hold = atomic and any(r.status == "failed" for r in self.results)
        ok_status = "validated" if (dry_run or hold) else "applied"
        for r in self.results:
            if r.status == "validated":
                r.status = ok_status
        changes = [] if hold else self.changes(release)
        return PlanResult(
            blocks=self.results,
            changes=changes,
            shell_suggestions=list(parsed.shell_suggestions),
            warnings=sorted([*parsed.warnings, *self.warnings], key=lambda w: w.response_line),
            files_modified=_modified_paths(changes),
        )

    def changes(self, release: bool = True) -> list[FileEdit | ResourceOp]:
        """Edits of pre-existing files, then the file operations in order (a created file's
        edit right after its creation). Each file is released once its edit is made (nothing
        reads it afterwards), unless ``release`` is false."""
        changes: list[FileEdit | ResourceOp] = []
        for vf in self.touched:
            _add_file_edit(changes, vf, release)
        for op, created in self.ops:
            changes.append(op)
            if created is not None:
                _add_file_edit(changes, created, release)
        return changes


# The block operations that act on a whole file (no text to locate); a create may find its
# text already there (AlreadyApplied).
_FILE_OPS: dict[str, Callable[[_Planner, Block, Path, VFile, Path | None],
                              AlreadyApplied | None]] = {
    "create": _Planner.create_file,
    "delete": _Planner.delete_file,
    "rename": _Planner.rename_file,
}


def _check_editable(block: Block, vf: VFile) -> None:
    """Only an existing text file's lines can be edited."""
    if vf.state == "text":
        return
    reasons = {
        "missing": f"File not found: {block.file}",
        "dir": f"Path is a directory: {block.file}",
        "binary": "Cannot edit binary file",
        "error": f"Cannot edit {block.file}: {vf.error}",
    }
    raise BlockFailure(reasons[vf.state], 0)


def _add_file_edit(changes: list[FileEdit | ResourceOp], vf: VFile, release: bool) -> None:
    edit = vf.file_edit()
    if release:
        vf.release()
    if edit is not None:
        changes.append(edit)


def _modified_paths(changes: list[FileEdit | ResourceOp]) -> list[Path]:
    modified: dict[Path, None] = {}
    for change in changes:
        modified[change.path] = None
        if isinstance(change, ResourceOp) and change.new_path is not None:
            modified[change.new_path] = None
    return list(modified)


def block_line_count(block: Block) -> int:
    """Every line a block carries (old, new, anchors, hunk lines; a created text once)."""
    new = len(block.new)
    if block.create_text is not None:  # a create's verbatim text, which ``new`` holds too
        text = block.create_text
        new = max(new, text.count("\n") + (bool(text) and not text.endswith("\n")))
    count = len(block.anchor) + len(block.old) + new + len(block.trailing)
    if block.hunks:
        count += sum(len(hunk.lines) for hunk in block.hunks)
    return count


def block_planner(read_file: ReadFile, roots: list[Path], *, matching: str = "exact",
                  max_block_lines: int | None = DEFAULT_MAX_BLOCK_LINES) -> _Planner:
    """A planner kept between calls, for a response that grows (``streaming_plan``):
    ``run(block)`` plans the next block over what the earlier ones left, ``finish(parsed,
    atomic, True, release=False)`` composes the plan so far. Running the blocks of
    ``parsed`` in order and finishing gives what :func:`plan_edits` gives."""
    return _Planner(read_file, roots, matching, {}, max_block_lines)


def plan_edits(
    parsed: ParseResult,
    read_file: ReadFile,
    roots: list[Path],
    *,
    matching: str = "exact",
    atomic: bool = False,
    dry_run: bool = True,
    force_at: dict[int, int] | None = None,
    only: set[int] | None = None,
    max_block_lines: int | None = DEFAULT_MAX_BLOCK_LINES,
    on_change: OnChange | None = None,
) -> PlanResult:
    """Plan every block of ``parsed`` against files read through ``read_file``.

    - ``read_file(path)``: the caller's view of a path (buffer first, then disk); called at
      most once per path, lazily.
    - ``roots``: workspace folders; paths outside them are refused.
    - ``matching``: ``"exact"`` or ``"whitespace"`` (docs/formats.md tolerance rule).
    - ``atomic``: if any block fails, no changes at all (the others stay ``validated``).
    - ``dry_run``: successful blocks are ``validated`` (preview) instead of ``applied``.
    - ``force_at[i] = N``: place block ``i`` at 0-based file line N whatever the content
      there (the "Apply at closest match" quick fix). Line formats: the whole block
      (anchor + old + trailing) is taken to sit at N. Hunk formats: the first hunk that
      cannot be located is placed at N (if that is not before where its search began).
    - ``only``: plan just these block indexes (a quick fix re-runs one block).
    - ``max_block_lines``: a block with more lines (:func:`block_line_count`) fails at once
      instead of being located (a hostile 2-million-line block would take many seconds to
      diagnose); None: no limit.
    - ``on_change(index, vfile, replacements)``: told each change a block makes, before it
      is made (``block_spans.BlockSpans.record``: which block made which edit).
    """
    planner = _Planner(read_file, roots, matching, dict(force_at or {}), max_block_lines,
                       on_change)
    for block in parsed.blocks:
        if only is None or block.index in only:
            planner.run(block)
    return planner.finish(parsed, atomic, dry_run)


def plan_response(
    text: str,
    read_file: ReadFile,
    roots: list[Path],
    *,
    formats: set[str] | None = None,
    target: str | None = None,
    **kw,
) -> PlanResult:
    """Parse ``text`` and plan its blocks (keywords as for :func:`plan_edits`); ``target``:
    the file every code fence naming no file is for (``parse_response``)."""
    from .parsing import parse_response

    return plan_edits(parse_response(text, formats, target=target), read_file, roots, **kw)


__all__ = ["DEFAULT_MAX_BLOCK_LINES", "BlockFailure", "VFile", "block_line_count", "block_planner",
           "plan_edits", "plan_response"]
