"""code-block blocks: a Markdown fence holding code for a file the response names, the whole
new file or a snippet of it (docs/formats.md "code-block"); the merge decides which.

Grammar::

    block      := [path-line blank*] FENCE [path-comment] content-line* CLOSE
    FENCE      := up to 3 spaces, 3+ "`" (no "`" in the rest) or 3+ "~", then an info string
    info       := [lang] | path | lang WS path | lang ":" path | lang WS key "=" ["]path["]
                  (key: title, file, path, filename)
    path-comment := a first content line that is only a comment naming one path:
                  "# src/app.py", "// file: src/app.js", "<!-- docs/x.md -->", "-- db/x.sql",
                  "/* src/x.c */"; it names the file and is not code
    path-line  := the nearest non-blank line above FENCE (paths.py), after the previous fence
    CLOSE      := a bare fence of the opener's character, at least as long; fences nest as
                  every fence reader counts them (nested_fences.fence_close)

The file a fence is for: its info string's path, else its path comment's, else its path line's
(a comment naming the same file as the line, shorter, gives way to the line), else ``target``
(the file the caller named for every unnamed fence). A name read from a path line must look
like a file (a ``/`` or an extension, no space, or a known bare name such as ``Makefile``):
the lines models put above examples ("Example", "Output", "Usage") are no files.

Never blocks: shell fences (their commands are shell suggestions), ``diff``/``patch`` fences
(read as diffs), output fences (``text``, ``output``, ``log``...) that name no file, a fence
holding another format's start marker (that format's block), an empty fence. A fence inside
another format's block is that block's text: ``parse_response`` drops a code-block span that
overlaps any other format's span. A named fence that never closes is reported (pending: the
response may still be arriving) and not applied. Unnamed fences are no block and no warning;
:func:`unnamed_fence_lines` counts them for the "no block" warning.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..model import Block, ParseWarning
from .marker_scan import MarkerLines
from .nested_fences import fence_close, fences_at, holds_markup
from .parsed_span import ParsedSpan, new_block
from .paths import find_path_line, path_from_line, same_file, with_slashes
from .response_text import backtick_fence_for
from .whole_file import dedent_fence, holds_line_of, other_format_starts

FORMAT = "code-block"
OP = "write"  # create the file when it is missing, else merge into it

# Info-string words of fences that are never a block: shells (shell suggestions), diffs.
SHELL_LANGUAGES = frozenset({
    "bash", "sh", "shell", "console", "zsh", "fish", "powershell", "ps1", "pwsh", "bat",
    "cmd", "shellsession", "shell-session",
})
DIFF_LANGUAGES = frozenset({"diff", "patch", "udiff"})
# Fences of program output: a block only when a file is named.
OUTPUT_LANGUAGES = frozenset({"text", "txt", "output", "log", "plaintext", "plain", "stdout",
                              "stderr"})
# Extensionless files a path line may name.
BARE_FILE_NAMES = frozenset({
    "Makefile", "makefile", "GNUmakefile", "Dockerfile", "Containerfile", "Gemfile", "Rakefile",
    "Procfile", "Jenkinsfile", "Vagrantfile", "Brewfile", "Justfile", "justfile", "Pipfile",
    "Caddyfile", "CODEOWNERS", "LICENSE", "README", "BUILD", "WORKSPACE",
})

# The extensions a file named in prose must have: prose quotes dotted names that are no
# files all the time (`json.dump`, `os.path`, `self.save`); a path line of its own, an info
# string or a comment need only look like a file.
SOURCE_EXTENSIONS = frozenset((
    "py", "pyi", "pyx", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "go", "rs", "java",
    "kt", "kts", "scala", "groovy", "gradle", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx",
    "m", "mm", "cs", "fs", "vb", "swift", "rb", "php", "pl", "pm", "lua", "r", "jl", "dart", "ex",
    "exs", "erl", "hrl", "clj", "cljs", "hs", "ml", "mli", "elm", "zig", "nim", "v", "sol", "vue",
    "svelte", "astro", "html", "htm", "css", "scss", "sass", "less", "json", "jsonc", "json5",
    "yaml", "yml", "toml", "ini", "cfg", "conf", "env", "properties", "xml", "xsd", "svg", "md",
    "mdx", "rst", "txt", "adoc", "tex", "csv", "tsv", "sql", "graphql", "gql", "proto", "sh",
    "bash", "zsh", "fish", "ps1", "bat", "cmd", "mk", "cmake", "dockerfile", "tf", "hcl", "nix",
    "lock", "ipynb",
))

# An info string holding none of these is a language word alone (the common case, read fast).
_PATH_CHARS = re.compile(r"[\s:=./\\{]")
_FILE_KEY = re.compile(r"""\b(?:title|file|filename|path)\s*=\s*(?:"([^"]+)"|'([^']+)'|(\S+))""")
_EXTENSION = re.compile(r"\.[A-Za-z][\w+-]{0,11}$")
_PATH_COMMENT = re.compile(
    r"""^\s*(?:\#|//|--|;|/\*|<!--|\{/\*)\s*           # a comment opener
        (?:(?:file(?:\s*name)?|path)\s*:\s*)?          # an optional label
        (?P<path>[^\s!*][^\s]*?)                       # one token
        \s*(?:\*/\}?|-->)?\s*$""",
    re.VERBOSE | re.IGNORECASE,
)

