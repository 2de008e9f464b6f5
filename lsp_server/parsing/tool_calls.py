"""Agents' tool calls in a response: the JSON values that may hold them, found and decoded
with bounded work (docs/formats.md "Agents' tool calls"), for the ``str-replace`` and
``apply-patch-call`` parsers.

Where a JSON value is looked for, only when the response holds one of the caller's
*trigger* strings (key names such as ``old_string``; a plain ``str.find``, so a response
without any costs nothing more):

- at a line start (after up to 8 spaces or 4 tabs): ``{`` or ``[`` — a JSONL line, a
  pretty-printed object, the content of a json fence. Its own line is decoded first; when
  that fails, the text up to the first line that starts, at the same indentation, with the
  closing ``}`` or ``]`` (where a pretty-printer puts it);
- on a line holding a trigger outside every value found so far (a log line, ``data: {...}``):
  from each of its first ``{`` characters, that line only.

Bounds: a window is decoded only when it holds a trigger; every value decoded or window
that failed is not entered again by a later candidate (so the work is linear in the text,
not in candidates times text), and each window is decoded as its own string (json counts
the lines before an error's position from the start of what it was given).

Inside a decoded value, :func:`walk_objects` visits every object in document order and reads
the JSON *strings* that tool calls carry as their arguments (``"arguments": "{...}"`` of
OpenAI function calls, an ``input`` given as a string), nested at most a few times.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..model import Block, ParseWarning
from .parsed_span import ParsedSpan
from .response_text import LineCounter


class _TooLongNumber:
    """A JSON integer of more digits than Python converts: kept as this marker so that the
    rest of the value still decodes (no field of a tool call is such a number)."""

    __slots__ = ()


_TOO_LONG_NUMBER = _TooLongNumber()


def _bounded_int(digits: str) -> int | _TooLongNumber:
    return _TOO_LONG_NUMBER if len(digits) > 4000 else int(digits)


_DECODER = json.JSONDecoder(parse_int=_bounded_int)
_CANDIDATE = re.compile(r"^( {0,8}|\t{1,4})[{\[]", re.MULTILINE)
_MAX_BRACES_PER_LINE = 4  # log lines: '{' characters tried on one line
_MAX_STRING_DEPTH = 3  # arguments strings holding arguments strings
_ARGUMENT_KEYS = ("arguments", "input", "args", "parameters")


@dataclass(slots=True)
class JsonValue:
    """A JSON value decoded from ``text[start:end]``."""

    start: int
    end: int
    value: object


@dataclass(slots=True)
class BrokenJson:
    """A window holding a trigger that is not valid JSON: ``message`` says why; ``cut_short``
    when it failed only because the text ended (a response still being written)."""

    start: int
    end: int
    message: str
    cut_short: bool


Found = JsonValue | BrokenJson


def trigger_offsets(text: str, triggers: tuple[str, ...]) -> list[int]:
    """Sorted offsets of every occurrence of the ``triggers`` in ``text`` (C searches)."""
    found: list[int] = []
    for trigger in triggers:
        pos = text.find(trigger)
        while pos >= 0:
            found.append(pos)
            pos = text.find(trigger, pos + len(trigger))
    found.sort()
    return found


def _holds(triggers: list[int], start: int, end: int) -> bool:
    i = bisect_left(triggers, start)
    return i < len(triggers) and triggers[i] < end


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _decode(text: str, start: int, end: int) -> tuple[object, int] | BrokenJson:
    """The JSON value at ``start`` decoded from ``text[start:end]``, and the offset after it."""
    window = text[start:end]
    try:
        value, used = _DECODER.raw_decode(window)
    except json.JSONDecodeError as exc:
        cut = exc.msg.startswith("Unterminated string") or not window[exc.pos:].strip()
        return BrokenJson(start, end, f"{exc.msg} at line {exc.lineno} column {exc.colno}",
                          cut and end == len(text))
    except (RecursionError, ValueError) as exc:  # nested thousands deep, or hostile
        message = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:80]
        return BrokenJson(start, end, message, False)
    return value, start + used


class _Closers:
    """The first line at or after an offset starting with ``indent`` + ``}`` or ``]``, per
    indentation, remembered: candidates come in order, so each search starts where the last
    one for that indentation ended (linear in the text for each indentation)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.known: dict[str, tuple[int, int]] = {}  # indent -> (searched from, found at)

    def after(self, indent: str, pos: int) -> int:
        """Offset just after the closer line (its end), or -1 when none follows."""
        searched_from, found = self.known.get(indent, (-1, -1))
        if searched_from < 0 or pos < searched_from or (found >= 0 and pos > found):
            pattern = re.compile("^" + re.escape(indent) + r"[}\]]", re.MULTILINE)
            m = pattern.search(self.text, pos)
            found = m.start() if m else -1
            self.known[indent] = (pos, found)
        return -1 if found < 0 else _line_end(self.text, found)


