"""hunk-patch blocks: seed 003's ``edit`` tool calls written into a response.

Grammar (one tool call = one block)::

    call-line   := "edit" WS? JSON-OBJECT      (at the start of a line; may run over lines)
    json-fence  := FENCE-OPEN("json") JSON-VALUE* FENCE-CLOSE     (opener at column 0)
                   (objects, or arrays of objects; only objects with "path" and "op" count)
    object      := {"path": str, "op": "create" | "update" | "delete",
                    "diff"?: str, "rename"?: str}

    diff        := hunk+                              (op "update")
    hunk        := header LF body
    header      := "@@"                               bare: anchor None, header ""
                 | "@@ " ANCHOR                       anchor = header = text after "@@ "
                 | "@@ -l,n +l,n @@" [HEADING]        unified slip: bare, or anchor = HEADING
    body        := body-line+                         at least one "-" or "+" line
    body-line   := " " text | "-" text | "+" text | ""  ("" = empty context line, a slip)

Blocks:
- ``update`` → op "update" with ``hunks``; with ``rename`` also ``move_to``. ``rename``
  without ``diff`` (or with an empty one) → op "rename".
- ``create`` → op "create"; ``new`` = the lines of ``diff``; ``create_text`` = ``diff`` with a
  final newline added when it lacks one (``""`` stays ``""``).
- ``delete`` → op "delete" (``diff`` is ignored).

Decisions beyond the seed (see also :mod:`.hunks`):
- Body lines before the first ``@@`` form a bare hunk (Codex accepts a missing first header).
- Empty body lines are empty context lines; trailing ones are dropped.
- A tool call that is not valid JSON, lacks ``path``/``op``, names an unknown op, has an
  ``update`` without a diff, a diff line with another prefix, or a hunk without a ``+``/``-``
  line is reported as a warning at its response line and skipped. The JSON must be complete,
  so a tool call cut off by a truncated stream is never applied.
- Text in a ```` ```json ```` fence that is not JSON, or JSON without tool-call objects, is
  not hunk-patch and is left alone (no warning) unless it mentions both ``"path"`` and
  ``"op"`` and fails to decode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import suppress

from ..model import Block, Hunk, ParseWarning, lines_to_text, text_to_lines
from .hunk_syntax import (
    PLAIN_HUNKS,
    BodyBuilder,
    anchor_header,
    anchor_header_line,
    block_hunks,
    has_change,
    plain_hunks,
    render_body,
)
from .marker_scan import MarkerLines
from .parsed_span import ParsedSpan, new_block
from .response_text import LineCounter, closing_fence, line_start

FORMAT = "hunk-patch"
OPS = ("create", "update", "delete")

_EDIT_CALL = re.compile(r"edit[ \t]*(?=\{)")
_JSON_FENCE = re.compile(r"(`{3,}|~{3,})[ \t]*(?:json|JSON)\w*[ \t]*$", re.MULTILINE)
_JSON_SPACE = re.compile(r"[ \t\n\r]*")


class _TooLongNumber:
    """A JSON integer of more digits than Python converts (4,300): no field of a tool call
    is a number, so it is kept as this marker rather than failing the whole decode."""

    __slots__ = ()


_TOO_LONG_NUMBER = _TooLongNumber()
_MAX_INT_DIGITS = 4000


def _bounded_int(digits: str) -> int | _TooLongNumber:
    return _TOO_LONG_NUMBER if len(digits) > _MAX_INT_DIGITS else int(digits)


# parse_int: int() raises ValueError past 4,300 digits, which lost every call of the format.
_DECODER = json.JSONDecoder(parse_int=_bounded_int)


class _CallError(Exception):
    """A tool call that cannot become a block; the message becomes the warning."""


def _check_size(diff: str, max_lines: int | None) -> None:
    """Raise _CallError for a diff of more lines than ``max_lines`` (counted in C, before a
    million tiny hunks become a million objects)."""
    if max_lines is not None:
        count = diff.count("\n") + 1
        if count > max_lines:
            raise _CallError(f"the diff has {count} lines, more than the limit of {max_lines} "
                             "(maxBlockLines)")


def _check_paths(path: str, rename: str | None) -> None:
    """Raise _CallError when a path holds a lone surrogate (a ``"\\ud800"`` escape): no
    file system can name it, and resolving it raised deep in planning, losing every block.
    (The text of a diff may hold one: it is reported escaped wherever it is shown.)"""
    for name, value in (("path", path), ("rename", rename)):
        if value is not None and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise _CallError(
                    f'"{name}" holds a lone surrogate escape (\\u{ord(value[exc.start]):04x}): '
                    "not valid Unicode") from None


def _parse_diff(diff: str) -> list[Hunk]:
    """The hunks of an update's diff; raises _CallError when the diff is malformed."""
    tidy = diff if diff.endswith("\n") else diff + "\n"
    hunks = plain_hunks(tidy) if PLAIN_HUNKS.fullmatch(tidy) else _parse_diff_lines(diff)
    if not hunks:
        raise _CallError("the update's diff has no hunks")
    for number, hunk in enumerate(hunks, start=1):
        if not has_change(hunk):
            raise _CallError(f"hunk {number} of the diff has no '-' or '+' line")
    return hunks