# The scan's kind holding every fence line (formats.py: hunk-patch's, which keeps the json ones).
_FENCE_LINES = "json_fences"


class Fence(NamedTuple):
    """A fence the parser read: its opener line, its closing line (None: not closed), the
    opener's indentation, its language word and the path its info string names."""

    opener: int
    close: int | None
    indent: int
    lang: str
    info_path: str | None


def looks_like_file(name: str) -> bool:
    """Whether a name read from a path line is a file: a ``/`` or an extension and no
    space, or a known extensionless name."""
    if not name or name.endswith("/") or any(c.isspace() for c in name) or "://" in name:
        return False  # no name, a directory, prose or a URL
    base = name.rsplit("/", 1)[-1]
    return base in BARE_FILE_NAMES or bool(_EXTENSION.search(base)) or (
        "/" in name.strip("/") and bool(base))


def named_in_prose_as_file(name: str) -> bool:
    """Whether a name a prose line quotes is a file: a known extension or bare name."""
    base = name.rsplit("/", 1)[-1]
    extension = base.rsplit(".", 1)[-1].lower() if "." in base else ""
    return looks_like_file(name) and (extension in SOURCE_EXTENSIONS
                                      or base in BARE_FILE_NAMES)


def read_info(info: str) -> tuple[str, str | None]:
    """``(language word, path)`` of a fence's info string (either may be empty/None)."""
    if not info or _PATH_CHARS.search(info) is None:
        return info.lower(), None
    words = info.strip("{} \t").split()
    if not words:
        return "", None
    keyed = _FILE_KEY.search(info)
    if keyed:  # title="src/app.py", file=..., path=..., filename=...
        lang = "" if "=" in words[0] else words[0]
        return _lang(lang), _as_path(next(g for g in keyed.groups() if g))
    return _positional_info(words)


def _positional_info(words: list[str]) -> tuple[str, str | None]:
    """``python:src/app.py``, ``python src/app.py``, ``src/app.py`` or a language alone."""
    first = words[0]
    if ":" in first and not first.startswith(("http:", "https:")):
        lang, _, path = first.partition(":")
        if looks_like_file(path):
            return _lang(lang), with_slashes(path)
    if len(words) >= 2 and looks_like_file(words[1]):
        return _lang(first), with_slashes(words[1])
    if looks_like_file(first) and _lang(first) not in _KNOWN_WORDS:
        return "", with_slashes(first)
    return _lang(first), None


# Info words that contain a "." yet are languages, not files.
_KNOWN_WORDS = frozenset({"objective-c", "c++", "f#", "c#", "asp.net", "node.js", "vue.js"})


def _lang(word: str) -> str:
    return word.strip().lstrip(".").lower()


def _as_path(token: str) -> str | None:
    token = token.strip().strip("`")
    return with_slashes(token) if token and looks_like_file(token) else None


