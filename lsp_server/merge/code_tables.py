"""The tables of the programming languages (see tables.py)."""

from __future__ import annotations

from .table_types import LanguageTable, Node, field_text, text

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


def _js_import_source(node: Node) -> str | None:
    """An import's module without its quotes (``"./a"`` and ``'./a'`` are one module)."""
    source = node.child_by_field_name("source")
    return None if source is None else text(source).strip("'\"`")


def _python_assignment(node: Node) -> str | None:
    """A top-level ``NAME = ...`` (or ``NAME: T = ...``) statement's name."""
    if not node.named_children or node.named_children[0].type != "assignment":
        return None
    left = node.named_children[0].child_by_field_name("left")
    return text(left) if left is not None and left.type == "identifier" else None


PYTHON = LanguageTable(
    definitions=frozenset({"function_definition", "class_definition", "expression_statement"}),
    containers=frozenset({"class_definition"}),
    wrappers=frozenset({"decorated_definition"}),
    decorators=frozenset({"decorator"}),
    imports=frozenset({"import_statement", "import_from_statement", "future_import_statement"}),
    comment_prefixes=("#",),
    elision_stand_in="pass",
    name_rules={"expression_statement": _python_assignment},
    import_key=field_text("module_name"),
)

_JS_DEFINITIONS = frozenset({
    "function_declaration", "generator_function_declaration", "class_declaration",
    "abstract_class_declaration", "method_definition", "lexical_declaration",
    "variable_declaration", "field_definition", "public_field_definition",
    "interface_declaration", "type_alias_declaration", "enum_declaration",
    "abstract_method_signature", "method_signature", "property_signature", "module",
    "internal_module", "function_signature",
})
JAVASCRIPT = LanguageTable(
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
    body_rules={"expression_statement": _js_call_body},
    import_key=_js_import_source,
    body_call=_js_body_call,
)

def _go_method_name(node: Node) -> str | None:
    """``Cart.Add`` for ``func (c *Cart) Add()``: Go methods are top-level units."""
    receiver = node.child_by_field_name("receiver")
    name = node.child_by_field_name("name")
    if name is None:
        return None
    types = [] if receiver is None else [
        text(p.child_by_field_name("type")).lstrip("*").split("[")[0]
        for p in receiver.named_children if p.child_by_field_name("type") is not None]
    return f"{types[0]}.{text(name)}" if types else text(name)


def _first_spec_name(node: Node) -> str | None:
    """The first name a Go ``type``/``const``/``var`` declaration declares."""
    for child in node.named_children:
        name = child.child_by_field_name("name")
        if name is not None:
            return text(name)
        for sub in child.named_children:  # a grouped declaration: ( ... )
            name = sub.child_by_field_name("name")
            if name is not None:
                return text(name)
    return None


def _rust_impl_name(node: Node) -> str | None:
    trait = node.child_by_field_name("trait")
    kind = text(node.child_by_field_name("type"))
    return f"impl {text(trait)} for {kind}" if trait is not None else f"impl {kind}"


def _c_declaration_name(node: Node) -> str | None:
    """A declaration's name; a function prototype's name ends in ``;`` so that it is not the
    function's definition of the same name."""
    declarator = node.child_by_field_name("declarator")
    prototype = False
    while declarator is not None and declarator.type not in (
            "identifier", "field_identifier", "qualified_identifier", "type_identifier",
            "operator_name", "destructor_name"):
        prototype = prototype or declarator.type == "function_declarator"
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None:
        return None
    return text(declarator) + (";" if prototype else "")


def _ruby_block_call(node: Node) -> str | None:
    """``describe("x")`` for ``describe "x" do ... end``."""
    if node.type != "call" or _ruby_block_body(node) is None:
        return None
    args = node.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    label = text(first) if first is not None and first.type == "string" else ""
    return f"{text(node.child_by_field_name('method'))}({label})"


def _ruby_block_body(node: Node) -> Node | None:
    block = node.child_by_field_name("block")
    if block is None:
        return None
    return next((c for c in block.named_children if c.type in ("body_statement",
                                                                "block_body")), None)


def _ruby_is_import(node: Node) -> bool:
    return node.type == "call" and text(node.child_by_field_name("method")) in (
        "require", "require_relative", "load") and node.child_by_field_name("block") is None