def _parse_diff_lines(diff: str) -> list[Hunk]:
    """The diff's state machine, line by line (see the grammar at the top)."""
    hunks: list[Hunk] = []
    body: BodyBuilder | None = None
    for number, line in enumerate(diff.split("\n"), start=1):
        if line.startswith("@@"):
            anchor, header = anchor_header(line[2:])
            body = BodyBuilder(Hunk(header=header, anchor=anchor))
            hunks.append(body.hunk)
        elif not line:
            if body is not None:
                body.add_blank()
        elif line[0] in " -+":
            if body is None:  # no header before the first body line: a bare hunk
                body = BodyBuilder(Hunk(header=""))
                hunks.append(body.hunk)
            body.add(line[0], line[1:])
        else:
            raise _CallError(
                f"diff line {number} does not start with ' ', '-', '+' or '@@': {line[:60]!r}"
            )
    return hunks


def _block_from_call(call: object, line: int, end_line: int, raw: str,
                     max_lines: int | None) -> Block:
    """The block one decoded tool call describes; raises _CallError when it is unusable."""
    path, op, diff, rename = _call_fields(call)
    _check_paths(path, rename)
    if diff is not None and op != "delete":
        _check_size(diff, max_lines)
    block = new_block(FORMAT, path, op, line, end_line, raw)
    if diff is not None:  # JSON strings may carry "\r\n"; the model works in LF lines
        diff = diff.replace("\r\n", "\n").replace("\r", "\n")
    if op == "create":
        if diff is None:
            raise _CallError('create without "diff" (the file content)')
        block.new = text_to_lines(diff)
        block.create_text = diff if not diff or diff.endswith("\n") else diff + "\n"
    elif op == "update":
        if rename is not None:
            block.move_to = rename
        if not diff:
            if rename is None:
                raise _CallError('update without "diff"')
            block.op = "rename"
        else:
            block.hunks = _parse_diff(diff)
            for hunk in block.hunks:
                hunk.response_line = line
    return block


def _call_fields(call: object) -> tuple[str, str, str | None, str | None]:
    """A tool call's path, op (lower case), diff and rename, checked and stripped; raises
    _CallError naming the first that is missing or of the wrong type."""
    if not isinstance(call, dict):
        raise _CallError("the tool call is not a JSON object")
    path, op = call.get("path"), call.get("op")
    diff, rename = call.get("diff"), call.get("rename")
    if not isinstance(path, str) or not path.strip():
        raise _CallError('the tool call has no "path" string')
    if not isinstance(op, str):
        raise _CallError('the tool call has no "op" string')
    if diff is not None and not isinstance(diff, str):
        raise _CallError('"diff" is not a string')
    if rename is not None and (not isinstance(rename, str) or not rename.strip()):
        raise _CallError('"rename" is not a path string')
    op = op.strip().lower()
    if op not in OPS:
        raise _CallError(f'unknown op {op!r} (expected "create", "update" or "delete")')
    if rename is not None and op != "update":  # was silently ignored: the move never happened
        raise _CallError(f'"rename" goes with op "update" only, not {op!r} (to move a file: '
                         'op "update" with "rename")')
    return path.strip(), op, diff, None if rename is None else rename.strip()


def _read_call(call: object, line: int, end_line: int, raw: str,
               max_lines: int | None) -> tuple[list[Block], list[ParseWarning]]:
    try:
        return [_block_from_call(call, line, end_line, raw, max_lines)], []
    except _CallError as exc:
        return [], [ParseWarning(line, f"hunk-patch tool call: {exc}; skipped")]


def _decode_call(text: str, start: int, window_end: int) -> tuple[object, int]:
    """The JSON value at ``start`` and the offset just after it, decoded from the window
    ``text[start:window_end]`` (errors are those of that window).

    A call nearly always fits on its own line, so that line is tried first: copying the
    whole window (up to the next ``edit`` line, often several blocks further) for every call
    cost as much as copying the response once more. A value complete within the line decodes
    the same in the window, since the line's end ends any number or literal too.
    """
    line_end = text.find("\n", start, window_end)
    if line_end >= 0:
        try:
            call, end = _DECODER.raw_decode(text[start:line_end])
            return call, start + end
        except json.JSONDecodeError:
            pass  # spans lines, or is broken: the window decides (and words the error)
    call, end = _DECODER.raw_decode(text[start:window_end])
    return call, start + end


