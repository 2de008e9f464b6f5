"""unified-diff blocks: ``git diff`` / ``diff -u`` output (docs/formats.md "unified-diff").

Grammar (one file = one block; usually inside a ```` ```diff ```` fence, which needs no
special handling: the fence lines are simply not diff lines)::

    file        := [git-header] "--- " OLD LF "+++ " NEW LF hunk*
                 | git-header                          (rename, or empty new/deleted file)
    git-header  := "diff --git a/X b/Y" LF extended*
    extended    := "index …" | "old mode …" | "new mode …" | "new file mode …"
                 | "deleted file mode …" | "similarity index …" | "dissimilarity index …"
                 | "rename from X" | "rename to Y" | "copy from …" | "copy to …"
                 | "Binary files …" | "GIT binary patch"
    hunk        := "@@ -l[,n] +l[,n] @@" [section heading] LF body
    body        := (" " text | "-" text | "+" text | "" | "\\ No newline at end of file")*

Blocks: ``file`` is NEW with ``b/`` stripped (OLD with ``a/`` stripped for a delete);
``--- /dev/null`` → op "create" with ``new`` = the added lines; ``+++ /dev/null`` → op
"delete"; otherwise op "update" with ``hunks`` (``header`` = ``"-l,n +l,n"`` as written,
``old_start`` = the old ``l``, 1-based; for a pure insertion, ``-l,0``, git's convention makes
``l`` the line *after which* the lines go). A move (git's ``rename from``/``rename to``, or
``---``/``+++`` naming different paths) sets ``file`` to the old path and ``move_to`` to the
new one: op "update" with hunks, op "rename" without.

How a hunk ends (models get the header's counts wrong, so counts do not delimit a hunk):
- It runs over every line starting with ``' '``, ``'-'``, ``'+'`` or ``'\\'``, and over empty
  lines (an empty context line whose single space was stripped), up to the first other line:
  the next ``@@``, a ``--- ``/``+++ `` pair (always the next file, never a removed ``-- ``
  line followed by an added ``++ `` one), a closing fence, prose.
- Empty lines at the end of a hunk are the gap after the diff, not content: dropped.
- One exception trusts the counts: when they are met exactly at an empty line and more
  lines follow it (say a bulleted list after an unfenced diff), the hunk ends there, with a
  warning naming what was left out.
- ``\\ No newline at end of file`` is ignored (the file's final-newline state is kept).

Truncation: a file whose diff runs to the end of the response (nothing but empty lines
after it) is complete only when its last hunk has at least the lines its header counts
promise and the response ends with a newline; otherwise it is reported and skipped (a
streamed response may have been cut inside it). A ``---``/``+++`` pair without hunks at the
very end is incomplete too, except for a delete.

Other git output: a mode-only change has nothing to apply (warning); a binary diff is
reported and skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import Block, Hunk, ParseWarning, lines_to_text
from .headerless_hunks import headerless_hunks
from .hunk_syntax import block_hunks, render_body
from .marker_scan import MarkerLines
from .parsed_span import ParsedSpan, new_block
from .response_text import backtick_fence_for, only_blank_from

FORMAT = "unified-diff"
DEV_NULL = "/dev/null"

_HUNK_HEADER_RE = re.compile(r"@@ *(-(\d+)(?:,(\d+))? \+\d+(?:,(\d+))?) *@@")
_GIT_EXTENDED = (
    "index ", "old mode ", "new mode ", "new file mode ", "deleted file mode ",
    "similarity index ", "dissimilarity index ", "rename from ", "rename to ",
    "copy from ", "copy to ", "Binary files ", "GIT binary patch",
)
_MAX_DIGITS = 18  # a line number or count longer than this is no line of any file
_OCTAL_ESCAPE = re.compile(r"\\([0-7]{3}|.)")


def _unquote(quoted: str) -> str:
    """Git's C-style quoted path (``"a/na\\303\\257ve.txt"``) → the path."""
    simple = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
    raw = bytearray()
    pos = 0
    for m in _OCTAL_ESCAPE.finditer(quoted):
        raw += quoted[pos:m.start()].encode("utf-8")
        code = m.group(1)
        raw += bytes([int(code, 8) & 0xFF]) if len(code) == 3 else simple.get(
            code, code).encode("utf-8")
        pos = m.end()
    raw += quoted[pos:].encode("utf-8")
    return raw.decode("utf-8", "replace")