def json_values(text: str, triggers: tuple[str, ...]) -> list[Found]:
    """The JSON values (and broken ones) of ``text`` that may hold tool calls: those whose
    text holds one of ``triggers``, in text order (see the module docstring)."""
    offsets = trigger_offsets(text, triggers)
    if not offsets:
        return []
    found = _line_start_values(text, offsets)
    found += _values_in_lines(text, offsets, found)
    found.sort(key=lambda f: f.start)
    return found


def _line_start_values(text: str, offsets: list[int]) -> list[Found]:
    found: list[Found] = []
    taken_to = 0  # nothing before this offset is read again (a value found)
    reader = _WindowReader(text, offsets)
    for m in _CANDIDATE.finditer(text):
        start = m.end() - 1
        if start < taken_to:
            continue
        result = reader.read(start, m.group(1))
        if isinstance(result, JsonValue):
            taken_to = result.end
        if result is not None:
            found.append(result)  # a broken one's inner lines are still read one by one
    return found


class _WindowReader:
    """A line-start candidate decoded as its own line, then up to its closing line (at most
    once per window: a wider window that failed is not tried again from inside it)."""

    def __init__(self, text: str, offsets: list[int]) -> None:
        self.text = text
        self.offsets = offsets
        self.windows_to = 0
        self.closers = _Closers(text)

    def read(self, start: int, indent: str) -> Found | None:
        text = self.text
        line_end = _line_end(text, start)
        result = _decode(text, start, line_end) if _holds(self.offsets, start, line_end) else None
        if isinstance(result, tuple):
            return JsonValue(start, result[1], result[0])
        if start < self.windows_to:
            return None  # inside a wider window that failed: reported there
        close = self.closers.after(indent, line_end + 1) if line_end < len(text) else -1
        end = len(text) if close < 0 else close
        if end > line_end and _holds(self.offsets, start, end):
            result = _decode(text, start, end)
            self.windows_to = end
        if isinstance(result, tuple):
            return JsonValue(start, result[1], result[0])
        return result


def _values_in_lines(text: str, offsets: list[int], found: list[Found]) -> list[Found]:
    """Values starting inside a line (log lines) that holds a trigger outside every value
    already found."""
    covered = sorted((f.start, f.end) for f in found if isinstance(f, JsonValue))
    starts = [s for s, _ in covered]
    out: list[Found] = []
    done_to = 0
    for offset in offsets:
        if offset < done_to:
            continue
        i = bisect_left(starts, offset + 1) - 1
        if i >= 0 and covered[i][1] > offset:
            done_to = covered[i][1]
            continue
        line_start = text.rfind("\n", 0, offset) + 1
        line_end = _line_end(text, offset)
        done_to = line_end
        value = _first_value_in_line(text, line_start, line_end, offsets)
        if value is not None:
            out.append(value)
            done_to = max(done_to, value.end)
    return out


def _first_value_in_line(text: str, start: int, end: int,
                         offsets: list[int]) -> JsonValue | None:
    pos = text.find("{", start, end)
    tries = 0
    while pos >= 0 and tries < _MAX_BRACES_PER_LINE:
        tries += 1
        if not _holds(offsets, pos, end):
            return None
        result = _decode(text, pos, end)
        if not isinstance(result, BrokenJson):
            return JsonValue(pos, result[1], result[0])
        pos = text.find("{", pos + 1, end)
    return None


# ------------------------------------------------------------------ inside a value


def walk_objects(value: object, visit: Callable[[dict], bool]) -> None:
    """Call ``visit`` on every object inside ``value``, in document order; an object for
    which it returns True is not entered. A JSON string under one of the argument keys
    (``arguments``, ``input``, ...) that holds an object is decoded and walked in its place
    (at most :data:`_MAX_STRING_DEPTH` strings deep)."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, list):
            stack.extend((child, depth) for child in reversed(item))
        elif isinstance(item, dict) and not visit(item):
            stack.extend(reversed(_children(item, depth)))


def _children(obj: dict, depth: int) -> list[tuple[object, int]]:
    """An object's values to walk, with the argument strings decoded."""
    children: list[tuple[object, int]] = []
    for key, child in obj.items():
        if isinstance(child, str) and key in _ARGUMENT_KEYS:
            decoded = _string_json(child, depth)
            if decoded is not None:
                children.append((decoded, depth + 1))
        elif isinstance(child, dict | list):
            children.append((child, depth))
    return children


def _string_json(text: str, depth: int) -> object | None:
    """The object a JSON string holds (a tool call's arguments), or None."""
    if depth >= _MAX_STRING_DEPTH or not text.lstrip().startswith("{"):
        return None
    result = _decode(text, len(text) - len(text.lstrip()), len(text))
    return None if isinstance(result, BrokenJson) else result[0]


