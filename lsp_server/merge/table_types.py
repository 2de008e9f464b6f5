"""What a language's table says (see tables.py, units.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Node = Any
NameRule = Callable[[Node], "str | None"]


@dataclass(frozen=True)
class LanguageTable:
    definitions: frozenset[str]
    containers: frozenset[str] = frozenset()  # definitions whose body holds members
    bodies: frozenset[str] = frozenset()  # a container's body node, when not field "body"
    wrappers: frozenset[str] = frozenset()  # hold one definition (export, decorators)
    transparent: frozenset[str] = frozenset()  # hold units of the same region (`extern "C"`)
    decorators: frozenset[str] = frozenset()
    imports: frozenset[str] = frozenset()
    declarators: frozenset[str] = frozenset()  # inner nodes naming a declaration
    comments: frozenset[str] = frozenset({"comment"})
    comment_prefixes: tuple[str, ...] = ("//", "/*", "*")
    elision_stand_in: str = "//"  # what an elision line becomes for the parser
    member_wrapper: tuple[str, str] | None = None  # parses a member pasted alone
    source_prefix: str = ""  # a snippet parses only after it (PHP's `<?php`)
    always_by_member: frozenset[str] = frozenset()  # containers never replaced whole
    name_rules: dict[str, NameRule] = field(default_factory=dict)
    body_rules: dict[str, Callable[[Node], Node | None]] = field(default_factory=dict)
    import_key: NameRule | None = None
    body_call: NameRule | None = None
    is_import: Callable[[Node], bool] | None = None  # imports that are calls (Ruby)
    prefix_decorators: frozenset[str] = frozenset()  # siblings above a unit (Rust's #[..])
    intro_is_header: bool = False  # Markdown: a section's text is its header, subsections
    repair: Callable[[list[str]], list[str]] | None = None  # JSON's commas after a merge
    default_gap: int = 1  # blank lines before a new unit in a region of one unit
    dedent: bool = True  # a snippet is parsed dedented (not Markdown: indentation is code)


def text(node: Node | None) -> str:
    return "" if node is None else node.text.decode("utf-8", "replace")


def field_text(field_name: str) -> NameRule:
    def rule(node: Node) -> str | None:
        child = node.child_by_field_name(field_name)
        return text(child) if child is not None else None
    return rule
