"""Which language a file is in, and its tree-sitter grammar, loaded only when needed.

Each grammar is its own wheel (``tree-sitter-python``, ...; docs/dependencies.md says why).
Nothing here imports tree-sitter at load time: ``llm-edits --version`` and the server's
start-up never pay for it, and a file of a language with no grammar never loads one. A
grammar is loaded once per process, and a parser made once per language and thread.
"""

from __future__ import annotations

import importlib
import os
import threading
from typing import Any

# language -> (module, function returning the grammar's language pointer)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "json": ("tree_sitter_json", "language"),
    "yaml": ("tree_sitter_yaml", "language"),
    "toml": ("tree_sitter_toml", "language"),
    "markdown": ("tree_sitter_markdown", "language"),
}

_EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    # .h is C or C++: C++ reads C headers too, the info string breaks the tie.
    ".h": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".cpp": "cpp", ".cc": "cpp",
    ".cxx": "cpp", ".c++": "cpp", ".ipp": "cpp",
    ".cs": "csharp",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby",
    ".php": "php",
    ".json": "json", ".jsonc": "json",
    ".yaml": "yaml", ".yml": "yaml",
    ".toml": "toml",
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
    # Languages with no grammar here: merged by content alone, but named.
    ".sh": "shell", ".bash": "shell", ".css": "css", ".html": "html", ".sql": "sql",
    ".kt": "kotlin", ".swift": "swift", ".lua": "lua",
}
_FILE_NAMES: dict[str, str] = {
    "Gemfile": "ruby", "Rakefile": "ruby", "Pipfile": "toml", "Cargo.lock": "toml",
}
# Info-string words -> language, for the ties an extension leaves open.
_INFO_WORDS: dict[str, str] = {
    "python": "python", "py": "python", "javascript": "javascript", "js": "javascript",
    "jsx": "javascript", "typescript": "typescript", "ts": "typescript", "tsx": "tsx",
    "go": "go", "golang": "go", "rust": "rust", "rs": "rust", "java": "java", "c": "c",
    "cpp": "cpp", "c++": "cpp", "cxx": "cpp", "csharp": "csharp", "cs": "csharp",
    "c#": "csharp", "ruby": "ruby", "rb": "ruby", "php": "php", "json": "json",
    "jsonc": "json", "yaml": "yaml", "yml": "yaml", "toml": "toml", "markdown": "markdown",
    "md": "markdown",
}
# Extensions whose language the info string may settle (a C header written as C).
_AMBIGUOUS_EXTENSIONS: dict[str, frozenset[str]] = {".h": frozenset({"c", "cpp"})}

_languages: dict[str, Any] = {}  # language name -> tree_sitter.Language, for the process
# A parser per thread: a tree-sitter parser holds the state of the parse it runs, and the
# server may plan in more than one thread.
_per_thread = threading.local()


def language_of(path: str, info: str = "") -> str | None:
    """The language of ``path`` by its extension (or well-known name); the fence's info
    string only breaks ties (a ``.h`` file written as C) and names the language of a file
    with no extension. None: a language this package does not know."""
    name = os.path.basename(path.replace("\\", "/"))
    if name in _FILE_NAMES:
        return _FILE_NAMES[name]
    ext = os.path.splitext(name)[1].lower()
    word = _INFO_WORDS.get(info.strip().split(" ")[0].lower()) if info.strip() else None
    if ext in _AMBIGUOUS_EXTENSIONS and word in _AMBIGUOUS_EXTENSIONS[ext]:
        return word
    if ext in _EXTENSIONS:
        return _EXTENSIONS[ext]
    return word if not ext else None


def has_grammar(language: str | None) -> bool:
    """Whether ``language`` has a grammar here (whether its wheel is installed is
    :func:`parser_for`'s question)."""
    return language in _GRAMMARS


def parser_for(language: str) -> Any | None:
    """A tree-sitter parser for ``language`` (this thread's), or None when its grammar is
    not installed."""
    parsers: dict[str, Any] = _per_thread.__dict__.setdefault("parsers", {})
    parser = parsers.get(language)
    if parser is not None or language not in _GRAMMARS:
        return parser
    grammar = _language(language)
    if grammar is None:
        return None
    parser = parsers[language] = importlib.import_module("tree_sitter").Parser(grammar)
    return parser


def _language(language: str) -> Any | None:
    grammar = _languages.get(language)
    if grammar is not None:
        return grammar
    module_name, function = _GRAMMARS[language]
    try:
        tree_sitter = importlib.import_module("tree_sitter")
        pointer = getattr(importlib.import_module(module_name), function)
    except ImportError:
        return None
    grammar = _languages[language] = tree_sitter.Language(pointer())
    return grammar