def _edit_lines(text: str, starts: list[tuple[int, int]], counter: LineCounter,
                max_lines: int | None) -> Iterator[ParsedSpan]:
    """``edit {...}`` tool calls at the start of a line.

    Each call is decoded from its own window, ending where the next ``edit`` line starts (a
    JSON value cannot hold a line starting with ``edit``: strings do not span lines). json
    counts the lines up to an error's position from the start of the text it was given, so
    decoding from the whole response made every malformed call cost the length of the text
    before it: quadratic in the number of malformed calls.
    """
    for i, (line, offset) in enumerate(starts):
        m = _EDIT_CALL.match(text, offset)
        if m is None:
            continue
        counter.seek(offset, line)
        window_start = m.end()
        window_end = starts[i + 1][1] if i + 1 < len(starts) else len(text)
        try:
            call, end = _decode_call(text, window_start, window_end)
        except json.JSONDecodeError as exc:
            pos = window_start + exc.pos
            column = pos - line_start(text, pos) + 1
            warning = ParseWarning(
                line, f"hunk-patch tool call is not valid JSON ({exc.msg}, column {column}; "
                "truncated?); skipped")
            if window_end == len(text) and _cut_short(text, window_start, exc):
                _mark_pending(warning, text[window_start:pos])
            yield ParsedSpan(line, line + 1, warnings=[warning])
            continue
        except (RecursionError, ValueError) as exc:  # hostile input: nested thousands deep
            yield ParsedSpan(line, line + 1, warnings=[ParseWarning(
                line, f"hunk-patch tool call cannot be read ({_unreadable(exc)}); skipped")])
            continue
        end_line = counter.line_of(end - 1) + 1
        raw = text[offset:end]
        blocks, warnings = _read_call(call, line, end_line, raw, max_lines)
        yield ParsedSpan(line, end_line, blocks, warnings)


def _cut_short(text: str, start: int, exc: json.JSONDecodeError) -> bool:
    """Whether a call's JSON failed only because the text ran out (nothing but whitespace
    after the error, or a string still open: strings cannot span lines)."""
    return (exc.msg.startswith("Unterminated string")
            or not text[start + exc.pos:].strip())


_PATH_FIELD = re.compile(r'"path"\s*:\s*"((?:[^"\\\n]|\\.)*)"')


def _mark_pending(warning: ParseWarning, partial: str) -> None:
    """Mark the warning about a tool call the response ends inside as pending, naming its
    file when the part written so far holds a complete ``"path"`` string."""
    warning.pending, warning.format = True, FORMAT
    m = _PATH_FIELD.search(partial)
    if m:
        with suppress(ValueError):  # an escape json refuses: no file named
            warning.file = json.loads(f'"{m.group(1)}"').strip() or None


