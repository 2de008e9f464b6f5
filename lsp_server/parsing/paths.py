"""The path line above an edit-v3, edit-v2 or search-replace block.

docs/formats.md, "Paths in real responses" (the rules marked "ours" there are ours).

The path is the nearest non-blank line above the start marker, skipping one fence opener
(```` ``` ````, ```` ```` ````, ``~~~`` with or without a language, or an HTML-like tag:
``<source>``, ``<code>``, ``<pre>``, ``<sourcecode>``, ``<codeblock>``, optionally followed by
a language). Never above ``floor``: the line after the previous marker of the same parser, so a
block never takes a line of the block before it.

That line is trimmed and unwrapped (repeatedly, in any order) from backticks, ``**``, a
leading ``#`` heading mark or ``File:``-style label and a trailing ``:``. It is refused, and
the block has no path line, when it reads as prose or markup rather than a path:

- docs/formats.md: it ended with ``:`` and what is left has whitespace or has neither ``.`` nor
  ``/``; or it is longer than 200 characters.
- Ours: what is left has whitespace and ends with ``.``, ``!`` or ``?`` (a
  sentence); it still contains a backtick (a sentence quoting a path); the line is a marker of
  any format (``»»» EDIT END``, ``>>>>>>> REPLACE``, ``*** End Patch``, ``@@``, ``--- a/x``,
  fences and fence tags, ...) or starts with ``>``, ``-``, ``*`` (but not ``**``), ``//``,
  ``<`` or ``=``.

A line refused as a path that is prose naming exactly one path-like token in backticks or
``**`` (``Now in `app.py`:``, ``Update **app.py** as follows:``) names the block's file
(:func:`prose_path`); it is never a marker line. A path written with ``\\`` separators and no
``/`` (``src\\app.py``) is read with ``/``.

:func:`names_in` lists the files a stretch of prose names (backticked or bold path-like tokens,
bare tokens with a file extension): a block with no path line takes the previous block's path
only when the text between them names no other file.
"""

from __future__ import annotations

import re

MAX_PATH_LINE = 200

# Fence openers skipped between a path line and its start marker.
_FENCE_OPENER = re.compile(
    r"""(?:`{3,}[^`]*|~{3,}.*)                                  # ```lang / ~~~lang
      | <(?:source|code|pre|sourcecode|codeblock)(?:\s[^>]*)?>\s*[\w.+#-]*   # <source>python
    """,
    re.VERBOSE | re.IGNORECASE,
)

# Lines that are markers or markup, never paths (checked on the trimmed line).
_NOT_A_PATH = re.compile(
    r"""(?:«««|»»»|═══|───)   # edit-v3 / edit-v2 markers
      | [<>=]                 # <<<<<<< SEARCH, ======= , >>>>>>> REPLACE, tags, quotes
      | -                     # ---, list items, +/- diff lines
      | \*(?!\*) | \*\*\*     # bullets and emphasis; *** apply-patch markers
      | //                    # comments
      | `{3,} | ~{3,}         # fences
      | @@                    # hunk headers
      | \+\+\+\s              # unified diff +++ header
      | diff\s--git\s
      | edit\s*\{             # hunk-patch tool call
    """,
    re.VERBOSE,
)

# A bare path (word characters, dots, slashes, dashes): no wrapper, label or prose rule can
# apply, so it is returned as is without the full rules (most path lines look like this).
_BARE_PATH = re.compile(r"\w[\w./\\@+-]*")
_HEADING = re.compile(r"#+\s*")
_LABEL = re.compile(
    r"(?:\*\*)?(?:(?:new|modified|updated|changed|edited)\s+)?"
    r"(?:file(?:\s*name|\s*path)?|path)(?:\*\*)?\s*:(?:\*\*)?\s*",
    re.IGNORECASE,
)
_WHITESPACE = re.compile(r"\s")
# Lines that are a marker of some format: never read as prose naming a path.
_MARKER_LINE = re.compile(
    r"(?:«««|»»»|═══|───|<{5}|={5}|>{5}|---|\+\+\+\s|\*\*\*|`{3,}|~{3,}|@@|diff\s--git\s"
    r"|edit\s*\{)"
)
# A token quoted in backticks or bold (docs/formats.md: a path-like token has a "." or a "/"
# and no space; ours: it has a word character, is no URL and no call like `f.g()`).
_QUOTED_TOKEN = re.compile(r"`([^`\s]+)`|\*\*([^*\s]+)\*\*")
_CALL = re.compile(r"\w\(.*\)$")
# A bare token with a file extension (``app.py``, ``src/util.ts``), for names_in.
_BARE_FILE_TOKEN = re.compile(
    r"(?<![\w./\\-])[\w./\\-]*\w\.[A-Za-z][A-Za-z0-9]{0,9}(?![\w/\\])")
_NOT_FILE_NAMES = frozenset({"e.g", "i.e"})
MAX_PROSE_LINE = 500
_FENCE_FIRST_CHARS = frozenset("`~<")


def is_fence_opener(line: str) -> bool:
    """A Markdown fence opener or an HTML-like code tag, as models put between path and block."""
    return _FENCE_OPENER.fullmatch(line.strip()) is not None


def _unwrap(line: str) -> tuple[str, bool]:
    """Peel wrappers until none is left; also say whether a trailing ``:`` was removed."""
    text = line.strip()
    had_colon = False
    while True:
        before = text
        if text.endswith(":"):
            text = text[:-1].rstrip()
            had_colon = True
        text = _peel(text)
        if text == before:
            return text, had_colon