def path_comment(line: str) -> str | None:
    """The path a fence's first line names when it is only a comment naming one path."""
    if len(line) > 300:
        return None
    m = _PATH_COMMENT.match(line)
    if m is None:
        return None
    path = m["path"].strip("`")
    return with_slashes(path) if looks_like_file(path) else None


_new_fence = tuple.__new__  # a NamedTuple's own __new__ is Python code, a call per fence


def read_fences(text: str, lines: list[str], markers: MarkerLines) -> list[Fence]:
    """Every fence of the response in order, paired as every fence reader pairs them (the
    rest of the response is the content of a fence not closed)."""
    fences = fences_at(lines, markers.starts[_FENCE_LINES])
    infos: dict[str, tuple[str, str | None, bool]] = {}  # info -> language, path, markup
    out = []
    i = 0
    n = len(fences)
    while i < n:
        opener = fences[i]
        if not opener.can_open():
            i += 1
            continue
        info = infos.get(opener.info)
        if info is None:
            info = infos[opener.info] = (*read_info(opener.info), holds_markup(opener))
        following = fences[i + 1] if i + 1 < n else None
        if (following is not None and not following.info and following.char == opener.char
                and following.length >= opener.length and not info[2]):
            close: int | None = i + 1  # the usual pair: fence_close's first step, uncalled
        else:
            close, _ = fence_close(fences, i, lines)
        out.append(_new_fence(Fence, (opener.line, None if close is None else fences[close].line,
                                      opener.indent, info[0], info[1])))
        if close is None:
            break
        i = close + 1
    return out


def find_blocks(text: str, lines: list[str], markers: MarkerLines,
                target: str | None = None) -> list[ParsedSpan]:
    """Every code block of the response (fences naming their file, and with ``target`` the
    unnamed ones), and a warning for each named fence that never closes."""
    out: list[ParsedSpan] = []
    if "```" not in text and "~~~" not in text:
        return out  # no fence (str.find in C: a prose or diff answer pays nothing more)
    starts = other_format_starts(lines, markers)
    floor = 0  # a path line is never inside or above the previous fence
    for fence in read_fences(text, lines, markers):
        span = _read_fence(lines, fence, floor, starts, target)
        if span is not None:
            out.append(span)
        if fence.close is None:
            break
        floor = fence.close + 1
    return out


def _read_fence(lines: list[str], fence: Fence, floor: int, starts: list[int],
                target: str | None) -> ParsedSpan | None:
    if not _may_be_block(fence, lines, starts):
        return None
    end = len(lines) if fence.close is None else fence.close
    body = fence.opener + 1
    head = dedent_fence(lines[body : min(body + 1, end)], fence.indent)
    first, path, commented = _name(lines, fence, floor, head[0] if head else None)
    if path is None:
        if fence.lang in OUTPUT_LANGUAGES or not target:
            return None
        first, path = fence.opener, target
    if fence.close is None:
        # The span is the opener's line: what is still open starts there (a response being
        # written: the lines above it are decided, see parsing.completion), the warning at
        # the block's first line.
        message = f"code block for {path!r} is not closed (no closing fence; truncated?); skipped"
        return ParsedSpan(fence.opener, fence.opener + 1,
                          warnings=[ParseWarning(first, message, True, FORMAT, path)])
    content = dedent_fence(lines[body + commented : end], fence.indent)  # (a fence read for a
    # path: most name none, and their content is never copied)
    if not any(line.strip() for line in content):
        return None  # an empty fence changes nothing
    block_end = fence.close + 1
    block = new_block(FORMAT, path, OP, first, block_end, "\n".join(lines[first:block_end]))
    block.new = content
    block.info = fence.lang
    return ParsedSpan(first, block_end, [block])


def _may_be_block(fence: Fence, lines: list[str], starts: list[int]) -> bool:
    """A fence that is no shell, diff or other format's block."""
    if fence.lang in SHELL_LANGUAGES or fence.lang in DIFF_LANGUAGES:
        return False
    end = len(lines) if fence.close is None else fence.close
    return not holds_line_of(starts, fence.opener, end)