_C_FAMILY_DEFINITIONS = frozenset({
    "function_definition", "declaration", "type_definition", "struct_specifier",
    "union_specifier", "enum_specifier", "preproc_def", "preproc_function_def",
})
C = LanguageTable(
    definitions=_C_FAMILY_DEFINITIONS,
    imports=frozenset({"preproc_include"}),
    declarators=frozenset({"init_declarator"}),
    name_rules={"declaration": _c_declaration_name},
    transparent=frozenset({"linkage_specification", "declaration_list"}),
    import_key=field_text("path"),
)
CPP = LanguageTable(
    definitions=_C_FAMILY_DEFINITIONS | {"class_specifier", "namespace_definition",
                                         "field_declaration", "alias_declaration",
                                         "concept_definition"},
    containers=frozenset({"class_specifier", "struct_specifier", "namespace_definition"}),
    bodies=frozenset({"field_declaration_list", "declaration_list"}),
    wrappers=frozenset({"template_declaration"}),
    imports=frozenset({"preproc_include", "using_declaration"}),
    declarators=frozenset({"init_declarator"}),
    name_rules={"declaration": _c_declaration_name, "field_declaration": _c_declaration_name},
    transparent=frozenset({"linkage_specification"}),
    member_wrapper=("class __Snippet__ {", "};"),
    always_by_member=frozenset({"namespace_definition"}),
    import_key=field_text("path"),
)
GO = LanguageTable(
    definitions=frozenset({"function_declaration", "method_declaration", "type_declaration",
                           "const_declaration", "var_declaration"}),
    imports=frozenset({"import_declaration"}),
    name_rules={"method_declaration": _go_method_name, "type_declaration": _first_spec_name,
                "const_declaration": _first_spec_name, "var_declaration": _first_spec_name},
)
RUST = LanguageTable(
    definitions=frozenset({"function_item", "function_signature_item", "struct_item",
                           "enum_item", "union_item", "trait_item", "impl_item", "mod_item",
                           "const_item", "static_item", "type_item", "macro_definition",
                           "associated_type"}),
    containers=frozenset({"impl_item", "trait_item", "mod_item"}),
    bodies=frozenset({"declaration_list"}),
    imports=frozenset({"use_declaration", "extern_crate_declaration"}),
    comments=frozenset({"line_comment", "block_comment"}),
    prefix_decorators=frozenset({"attribute_item"}),
    always_by_member=frozenset({"mod_item"}),
    name_rules={"impl_item": _rust_impl_name},
)
JAVA = LanguageTable(
    definitions=frozenset({"class_declaration", "interface_declaration", "enum_declaration",
                           "record_declaration", "annotation_type_declaration",
                           "method_declaration", "constructor_declaration",
                           "field_declaration", "constant_declaration",
                           "compact_constructor_declaration"}),
    containers=frozenset({"class_declaration", "interface_declaration", "enum_declaration",
                          "record_declaration"}),
    bodies=frozenset({"class_body", "interface_body", "enum_body"}),
    decorators=frozenset({"annotation", "marker_annotation"}),
    imports=frozenset({"import_declaration"}),
    comments=frozenset({"line_comment", "block_comment"}),
    declarators=frozenset({"variable_declarator"}),
    member_wrapper=("class __Snippet__ {", "}"),
)
CSHARP = LanguageTable(
    definitions=frozenset({"class_declaration", "struct_declaration", "interface_declaration",
                           "enum_declaration", "record_declaration", "method_declaration",
                           "constructor_declaration", "property_declaration",
                           "field_declaration", "namespace_declaration", "delegate_declaration",
                           "event_declaration", "destructor_declaration",
                           "operator_declaration", "indexer_declaration"}),
    containers=frozenset({"class_declaration", "struct_declaration", "interface_declaration",
                          "record_declaration", "namespace_declaration"}),
    bodies=frozenset({"declaration_list"}),
    decorators=frozenset({"attribute_list"}),
    imports=frozenset({"using_directive"}),
    declarators=frozenset({"variable_declaration", "variable_declarator"}),
    transparent=frozenset({"file_scoped_namespace_declaration"}),
    member_wrapper=("class __Snippet__ {", "}"),
    always_by_member=frozenset({"namespace_declaration"}),
)
RUBY = LanguageTable(
    definitions=frozenset({"method", "singleton_method", "class", "module",
                           "singleton_class"}),
    containers=frozenset({"class", "module", "singleton_class", "call"}),
    bodies=frozenset({"body_statement"}),
    comment_prefixes=("#",),
    elision_stand_in="#",
    body_rules={"call": _ruby_block_body},
    body_call=_ruby_block_call,
    is_import=_ruby_is_import,
)
PHP = LanguageTable(
    definitions=frozenset({"function_definition", "class_declaration",
                           "interface_declaration", "trait_declaration", "enum_declaration",
                           "method_declaration", "property_declaration",
                           "const_declaration"}),
    containers=frozenset({"class_declaration", "interface_declaration", "trait_declaration",
                          "enum_declaration"}),
    bodies=frozenset({"declaration_list", "enum_declaration_list"}),
    decorators=frozenset({"attribute_list"}),
    imports=frozenset({"namespace_use_declaration"}),
    comment_prefixes=("//", "/*", "*", "#"),
    declarators=frozenset({"property_element", "const_element"}),
    member_wrapper=("class __Snippet__ {", "}"),
    source_prefix="<?php",
)