def _peel(text: str) -> str:
    """``text`` without one layer of each wrapper: a heading mark, ``**``, backticks, a label."""
    heading = _HEADING.match(text)
    if heading and heading.end() < len(text):
        text = text[heading.end():]
    if len(text) >= 4 and text.startswith("**") and text.endswith("**"):
        text = text[2:-2].strip()
    if len(text) >= 2 and text.startswith("`") and text.endswith("`"):
        text = text[1:-1].strip()
    label = _LABEL.match(text)
    if label and label.end() < len(text):
        text = text[label.end():]
    return text


def path_from_line(line: str) -> str | None:
    """The path a candidate path line names, or None when the line is not a path."""
    trimmed = line.strip()
    if len(trimmed) > MAX_PATH_LINE:
        return None
    if _BARE_PATH.fullmatch(trimmed):
        return with_slashes(trimmed)
    if not trimmed or _NOT_A_PATH.match(trimmed):
        return None
    path, had_colon = _unwrap(trimmed)
    return None if _reads_as_prose(path, had_colon) else with_slashes(path)


def with_slashes(path: str) -> str:
    """``src\\app.py`` → ``src/app.py``: a path with ``\\`` separators and no ``/``, as
    models on Windows write it."""
    return path.replace("\\", "/") if "\\" in path and "/" not in path else path


def _path_like(token: str) -> bool:
    return (("." in token or "/" in token) and "://" not in token
            and any(c.isalnum() for c in token) and _CALL.search(token) is None)


def prose_path(line: str) -> str | None:
    """The one path a prose line names in backticks or ``**`` (``Now in `app.py`:``); None
    when it names none or several, or the line is a marker."""
    trimmed = line.strip()
    if len(trimmed) > MAX_PROSE_LINE or ("`" not in trimmed and "**" not in trimmed):
        return None
    if _MARKER_LINE.match(trimmed):
        return None
    named = {with_slashes(token) for m in _QUOTED_TOKEN.finditer(trimmed)
             for token in m.groups() if token and _path_like(token)}
    return named.pop() if len(named) == 1 else None


def names_in(lines: list[str]) -> list[str]:
    """The files ``lines`` name, in order, once each: path-like tokens in backticks or ``**``
    and bare tokens with a file extension (paths normalised to ``/``)."""
    seen: dict[str, None] = {}
    for line in lines:
        if "." not in line and "/" not in line:
            continue  # no path-like token can be on it
        for m in _QUOTED_TOKEN.finditer(line):
            for token in m.groups():
                if token and _path_like(token):
                    seen.setdefault(with_slashes(token), None)
        for m in _BARE_FILE_TOKEN.finditer(line):
            token = m.group(0)
            if token.lower() not in _NOT_FILE_NAMES:
                seen.setdefault(with_slashes(token), None)
    return list(seen)


def same_file(name: str, path: str) -> bool:
    """Whether ``name`` (as prose writes it) can be ``path``: equal, or its last components
    (``app.py`` for ``src/app.py``)."""
    name, path = name.removeprefix("./"), path.removeprefix("./")
    return name == path or path.endswith("/" + name)


def _reads_as_prose(path: str, had_colon: bool) -> bool:
    """Whether an unwrapped path line is prose or markup rather than a path."""
    if not path or "`" in path or _NOT_A_PATH.match(path):
        return True
    has_space = _WHITESPACE.search(path) is not None
    if had_colon and (has_space or ("." not in path and "/" not in path)):
        return True  # "Then change the config:" — an introduction, not a path
    return has_space and path[-1] in ".!?"  # a sentence


# Path lines repeat (a response edits the same files again and again, a fence opener reads
# "```python" every time): the verdicts on short lines are memoised, a regex match costing
# several times a dict lookup. Long lines are never kept (a hostile one could be megabytes).
_MEMO_LINE_LENGTH = 256
_MEMO_SIZE = 4096
_path_memo: dict[str, str | None] = {}
_fence_memo: dict[str, bool] = {}


def _memo_path(line: str) -> str | None:
    path = _path_memo.get(line, _path_memo)  # the dict itself: "not seen"
    if path is _path_memo:
        path = path_from_line(line)
        if path is None:
            path = prose_path(line)
        if len(line) <= _MEMO_LINE_LENGTH:
            if len(_path_memo) >= _MEMO_SIZE:
                _path_memo.clear()
            _path_memo[line] = path
    return path  # type: ignore[return-value]


def _memo_fence(line: str) -> bool:
    fence = _fence_memo.get(line)
    if fence is None:
        fence = line.lstrip()[:1] in _FENCE_FIRST_CHARS and is_fence_opener(line)
        if len(line) <= _MEMO_LINE_LENGTH:
            if len(_fence_memo) >= _MEMO_SIZE:
                _fence_memo.clear()
            _fence_memo[line] = fence
    return fence


def find_path_line(lines: list[str], marker_line: int, floor: int) -> tuple[int, str] | None:
    """``(line index, path)`` of the path line for a block starting at ``marker_line``.

    Looks at the nearest non-blank line above the marker (skipping one fence opener), never
    above ``floor``. None when there is no such line or it is neither a path line nor prose
    naming one path.
    """
    i = marker_line - 1
    while i >= floor and not lines[i].strip():
        i -= 1
    if i >= floor and _memo_fence(lines[i]):
        i -= 1
        while i >= floor and not lines[i].strip():
            i -= 1
    if i < floor:
        return None
    path = _memo_path(lines[i])
    return None if path is None else (i, path)
