"""One table per language: which tree-sitter nodes are definitions, containers, wrappers,
decorators, comments and imports (see units.py, which reads them the same way for every
language). A rule function appears only where a table entry cannot say it."""

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


def text(node: Node | None) -> str:
    return "" if node is None else node.text.decode("utf-8", "replace")


def _field_text(field_name: str) -> NameRule:
    def rule(node: Node) -> str | None:
        child = node.child_by_field_name(field_name)
        return text(child) if child is not None else None
    return rule


_FUNCTION_LITERALS = frozenset({"arrow_function", "function_expression", "function"})


def _js_body_call(node: Node) -> str | None:
    """``describe("x")`` for ``describe("x", () => {...});``."""
    call = _js_call_with_body(node)
    if call is None:
        return None
    args = call.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    label = text(first) if first is not None and first.type in ("string", "template_string") \
        else ""
    return f"{text(call.child_by_field_name('function'))}({label})"


def _js_call_with_body(node: Node) -> Node | None:
    if node.type != "expression_statement" or not node.named_children:
        return None
    call = node.named_children[0]
    if call.type != "call_expression":
        return None
    args = call.child_by_field_name("arguments")
    if args is None or not args.named_children:
        return None
    if args.named_children[-1].type not in _FUNCTION_LITERALS:
        return None
    return call


def _js_call_body(node: Node) -> Node | None:
    call = _js_call_with_body(node)
    if call is None:
        return None
    function = call.child_by_field_name("arguments").named_children[-1]
    body = function.child_by_field_name("body")
    return body if body is not None and body.type == "statement_block" else None


def _python_assignment(node: Node) -> str | None:
    """A top-level ``NAME = ...`` (or ``NAME: T = ...``) statement's name."""
    if not node.named_children or node.named_children[0].type != "assignment":
        return None
    left = node.named_children[0].child_by_field_name("left")
    return text(left) if left is not None and left.type == "identifier" else None


_PYTHON = LanguageTable(
    definitions=frozenset({"function_definition", "class_definition", "expression_statement"}),
    containers=frozenset({"class_definition"}),
    wrappers=frozenset({"decorated_definition"}),
    decorators=frozenset({"decorator"}),
    imports=frozenset({"import_statement", "import_from_statement", "future_import_statement"}),
    comment_prefixes=("#",),
    elision_stand_in="pass",
    name_rules={"expression_statement": _python_assignment},
    import_key=_field_text("module_name"),
)

_JS_DEFINITIONS = frozenset({
    "function_declaration", "generator_function_declaration", "class_declaration",
    "abstract_class_declaration", "method_definition", "lexical_declaration",
    "variable_declaration", "field_definition", "public_field_definition",
    "interface_declaration", "type_alias_declaration", "enum_declaration",
    "abstract_method_signature", "method_signature", "property_signature", "module",
    "internal_module", "function_signature",
})
_JAVASCRIPT = LanguageTable(
    definitions=_JS_DEFINITIONS,
    containers=frozenset({"class_declaration", "abstract_class_declaration",
                          "interface_declaration", "enum_declaration", "internal_module",
                          "module", "expression_statement"}),
    bodies=frozenset({"class_body", "interface_body", "object_type", "enum_body",
                      "statement_block"}),
    wrappers=frozenset({"export_statement", "ambient_declaration"}),
    decorators=frozenset({"decorator"}),
    imports=frozenset({"import_statement"}),
    declarators=frozenset({"variable_declarator"}),
    member_wrapper=("class __Snippet__ {", "}"),
    body_rules={"expression_statement": _js_body_call},
    import_key=_field_text("source"),
    body_call=_js_body_call,
)
# _js_body_call names the unit; its body is the function literal's block.
_JAVASCRIPT.body_rules["expression_statement"] = _js_call_body

TABLES: dict[str, LanguageTable] = {
    "python": _PYTHON,
    "javascript": _JAVASCRIPT,
    "typescript": _JAVASCRIPT,
    "tsx": _JAVASCRIPT,
}
