"""Merging a code block into a file (docs/formats.md, `code-block`): the whole file, or a
snippet merged by definitions (with a grammar) or by content.

Plain Python, no LSP. :func:`merge_code_block` answers the file's complete new lines
(:class:`Merged`) or why the block cannot apply (:class:`MergeFailure`); it never raises for
bad input and never answers a half merge. The caller (the `code-block` format's locate policy)
composes the new lines into minimal edits and turns a failure into a block failure.

Modules: ``elisions`` (elision lines, runs between them), ``whole`` (whole file or snippet,
the whole-file guard), ``content`` (merge by content), ``grammars`` (languages, grammars
loaded lazily), ``tables`` (the registry of ``code_tables`` and ``data_tables``, of the shape
``table_types`` says: which nodes are definitions), ``units`` (a tree's definitions),
``parsed`` (a file or snippet parsed into units), ``snippet`` (the merge by definitions, over
``regions``), ``elided`` (what an elision in a definition stands for), ``placement`` (new
definitions), ``imports``, ``indent`` (re-indentation), ``results`` (the answers).
"""

from __future__ import annotations

from ..matching import FileMatcher
from ..removed_lines import removes_most_of
from .content import apply_spans, content_spans
from .elisions import elision_indexes, is_elision_line
from .grammars import language_of, parser_for
from .results import FailureKind, Merged, MergeError, MergeFailure, MergeRequest, fail
from .snippet import SyntaxProblem, merge_by_definitions
from .tables import TABLES
from .whole import first_difference, is_whole_file

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
    return _snippet(request, file_lines, elided)


def _snippet(request: MergeRequest, file_lines: list[str], elided: list[int]) -> Merged:
    """By definitions when the language has a grammar (by content when a text does not
    parse), else by content."""
    code = request.code_lines
    language = language_of(request.path, request.info)
    if language not in TABLES:
        return _snippet_by_content(file_lines, code, elided, request.whitespace,
                                   request.at_line)
    if parser_for(language) is None:
        return _by_content_else(file_lines, request, elided, "no-grammar",
                                f"the {language} grammar is not installed")
    try:
        lines, by_name = merge_by_definitions(file_lines, code, elided, language,
                                              request.whitespace, request.at_line)
    except SyntaxProblem as problem:
        return _by_content_else(file_lines, request, elided, "syntax-error",
                                str(problem), problem.line if problem.what == "The file"
                                else None)
    match = "exact" if not by_name else "syntax"
    return Merged("snippet", lines, match, first_difference(file_lines, lines))


def _by_content_else(file_lines: list[str], request: MergeRequest, elided: list[int],
                     kind: FailureKind, why: str, line: int | None = None) -> Merged:
    """The merge by content, or a failure of ``kind`` saying ``why`` definitions could not
    be merged."""
    try:
        return _snippet_by_content(file_lines, request.code_lines, elided,
                                   request.whitespace, request.at_line)
    except MergeError as content_failure:
        failure = content_failure.failure
        raise fail(kind, f"{why[0].upper()}{why[1:]}, so it was merged by content, and "
                   f"{failure.reason[0].lower()}{failure.reason[1:]}",
                   failure.line if line is None else line,
                   unplaced=failure.unplaced) from None


def _whole(file_lines: list[str], code: list[str]) -> Merged:
    too_many = removes_most_of(file_lines, code)
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
                        whitespace: bool, at_line: int | None = None) -> Merged:
    spans = content_spans(FileMatcher(file_lines), code, elided, whitespace,
                          at_line=at_line)
    if not spans and not any(line.strip() for i, line in enumerate(code) if i not in elided):
        what = "holds only elision lines" if elided else "is empty"
        raise fail("not-found", f"The code block {what}: there is nothing to merge", 0)
    lines = apply_spans(file_lines, spans)
    match = "whitespace" if any(s.level != "exact" for s in spans) else "exact"
    return Merged("snippet", lines, match, first_difference(file_lines, lines))