def _unreadable(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply to read"
    return str(exc)[:100]


class _NotJson(Exception):
    """Fence content that does not start like JSON: not a hunk-patch fence at all."""


def _json_values(text: str, start: int, end: int) -> Iterator[tuple[int, int, object]]:
    """``(offset, end, value)`` for each top-level JSON value between ``start`` and ``end``;
    the elements of a top-level array come one by one. Raises _NotJson when the content does
    not start with ``{`` or ``[``, ValueError (JSONDecodeError included) when it is not JSON.

    The fence's content is decoded as its own string: json counts the lines before an
    error's position from the start of the string, which for the whole response made many
    broken fences quadratic.
    """
    content = text[start:end]
    size = len(content)

    def skip_space(pos: int) -> int:
        return _JSON_SPACE.match(content, pos, size).end()

    pos = skip_space(0)
    if pos < size and content[pos] not in "{[":
        raise _NotJson
    while pos < size:
        if content[pos] == "{":
            value, value_end = _DECODER.raw_decode(content, pos)
            yield start + pos, start + value_end, value
            pos = skip_space(value_end)
        elif content[pos] == "[":
            pos = skip_space(pos + 1)
            closed = content.startswith("]", pos)
            while not closed:
                value, value_end = _DECODER.raw_decode(content, pos)
                yield start + pos, start + value_end, value
                pos = skip_space(value_end)
                if not content.startswith((",", "]"), pos) or pos >= size:
                    raise ValueError("expected ',' or ']' in a JSON array")
                closed = content[pos] == "]"
                if not closed:
                    pos = skip_space(pos + 1)
            pos = skip_space(pos + 1)
        else:
            raise ValueError("expected a JSON object or array")


def _json_fences(text: str, starts: list[tuple[int, int]], counter: LineCounter,
                 max_lines: int | None) -> Iterator[ParsedSpan]:
    """Tool-call objects in ```` ```json ```` fences (one span per fence that holds some)."""
    for start_line, offset, content_start, close in _fences(text, starts):
        content_end, fence_end = (close.start(), close.end()) if close else (len(text),) * 2
        counter.seek(offset, start_line)
        span = _fence_span(text, content_start, content_end, start_line, counter, max_lines)
        if span is not None and close is None:
            for warning in span.warnings:
                if warning.message == _FENCE_NOT_JSON:
                    _mark_pending(warning, text[content_start:content_end])
        if span is not None:
            span.end = counter.line_of(fence_end) + 1
            yield span


_FENCE_NOT_JSON = "hunk-patch tool call in a json fence is not valid JSON (truncated?); skipped"


def _fences(text: str, starts: list[tuple[int, int]]) -> Iterator[
        tuple[int, int, int, re.Match[str] | None]]:
    """``(line, offset, content offset, closing fence match)`` of each json fence read: its
    opener at the start of a line, not inside the fence before (no match: not closed)."""
    search_from = 0
    for start_line, offset in starts:
        m = _JSON_FENCE.match(text, offset)
        if m is None or offset < search_from:
            continue
        fence = m.group(1)
        close = closing_fence(fence[0], len(fence)).search(text, m.end() + 1)
        search_from = close.end() if close else len(text)
        yield start_line, offset, m.end() + 1, close


def json_fence_ends(text: str, starts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``(opener line, offset just after the closing fence)`` of each json fence read, -1
    for one not closed: where a re-parse of a response's tail may start is outside them."""
    return [(line, -1 if close is None else close.end())
            for line, _, _, close in _fences(text, starts)]


def _fence_span(text: str, content_start: int, content_end: int, start_line: int,
                counter: LineCounter, max_lines: int | None) -> ParsedSpan | None:
    """The tool calls of one json fence's content, or a warning when it looks like calls but
    is not valid JSON; None when it holds no call (its end is the caller's to set)."""
    try:
        calls = [(offset, value_end, value) for offset, value_end, value
                 in _json_values(text, content_start, content_end)
                 if isinstance(value, dict) and "path" in value and "op" in value]
    except _NotJson:
        return None  # e.g. `edit {...}` lines in a json fence: _edit_lines reads those
    except (ValueError, RecursionError):  # JSONDecodeError included; or nested too deeply
        content = text[content_start:content_end]
        if '"path"' in content and '"op"' in content:
            return ParsedSpan(start_line, 0, warnings=[ParseWarning(start_line, _FENCE_NOT_JSON)])
        return None
    if not calls:
        return None
    span = ParsedSpan(start_line, 0)
    for call_offset, value_end, call in calls:
        line = counter.line_of(call_offset)
        blocks, warnings = _read_call(
            call, line, counter.line_of(value_end - 1) + 1, text[call_offset:value_end],
            max_lines)
        span.blocks.extend(blocks)
        span.warnings.extend(warnings)
    return span


def find_blocks(text: str, lines: list[str], markers: MarkerLines) -> list[ParsedSpan]:
    """Every hunk-patch tool call of the response (and every malformed one, as a warning).

    A json fence's span starts before the ``edit`` lines it may hold, so when both match,
    parse_response keeps the fence.
    """
    limit = markers.max_block_lines
    spans = list(_edit_lines(text, markers.starts["edit_calls"], LineCounter(text), limit))
    spans.extend(_json_fences(text, markers.starts["json_fences"], LineCounter(text), limit))
    return spans


def _diff_text(block: Block) -> str:
    out: list[str] = []
    for hunk in block_hunks(block):
        out.append(anchor_header_line(hunk))
        out.extend(render_body(hunk))
    return lines_to_text(out)


def render(block: Block) -> str:
    """The block as one ``edit {...}`` line. Raises ValueError for ops it cannot express."""
    call: dict[str, str] = {"path": block.file}
    if block.op == "delete":
        call["op"] = "delete"
    elif block.op == "create":
        call["op"] = "create"
        call["diff"] = (block.create_text if block.create_text is not None
                        else lines_to_text(block.new))
    elif block.op in ("update", "rename"):
        call["op"] = "update"
        if block.move_to is not None:
            call["rename"] = block.move_to
        if block.op == "update":
            call["diff"] = _diff_text(block)
    else:
        raise ValueError(f"hunk-patch cannot express a {block.op!r} block")
    return "edit " + json.dumps(call, ensure_ascii=False) + "\n"
