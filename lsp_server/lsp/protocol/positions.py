"""LSP positions against the model's: lines and columns in the negotiated encoding.

LSP columns count UTF-16 code units unless the client negotiated UTF-8 or UTF-32; the model
counts Python code points. Lines end at ``\\r\\n``, ``\\r`` or ``\\n`` only (LSP's definition,
unlike :meth:`str.splitlines`, which also breaks at form feeds and U+2028).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types

BOM = "\ufeff"

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
    if encoding == types.PositionEncodingKind.Utf32 or line.isascii():
        return max(0, min(units, len(line)))  # one unit per character
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
    e.g. kept with an open buffer). A few lines near either end of a text without ``\\r``
    (a response document's one warning, its newest block) are found by walking from that
    end, up to :data:`NEAR_END_LINES` steps in all, then the text is split. Indexing takes
    ``0 <= index < len(self)``.
    """

    __slots__ = ("_count", "_lines", "_walked", "text")

    def __init__(self, text: str, count: int | None = None) -> None:
        self.text = text
        self._lines: list[str] | None = None
        self._count = count
        self._walked = 0  # steps walked so far to lines near the ends

    def __len__(self) -> int:
        if self._count is None:
            self._count = line_count(self.text)
        return self._count

    def __getitem__(self, index: int) -> str:
        if self._lines is None:
            text = self.text
            last = len(self) - 1
            if index == last:
                return text[max(text.rfind("\n"), text.rfind("\r")) + 1:]
            steps = min(index, last - index)
            if self._walked + steps <= NEAR_END_LINES and "\r" not in text:
                self._walked += steps
                start = _lf_line_start(text, index, last)
                stop = text.find("\n", start)
                return text[start:stop if stop >= 0 else len(text)]
            self._lines = split_lines(self.text)
        return self._lines[index]

    def get(self, index: int) -> str | None:
        """Line ``index`` (``>= 0``), None past the last line. A line near the start of a
        text without ``\\r`` is found without counting the text's lines."""
        text = self.text
        if (self._lines is None and self._count is None
                and self._walked + index <= NEAR_END_LINES and "\r" not in text):
            self._walked += index
            start = 0
            for _ in range(index):
                start = text.find("\n", start) + 1
                if not start:
                    return None
            stop = text.find("\n", start)
            return text[start:stop if stop >= 0 else len(text)]
        return self[index] if index < len(self) else None


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


def line_range(text: str | TextLines | None, line: int, encoding: str) -> types.Range:
    """The whole of ``line`` in ``text`` (the client's view of the file).

    Pass a :class:`TextLines` when asking for several lines of one text (split once).
    """
    lines: Sequence[str] = [""] if text is None else (
        TextLines(text) if isinstance(text, str) else text)
    line = max(0, line)
    length = 0
    if isinstance(lines, TextLines):
        content = lines.get(line)
    else:
        content = lines[line] if line < len(lines) else None
    if content is not None:
        length = len(content) if content.isascii() else code_units(content, encoding)
    return types.Range(
        start=types.Position(line=line, character=0),
        end=types.Position(line=line, character=length),
    )


def ranges_overlap(a: types.Range, b: types.Range) -> bool:
    """Whether two ranges share a position (touching counts: a cursor on a diagnostic)."""
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)
    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


# Line breaks str.splitlines knows beyond LSP's \r\n, \r and \n: where none occurs, its C
# loop splits lines exactly as LSP does.
_OTHER_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_LINE_WITH_BREAK = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)")


def lines_with_breaks(text: str) -> list[str]:
    """The LSP lines of ``text``, each with its line break; the last one has none (it is
    ``""`` when the text ends with a break), so ``"".join`` gives the text back."""
    if _OTHER_BREAKS.search(text) is not None:
        lines = _LINE_WITH_BREAK.findall(text)
        lines.append(text[sum(map(len, lines)):])  # the last line, after the last break
        return lines
    lines = text.splitlines(keepends=True)
    if not lines or lines[-1][-1] in "\r\n":
        lines.append("")
    return lines


def _break_length(line: str) -> int:
    return 2 if line.endswith("\r\n") else 1 if line and line[-1] in "\r\n" else 0


class _Lines:
    """A text as its LSP lines with their breaks, changed in place by content changes."""

    def __init__(self, text: str) -> None:
        self.lines = lines_with_breaks(text)

    def locate(self, position: types.Position, encoding: str) -> tuple[int, int]:
        """(line, offset in that line) of a client position, clamped as :func:`offset_at`."""
        lines = self.lines
        if position.line >= len(lines):
            return len(lines) - 1, len(lines[-1])
        line = lines[position.line]
        content = line[:len(line) - _break_length(line)]
        return position.line, column_from_units(content, position.character, encoding)

    def change(self, change_range: types.Range, new_text: str, encoding: str) -> None:
        lines = self.lines
        first, start = self.locate(change_range.start, encoding)
        last, end = max((first, start), self.locate(change_range.end, encoding))
        joined = lines[first][:start] + new_text + lines[last][end:]
        # A lone \r ending the line before and a \n starting the new text are one break
        # now (as are a \r ending it and a \n starting the line after): split them together.
        if joined.startswith("\n") and first > 0 and lines[first - 1].endswith("\r"):
            first -= 1
            joined = lines[first] + joined
        if joined.endswith("\r") and last + 1 < len(lines) and lines[last + 1].startswith("\n"):
            last += 1
            joined += lines[last]
        pieces = lines_with_breaks(joined)
        if last + 1 < len(lines):
            pieces.pop()  # the "" after the break that ends `last`: the next line goes on
        lines[first:last + 1] = pieces


