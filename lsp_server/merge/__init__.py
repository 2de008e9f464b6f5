"""Merging a code block into a file (docs/formats.md, `code-block`): the whole file, or a
snippet merged by definitions (with a grammar) or by content.

Plain Python, no LSP. :func:`merge_code_block` answers the file's complete new lines
(:class:`Merged`) or why the block cannot apply (:class:`MergeFailure`); it never raises for
bad input and never answers a half merge. The caller (the `code-block` format's locate policy)
composes the new lines into minimal edits and turns a failure into a block failure.

Modules: ``elisions`` (elision lines, runs between them), ``whole`` (whole file or snippet,
the whole-file guard), ``content`` (merge by content), ``grammars`` (languages, grammars
loaded lazily), ``results`` (the answers).
"""

from __future__ import annotations

from ..matching import FileMatcher
from .content import apply_spans, content_spans
from .elisions import elision_indexes, is_elision_line
from .grammars import language_of
from .results import Merged, MergeError, MergeFailure, MergeRequest, fail
from .whole import first_difference, is_whole_file, removes_most

__all__ = [
    "MergeFailure",
    "MergeRequest",
    "Merged",
    "is_elision_line",
    "language_of",
    "merge_code_block",
]


def merge_code_block(request: MergeRequest) -> Merged | MergeFailure:
    """The file's new lines with ``request``'s code block merged in, or why it cannot be."""
    try:
        return _merge(request)
    except MergeError as failure:
        return failure.failure


def _merge(request: MergeRequest) -> Merged:
    code = request.code_lines
    if request.file_lines is None:
        _refuse_elisions(code, None, "the file does not exist yet, so there is nothing to keep")
        return Merged("create", list(code), "exact", 0)
    file_lines = request.file_lines
    elided = elision_indexes(code, file_lines)
    if request.whole_only:
        _refuse_elisions(code, file_lines, "write every line of the file")
        return _whole(file_lines, code)
    if is_whole_file(file_lines, code, bool(elided)):
        return _whole(file_lines, code)
    return _snippet_by_content(file_lines, code, elided, request.whitespace)


def _whole(file_lines: list[str], code: list[str]) -> Merged:
    too_many = removes_most(file_lines, code)
    if too_many is not None:
        removed, total = too_many
        raise fail("looks-partial", f"Looks like part of the file: as the whole file it would "
                   f"remove {removed} of the file's {total} non-blank lines; write every line "
                   "of the file, or mark left-out lines with an elision comment "
                   "(`# ... existing code ...`)", first_difference(file_lines, code))
    return Merged("whole", list(code), "exact", first_difference(file_lines, code))


def _refuse_elisions(code: list[str], file_lines: list[str] | None, why: str) -> None:
    elided = elision_indexes(code, file_lines)
    if elided:
        at = elided[0]
        raise fail("looks-partial", f"Looks like part of the file: line {at + 1} of the code "
                   f"block (`{code[at].strip()}`) is an elision, and {why}", 0)


def _snippet_by_content(file_lines: list[str], code: list[str], elided: list[int],
                        whitespace: bool) -> Merged:
    spans = content_spans(FileMatcher(file_lines), code, elided, whitespace)
    if not spans:
        raise fail("not-found", "The code block holds only elision lines: there is nothing "
                   "to merge", 0)
    lines = apply_spans(file_lines, spans)
    match = "whitespace" if any(s.level != "exact" for s in spans) else "exact"
    return Merged("snippet", lines, match, first_difference(file_lines, lines))
