"""One table per language: which tree-sitter nodes are definitions, containers, wrappers,
decorators, comments and imports (see units.py, which reads them the same way for every
language). A rule function appears only where a table entry cannot say it."""

from .code_tables import (
    CPP,
    CSHARP,
    GO,
    JAVA,
    JAVASCRIPT,
    PHP,
    PYTHON,
    RUBY,
    RUST,
    C,
)
from .data_tables import JSON, MARKDOWN, TOML, YAML
from .table_types import LanguageTable

__all__ = ["TABLES", "LanguageTable"]

TABLES: dict[str, LanguageTable] = {
    "python": PYTHON,
    "javascript": JAVASCRIPT,
    "typescript": JAVASCRIPT,
    "tsx": JAVASCRIPT,
    "go": GO,
    "rust": RUST,
    "java": JAVA,
    "c": C,
    "cpp": CPP,
    "csharp": CSHARP,
    "ruby": RUBY,
    "php": PHP,
    "json": JSON,
    "yaml": YAML,
    "toml": TOML,
    "markdown": MARKDOWN,
}