def _header_path(written: str) -> str:
    """The path of a ``---``/``+++`` line: timestamp (after a tab) cut, git quoting undone."""
    path = written.split("\t", 1)[0].strip()
    if len(path) >= 2 and path.startswith('"') and path.endswith('"'):
        path = _unquote(path[1:-1])
    return path


def _strip_prefix(path: str, prefix: str) -> str:
    return path[len(prefix):] if path.startswith(prefix) and len(path) > len(prefix) else path


def _git_paths(line: str) -> tuple[str, str] | None:
    """Old and new path of ``diff --git a/P b/P`` when both are the same (unambiguous)."""
    rest = line[len("diff --git "):].strip()
    if len(rest) % 2 == 0 or not rest.startswith("a/"):
        return None
    path = rest[2 : 2 + (len(rest) - 5) // 2]
    return (path, path) if rest == f"a/{path} b/{path}" else None


@dataclass(slots=True)
class _FileDiff:
    """One file's part of the diff, as read."""

    start: int
    end: int  # line after the last line of the file's diff
    old: str | None = None  # paths as written in ---/+++ (a/ b/ not yet stripped)
    new: str | None = None
    git: dict[str, str] = field(default_factory=dict)  # extended header → value
    git_line: str = ""
    hunks: list[Hunk] = field(default_factory=list)
    last_counts: tuple[int, int, int, int] | None = None  # wanted old/new, seen old/new
    warnings: list[ParseWarning] = field(default_factory=list)
    problem: str | None = None  # why the file's diff cannot be applied, found while reading


def _read_hunk(lines: list[str], at: int, diff: _FileDiff) -> int:
    """Read the hunk whose header is ``lines[at]``; returns the line after its body."""
    end = _body_end(lines, at + 1)
    header = _hunk_header(lines[at], at)
    if header is None:
        diff.problem = diff.problem or (
            f"the hunk header on response line {at + 1} has a line number of more than "
            f"{_MAX_DIGITS} digits")
        return end
    hunk, wanted = header
    body = lines[at + 1 : end]
    kinds = [line[:1] for line in body]
    diff.hunks.append(hunk)
    if "" not in kinds and "\\" not in kinds:  # the usual tidy body: every line prefixed
        hunk.lines = [(line[0], line[1:]) for line in body]
        diff.last_counts = None if wanted is None else (
            *wanted, len(kinds) - kinds.count("+"), len(kinds) - kinds.count("-"))
        return end
    if wanted is not None and "" in kinds:
        _cut_where_counts_are_met(body, kinds, wanted, at + 1, diff)
    ignored = kinds.count("\\")
    seen_old = len(kinds) - kinds.count("+") - ignored
    seen_new = len(kinds) - kinds.count("-") - ignored
    hunk.lines = [(kind or " ", line[1:]) for kind, line in zip(kinds, body, strict=True)
                  if kind != "\\"]
    diff.last_counts = None if wanted is None else (*wanted, seen_old, seen_new)
    return at + 1 + len(body)


def _hunk_header(header_line: str, at: int) -> tuple[Hunk, tuple[int, int] | None] | None:
    """The hunk a ``@@`` line opens, and the old/new line counts it promises (None when the
    header has no ranges); None for a line number of more than _MAX_DIGITS digits (no file
    has that many lines, and int() raises past 4,300 digits)."""
    m = _HUNK_HEADER_RE.match(header_line)
    # Positional: the keyword form costs about twice as much, per hunk of a big response.
    if not m:
        return Hunk(header_line[2:].strip().strip("@").strip(), [], None, None, False, at), None
    if m.end(1) - m.start(1) > _MAX_DIGITS and any(  # the usual header is shorter: no test
            len(g) > _MAX_DIGITS for g in m.groups()[1:] if g is not None):
        return None
    ranges, old_start, old_count, new_count = m.groups()
    wanted = (1 if old_count is None else int(old_count),
              1 if new_count is None else int(new_count))
    return Hunk(ranges, [], None, int(old_start), False, at), wanted


def _body_end(lines: list[str], start: int) -> int:
    """The line after the longest run of body-like lines from ``start`` on, without the
    empty lines that end it (see the module docstring)."""
    n = len(lines)
    i = end = start
    while i < n:
        line = lines[i]
        if line:
            first = line[0]
            if first not in " -+\\" or (first == "-" and line[:4] == "--- " and i + 1 < n
                                           and lines[i + 1][:4] == "+++ "):
                break
            end = i + 1
        i += 1
    return end


def _cut_where_counts_are_met(body: list[str], kinds: list[str], wanted: tuple[int, int],
                              first_line: int, diff: _FileDiff) -> None:
    """Counts met exactly at an empty line with more lines after it: trust them there, cut
    ``body`` and ``kinds`` (in place) at that line, and warn about what was left out."""
    seen_old = seen_new = 0
    for k, kind in enumerate(kinds):
        if not kind and wanted == (seen_old, seen_new):
            left_out = len(body) - k - kinds[k:].count("")
            diff.warnings.append(ParseWarning(first_line + k, (
                f"unified diff: the hunk ends here as its header's counts say; {left_out} "
                "diff-like line(s) after this empty line are not part of it"
            )))
            del body[k:], kinds[k:]
            while kinds and not kinds[-1]:  # empty lines before the cut are no content
                del body[-1], kinds[-1]
            return
        if kind != "\\":
            seen_old += kind != "+"
            seen_new += kind != "-"


def _read_file(lines: list[str], start: int, max_lines: int | None) -> _FileDiff:
    """Read one file's diff starting at a ``diff --git`` or ``---`` line; past ``max_lines``
    lines of hunks the rest of its hunks is skipped over, not kept."""
    diff = _FileDiff(start=start, end=start + 1)
    i = start
    n = len(lines)
    if lines[i].startswith("diff --git "):
        i = diff.end = _read_git_header(lines, i, diff)
    if i + 1 < n and lines[i].startswith("--- ") and lines[i + 1].startswith("+++ "):
        diff.old, diff.new = _header_path(lines[i][4:]), _header_path(lines[i + 1][4:])
        diff.end = _read_hunks(lines, i + 2, diff, max_lines)
    return diff


def _read_git_header(lines: list[str], at: int, diff: _FileDiff) -> int:
    """Read ``diff --git`` and its extended header lines; returns the line after them."""
    diff.git_line = lines[at]
    i = at + 1
    n = len(lines)
    while i < n and lines[i].startswith(_GIT_EXTENDED):
        line = lines[i]
        key = next(k for k in _GIT_EXTENDED if line.startswith(k)).strip()
        diff.git[key] = line[len(key):].strip()
        i += 1
    return i


def _read_hunks(lines: list[str], at: int, diff: _FileDiff, max_lines: int | None) -> int:
    """Read the hunks from ``at`` on (empty lines may separate them); returns the line after
    the last one (``at`` when there is none)."""
    n = len(lines)
    i = end = at
    while i < n and lines[i].startswith("@@"):
        if max_lines is not None and end - at > max_lines:
            return _skip_hunks(lines, i, diff, max_lines)
        i = end = _read_hunk(lines, i, diff)
        while i < n and not lines[i]:
            i += 1  # empty lines between two hunks
        if i < n and not lines[i].startswith("@@"):
            i = _past_text_between_hunks(lines, i, diff)
    return end


_MAX_GAP = 12  # lines of text between two hunks of one file that are looked past
# Lines that end a file's diff for good: fences, another file or format.
_NOT_BETWEEN_HUNKS = re.compile(
    r"(?:`{3,}|~{3,}|--- |\+\+\+ |diff --git |\*\*\* |## File |«««|<{5}|edit[ \t]*\{)")


def _past_text_between_hunks(lines: list[str], at: int, diff: _FileDiff) -> int:
    """The next hunk header when a few lines of text (prose between two hunks, as models
    write) stand between the hunk before ``at`` and it, with a warning naming the text
    ignored; else ``at`` (the diff ends there)."""
    for k in range(at, min(at + _MAX_GAP, len(lines))):
        line = lines[k]
        if _HUNK_HEADER_RE.match(line):
            skipped = [text for text in lines[at:k] if text.strip()]
            diff.warnings.append(ParseWarning(at, (
                f"unified diff: {len(skipped)} line(s) of text between two hunks are not "
                f"part of the diff and are ignored: {skipped[0][:60]!r}; the hunks after "
                "them are read")))
            return k
        if line.startswith("@@") or _NOT_BETWEEN_HUNKS.match(line):
            return at
    return at


def settled_by(lines: list[str], end: int) -> int | None:
    """For a file's diff ending at line ``end``: the line before which the text decides that
    it ends there (more text could add a hunk after up to _MAX_GAP lines of text); None when
    the text so far does not tell. The last line may be partial: it decides nothing."""
    complete = len(lines) - 1
    at = end
    while at < complete and not lines[at]:
        at += 1
    for k in range(at, min(at + _MAX_GAP, complete)):
        line = lines[k]
        if line.startswith("@@") or _NOT_BETWEEN_HUNKS.match(line):
            # A line ends the diff once it is whole; "--- " only over a "+++ " line (else it
            # is a removed line "-- ...", at the end of the body).
            return k + 2 if line.startswith("--- ") else k + 1
    return at + _MAX_GAP if at + _MAX_GAP <= complete else None


def _skip_hunks(lines: list[str], at: int, diff: _FileDiff, max_lines: int) -> int:
    """The line after the hunks from ``at`` on, read without keeping them: the file's diff
    is past ``max_lines`` and is skipped."""
    diff.hunks.clear()
    diff.problem = diff.problem or (
        f"its hunks run over more than {max_lines} lines (maxBlockLines); the rest is not read")
    n = len(lines)
    i = end = at
    while i < n and lines[i].startswith("@@"):
        i = end = _body_end(lines, i + 1)
        while i < n and not lines[i]:
            i += 1
    return end


# The problems of a diff the response ends inside: pending, in a response being written.
_ENDS_INSIDE = "the response ends inside this diff (truncated?)"
_ENDS_AFTER_HEADER = "the response ends after this git header (truncated?)"


def _problem_warning(diff: _FileDiff, problem: str) -> ParseWarning:
    """The warning for a diff that is skipped; a pending one names the diff's file."""
    message = f"unified diff: {problem}; skipped"
    if problem is not _ENDS_INSIDE and problem is not _ENDS_AFTER_HEADER:
        return ParseWarning(diff.start, message)
    old, new = _sides(diff)
    paths = _git_paths(diff.git_line) if diff.git_line else None
    file = old or new or (paths[0] if paths else None)
    return ParseWarning(diff.start, message, True, FORMAT, file)


def _block(diff: _FileDiff, lines: list[str]) -> tuple[Block | None, str | None]:
    """The block for one file's diff, or the reason it is skipped."""
    git = diff.git
    if diff.problem is not None:
        return None, diff.problem
    if "Binary files" in git or "GIT binary patch" in git:
        return None, "binary diffs cannot be applied"
    block = new_block(FORMAT, "", "update", diff.start, diff.end,
                      "\n".join(lines[diff.start:diff.end]))
    at_end = only_blank_from(lines, diff.end)
    if diff.old is None:  # git header only: rename, empty create/delete, mode change
        problem = _git_header_only(diff, block, at_end)
    else:
        problem = _file_op(diff, block, at_end)
    if problem is not None:
        return None, problem
    if at_end and diff.old is not None and _looks_truncated(diff, block, lines):
        return None, _ENDS_INSIDE
    for hunk in diff.hunks:
        if not hunk.lines:
            return None, f"the hunk '@@ {hunk.header} @@' has no lines"
    return block, None


def _git_header_only(diff: _FileDiff, block: Block, at_end: bool) -> str | None:
    """Fill in ``block`` from a git header with no ``---``/``+++`` lines (a rename, an empty
    file created or deleted); the reason it is skipped, if it is."""
    git = diff.git
    paths = _git_paths(diff.git_line)
    if "rename from" in git and "rename to" in git:
        block.op, block.file, block.move_to = "rename", git["rename from"], git["rename to"]
    elif paths and "new file mode" in git:
        block.op, block.file = "create", paths[1]
    elif paths and "deleted file mode" in git:
        block.op, block.file = "delete", paths[0]
    else:
        return "a git header with no changes to apply (mode change only?)"
    if at_end and block.op == "create":
        return _ENDS_AFTER_HEADER
    return None


def _sides(diff: _FileDiff) -> tuple[str | None, str | None]:
    """The old and new paths (None for /dev/null), git's rename header winning."""
    if "rename from" in diff.git and "rename to" in diff.git:
        return diff.git["rename from"], diff.git["rename to"]
    old = None if diff.old == DEV_NULL else _strip_prefix(diff.old or "", "a/")
    new = None if diff.new == DEV_NULL else _strip_prefix(diff.new or "", "b/")
    return old, new


def _file_op(diff: _FileDiff, block: Block, at_end: bool) -> str | None:
    """Fill in ``block``'s op, paths and hunks from the ``---``/``+++`` lines; the reason it
    is skipped, if it is."""
    old, new = _sides(diff)
    if old is None and new is None:
        return "both sides are /dev/null"
    if old is None:
        block.op, block.file = "create", new or ""
        block.new = [text for hunk in diff.hunks for text in hunk.new]
    elif new is None:
        block.op, block.file = "delete", old
    else:
        block.file = old
        if new != old:
            block.move_to = new
        if diff.hunks:
            block.hunks = diff.hunks
        elif block.move_to is not None:
            block.op = "rename"
        elif not at_end:
            return "no hunks after the '---'/'+++' lines"
    return None


def _looks_truncated(diff: _FileDiff, block: Block, lines: list[str]) -> bool:
    """For a file diff at the very end of the response: could the stream have been cut?"""
    if not diff.hunks:  # hunks may follow (a '+++ b/sr' still being written is a move too)
        return block.op != "delete"
    if not diff.hunks[-1].lines:
        return True  # a hunk header, its lines still to come
    ends_with_newline = diff.end < len(lines)  # its last line was followed by "\n"
    counts = diff.last_counts
    if counts is None:
        return not ends_with_newline
    wanted_old, wanted_new, seen_old, seen_new = counts
    return not (ends_with_newline and seen_old >= wanted_old and seen_new >= wanted_new)


def find_blocks(text: str, lines: list[str], markers: MarkerLines) -> list[ParsedSpan]:
    """Every file of every unified diff in the response."""
    n = len(lines)
    candidates = [line for line, _ in markers.starts["git_headers"]] + [
        line for line, _ in markers.starts["minus_lines"]
        if line + 1 < n and lines[line + 1].startswith("+++ ")
    ]
    out: list[ParsedSpan] = []
    next_free_line = 0
    for start in sorted(candidates):
        if start < next_free_line:
            continue  # inside the previous file's diff
        diff = _read_file(lines, start, markers.max_block_lines)
        if diff.old is None and not diff.git:
            next_free_line = start + 1
            continue  # "diff --git" alone, e.g. quoted in prose
        block, problem = _block(diff, lines)
        span = ParsedSpan(start, diff.end, [], diff.warnings)
        if block is not None:
            span.blocks.append(block)
        else:
            span.warnings.append(_problem_warning(diff, problem))
        out.append(span)
        next_free_line = diff.end
    if text.startswith("@@") or "\n@@" in text:  # (C searches: most responses have none)
        out += headerless_hunks(text, lines)
    return out


def _range(start: int, count: int) -> str:
    return f"{start},{count}"


def _rendered_hunks(block: Block) -> list[str]:
    """An update's hunks, each with a header whose ranges its lines make true."""
    out: list[str] = []
    shift = 0
    for hunk in block_hunks(block):
        old_count, new_count = len(hunk.old), len(hunk.new)
        old_start = 1 if hunk.old_start is None else hunk.old_start
        first_old = old_start if old_count else old_start + 1
        first_new = first_old + shift
        new_start = first_new if new_count else first_new - 1
        out.append(f"@@ -{_range(old_start, old_count)} +{_range(new_start, new_count)} @@")
        out.extend(render_body(hunk))
        shift += new_count - old_count
    return out


def render(block: Block) -> str:
    """The block as a ``git diff`` of one file in a ```` ```diff ```` fence.

    Hunk headers get counts computed from the lines (``old_start`` kept, 1 when unknown), so
    a rendered diff is always consistent. Raises ValueError for an append.
    """
    old_name = "a/" + block.file
    new_name = "b/" + (block.move_to or block.file)
    out: list[str] = []
    if block.move_to is not None:
        out += [f"diff --git {old_name} {new_name}", f"rename from {block.file}",
                f"rename to {block.move_to}"]
    if block.op == "create":
        out += [f"--- {DEV_NULL}", f"+++ {new_name}"]
        if block.new:
            out.append(f"@@ -0,0 +1,{len(block.new)} @@")
            out.extend("+" + line for line in block.new)
    elif block.op == "delete":
        out += [f"--- {old_name}", f"+++ {DEV_NULL}"]
    elif block.op == "update":
        out += [f"--- {old_name}", f"+++ {new_name}", *_rendered_hunks(block)]
    elif block.op != "rename":
        raise ValueError(f"unified-diff cannot express a {block.op!r} block")
    fence = backtick_fence_for(out)
    return lines_to_text([fence + "diff", *out, fence])