# How many lines from the nearer end of a text a position may lie for offset_at to walk to
# it line by line (each step a C-level find); further in, splitting the text is cheaper.
NEAR_END_LINES = 1_000


def offset_at(text: str, position: types.Position, encoding: str, *,
              breaks: int | None = None, max_walk: int | None = None) -> int | None:
    """The character offset in ``text`` of a client position, clamped as
    :func:`apply_content_changes` clamps (a line past the end is the end of the text, a
    column past a line's end the end of its content). ``breaks``: ``text.count("\\n")`` if
    known. None for a text holding ``\\r`` (its lines need LSP's rules), or a line more than
    ``max_walk`` lines from both ends of the text.

    Lines are walked from the nearer end: a position at the end of a long text (where a
    streamed response grows) costs its last lines, not all of them."""
    if "\r" in text:
        return None
    return _lf_offset_at(text, position, encoding, text.count("\n") if breaks is None
                         else breaks, max_walk)


def _lf_offset_at(text: str, position: types.Position, encoding: str, breaks: int,
                  max_walk: int | None) -> int | None:
    """:func:`offset_at` in a text without ``\\r`` holding ``breaks`` line breaks."""
    line = position.line
    if line > breaks:
        return len(text)
    if max_walk is not None and min(line, breaks - line + 1) > max_walk:
        return None
    start = _lf_line_start(text, line, breaks)
    stop = text.find("\n", start)
    content = text[start:stop if stop >= 0 else len(text)]
    return start + column_from_units(content, position.character, encoding)


def _lf_line_start(text: str, line: int, breaks: int) -> int:
    """Where line ``line`` (at most ``breaks``) of a text without ``\\r`` starts, found by
    walking from the nearer end."""
    from_end = breaks - line + 1  # the line starts after this many breaks from the end
    if line <= from_end:
        start = 0
        for _ in range(line):
            start = text.index("\n", start) + 1
        return start
    end = len(text)
    for _ in range(from_end):
        end = text.rindex("\n", 0, end)
    return end + 1


def lf_breaks(text: str) -> int | None:
    """``text.count("\\n")`` for a text without ``\\r`` (None for one with: its lines need
    LSP's rules)."""
    return None if "\r" in text else text.count("\n")


def _one_change(text: str, breaks: int, change_range: types.Range, new_text: str,
                encoding: str) -> tuple[str, int | None] | None:
    """``text`` (without ``\\r``, holding ``breaks`` line breaks) after one incremental
    change, found from the nearer end without splitting the text, and its
    :func:`lf_breaks`; None when :func:`offset_at` cannot place it. The same text as the
    line splice: that replaces exactly the characters between the two clamped positions."""
    start = _lf_offset_at(text, change_range.start, encoding, breaks, NEAR_END_LINES)
    if start is None:
        return None
    end = _lf_offset_at(text, change_range.end, encoding, breaks, NEAR_END_LINES)
    if end is None:
        return None
    end = max(start, end)  # an end before the start is the start
    breaks_after = None if "\r" in new_text else (
        breaks - text.count("\n", start, end) + new_text.count("\n"))
    if end == len(text):
        return text[:start] + new_text, breaks_after  # an append copies the text once
    return text[:start] + new_text + text[end:], breaks_after


def apply_content_changes_counted(
    text: str, breaks: int | None, changes: list[types.TextDocumentContentChangeEvent],
    encoding: str,
) -> tuple[str, int | None]:
    """:func:`apply_content_changes`, with the :func:`lf_breaks` of the text before (None:
    not known) and after (None: not known, or the text holds ``\\r``).

    One change near an end of the text (a chunk appended to a streamed response, a
    keystroke near the top or bottom) is placed by walking lines from that end: counting
    the lines of a 1 MB text costs ~0.6 ms when it is not ASCII, splitting and joining it
    ~5 ms, and a streamed response gets hundreds of such changes.
    """
    if len(changes) == 1 and getattr(changes[0], "range", None) is not None:
        if breaks is None:
            breaks = lf_breaks(text)
        if breaks is not None:
            changed = _one_change(text, breaks, changes[0].range, changes[0].text, encoding)
            if changed is not None:
                return changed
    return apply_content_changes(text, changes, encoding), None


def apply_content_changes(
    text: str, changes: list[types.TextDocumentContentChangeEvent], encoding: str
) -> str:
    """``text`` after a ``didChange``'s content changes, each on the text the previous ones
    left: a whole-document change replaces the text; an incremental one replaces its range,
    whose positions are clamped to the text (a line past the end is the end of the text, a
    column past a line's end is the end of its content, an end before the start is the
    start).

    The changes are applied to the text's lines: one split, a splice of the line list per
    change and one join. Changing the whole string per change re-counted every line offset
    and copied the text each time: 300 changes of a multi-cursor edit on a 100,000-line
    buffer took seconds, and one keystroke there tens of milliseconds. (One change near an
    end of a long text: :func:`apply_content_changes_counted`.)
    """
    lines: _Lines | None = None
    for change in changes:
        change_range = getattr(change, "range", None)
        if change_range is None:
            text, lines = change.text, None
            continue
        if lines is None:
            lines = _Lines(text)
        lines.change(change_range, change.text, encoding)
    return "".join(lines.lines) if lines is not None else text