# ------------------------------------------------------------------ where a call is


class CallLines:
    """Response lines of the calls found in one value, in order: each is looked for by a
    string it holds (encoded as JSON: ASCII-escaped, raw, or twice for a call inside an
    ``arguments`` string), from where the previous one was found; not found, it takes that
    place.

    Bounded: an encoding that misses while another one finds the string is not tried again
    in this value (a document uses one style), and after a few strings found by no encoding
    the later calls take the last place found; so the searches cost a few passes over the
    value, however many calls it holds."""

    _MAX_MISSES = 3  # then every later call of the value takes the last place found

    def __init__(self, text: str, found: JsonValue, counter: LineCounter) -> None:
        self.text = text
        self.cursor = found.start
        self.end = found.end
        self.counter = counter
        self.single_line = text.find("\n", found.start, found.end) < 0
        self.misses = 0
        self.styles = ["ascii", "raw", "twice"]

    def line_of(self, needle: str) -> int:
        if not self.single_line and needle and self.misses < self._MAX_MISSES:
            at = self._find(needle)
            if at < 0:
                self.misses += 1
            else:
                self.cursor = at
        return self.counter.line_of(self.cursor)

    def _find(self, needle: str) -> int:
        """Where ``needle`` stands as a JSON string (its opening quote; the closing one too
        when it is whole), in the encodings still tried."""
        prefix = needle[:40]
        quote = '"' if prefix == needle else ""
        encoded = {
            "ascii": json.dumps(prefix)[:-1] + quote,
            "raw": json.dumps(prefix, ensure_ascii=False)[:-1] + quote,
            "twice": json.dumps(json.dumps(prefix)[:-1])[1:-1] + ('\\"' if quote else ""),
        }
        found = {style: self.text.find(encoded[style], self.cursor, self.end)
                 for style in self.styles}
        hits = [at for at in found.values() if at >= 0]
        if hits:
            self.styles = [style for style in self.styles if found[style] >= 0]
        return min(hits, default=-1)

    def value_end_line(self) -> int:
        """The line after the value's last line."""
        return self.counter.line_of(max(self.end - 1, 0)) + 1


class CallReader(Protocol):
    """What a format's parser reads from one JSON value: ``visit`` takes an object (True:
    it was a call of the format, read into ``blocks`` or ``warnings``)."""

    blocks: list[Block]
    warnings: list[ParseWarning]

    def visit(self, obj: dict) -> bool: ...


def tool_call_spans(text: str, triggers: tuple[str, ...],
                    reader: Callable[[CallLines], CallReader], fmt: str,
                    what: str) -> list[ParsedSpan]:
    """A format's spans: one per JSON value of the response holding its calls (read by a
    fresh ``reader`` each), one per broken value holding a trigger (a warning, pending when
    the response ends inside it). ``what`` names a call in those warnings."""
    spans: list[ParsedSpan] = []
    counter = LineCounter(text)
    for found in json_values(text, triggers):
        if isinstance(found, BrokenJson):
            spans.append(_broken_span(found, counter, fmt, what))
            continue
        first = counter.line_of(found.start)
        try:
            span = _value_span(text, found, counter, reader)
        except Exception as exc:  # a bug reading one value must not lose the others
            span = ParsedSpan(first, first + 1, warnings=[ParseWarning(
                first, f"internal error while reading {what} of {fmt}: {exc!r}")])
        if span is not None:
            spans.append(span)
    return spans


def _value_span(text: str, found: JsonValue, counter: LineCounter,
                reader: Callable[[CallLines], CallReader]) -> ParsedSpan | None:
    lines = CallLines(text, found, counter)
    first = counter.line_of(found.start)
    read = reader(lines)
    walk_objects(found.value, read.visit)
    if not read.blocks and not read.warnings:
        return None
    end = lines.value_end_line()
    _set_end_lines(read.blocks, end)
    return ParsedSpan(first, end, read.blocks, read.warnings)


def _set_end_lines(blocks: list[Block], end: int) -> None:
    """Each block reaches to the next line holding a later block (blocks of one line, as a
    one-line MultiEdit's, share it), the last ones to the end of the value."""
    starts = sorted({block.response_line for block in blocks})
    after = dict(zip(starts, [*starts[1:], end], strict=False))
    for block in blocks:
        block.end_line = max(after[block.response_line], block.response_line + 1)


def _broken_span(found: BrokenJson, counter: LineCounter, fmt: str, what: str) -> ParsedSpan:
    line = counter.line_of(found.start)
    why = ("is not complete (the response ends inside it)" if found.cut_short
           else f"is not valid JSON ({found.message})")
    warning = ParseWarning(line, f"{fmt}: JSON holding {what} {why}; skipped",
                           pending=found.cut_short, format=fmt if found.cut_short else None)
    return ParsedSpan(line, line + 1, warnings=[warning])