def _name(lines: list[str], fence: Fence, floor: int,
          head: str | None) -> tuple[int, str | None, int]:
    """``(first response line, path, 1 when the first content line is a path comment
    naming that file, else 0)``: the path the fence names (None: none); ``head`` is the
    first content line (None: no content)."""
    comment = path_comment(head) if head is not None else None
    above = _file_above(lines, fence.opener, floor)
    first = fence.opener if above is None else above[0]
    above_path = None if above is None else above[1]
    if fence.info_path is not None:
        if comment is not None and same_file(comment, fence.info_path):
            return fence.opener, fence.info_path, 1
        return fence.opener, fence.info_path, 0
    if comment is not None:
        if above_path is not None and same_file(comment, above_path):
            return first, above_path, 1
        return fence.opener, comment, 1
    return first, above_path, 0


def _file_above(lines: list[str], opener: int, floor: int) -> tuple[int, str] | None:
    """The path line above the fence when it names a file (a prose line: one with a known
    extension)."""
    above = find_path_line(lines, opener, floor)
    if above is None:
        return None
    line, path = above
    as_line = path_from_line(lines[line]) == path
    if (as_line and looks_like_file(path)) or (not as_line and named_in_prose_as_file(path)):
        return above
    return None


def unnamed_fence_lines(text: str, lines: list[str], markers: MarkerLines,
                        claimed: list[int] = ()) -> list[int]:
    """The opener lines of the closed fences that ``target`` would make blocks: no file
    named, no shell, diff or output fence, no other format's markers, not empty, and none
    another format already reported a warning in (sorted ``claimed`` lines: a malformed
    tool call in a ```json fence is that format's, and already said why)."""
    starts = other_format_starts(lines, markers)
    out = []
    floor = 0
    for fence in read_fences(text, lines, markers):
        if fence.close is None:
            break
        content = lines[fence.opener + 1 : fence.close]
        if (_may_be_block(fence, lines, starts) and fence.lang not in OUTPUT_LANGUAGES
                and not holds_line_of(claimed, fence.opener - 1, fence.close + 1)
                and any(line.strip() for line in content)
                and _name(lines, fence, floor, content[0] if content else None)[1] is None):
            out.append(fence.opener)
        floor = fence.close + 1
    return out


def shell_fence_warning(text: str, lines: list[str], markers: MarkerLines,
                        target: str) -> ParseWarning | None:
    """With ``target`` given and no block found: the shell fences, which are never code for
    it (a ```sh fence holding a whole script reads as shell suggestions), so the answer is
    not dropped without a word."""
    shells = [fence.opener for fence in read_fences(text, lines, markers)
              if fence.close is not None and fence.lang in SHELL_LANGUAGES
              and any(line.strip() for line in lines[fence.opener + 1 : fence.close])]
    if not shells:
        return None
    what = ("1 shell fence is" if len(shells) == 1 else f"{len(shells)} shell fences are")
    return ParseWarning(shells[0], (
        f"No edit blocks found; {what} read as commands to suggest, never as code for "
        f"{target} (a script's new text goes in a fence with no shell language)"))


def no_block_warning(fence_lines: list[int]) -> ParseWarning | None:
    """The warning of a response with no block that holds unnamed code fences."""
    if not fence_lines:
        return None
    n = len(fence_lines)
    what = ("1 code block names no file: apply it" if n == 1
            else f"{n} code blocks name no file: apply them")
    return ParseWarning(fence_lines[0], f"No edit blocks found; {what} to a file with target")


def render(block: Block) -> str:
    """The block as a fence whose info string names its file, ending in "\\n"; ValueError
    for a block that carries no code (only ``write``/``create`` blocks with ``new``)."""
    if block.hunks is not None or block.op not in (OP, "create") or block.old or block.anchor:
        raise ValueError(f"code-block cannot express a {block.op!r} block")
    fence = backtick_fence_for(block.new)
    lang = block.info or ""
    info = f"{lang} {block.file}" if lang else block.file
    return "\n".join([fence + info, *block.new, fence]) + "\n"
