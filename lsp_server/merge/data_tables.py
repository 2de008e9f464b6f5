"""The tables of the data formats and Markdown: keys and sections (see tables.py)."""

from __future__ import annotations

import itertools

from .table_types import LanguageTable, Node, text


def _key_name(node: Node) -> str | None:
    key = node.child_by_field_name("key")
    if key is None:
        key = next((c for c in node.named_children if c.type in (
            "bare_key", "dotted_key", "quoted_key", "string")), None)
    return None if key is None else text(key).strip().strip("\"'")


def _json_object_body(node: Node) -> Node | None:
    if node.type == "object":
        return node
    value = node.child_by_field_name("value")
    return value if value is not None and value.type == "object" else None


def _yaml_mapping_body(node: Node) -> Node | None:
    value = node.child_by_field_name("value")
    if value is None or value.type != "block_node" or not value.named_children:
        return None
    mapping = value.named_children[0]
    return mapping if mapping.type == "block_mapping" else None


def _heading_name(node: Node) -> str | None:
    heading = node.named_children[0] if node.named_children else None
    if heading is None or "heading" not in heading.type:
        return None
    first = text(heading).strip().splitlines()[0]
    return " ".join(first.split())


_VALUE_ENDS = ('"', "}", "]", "e", "l", *tuple("0123456789"))
_MEMBER_STARTS = ('"', "{", "[", "-", "t", "f", "n", *tuple("0123456789"))


def repair_json_commas(lines: list[str]) -> list[str]:
    """Commas where a merge moved JSON members: a member followed by another ends with a
    comma, the last one of an object or array does not. Lines with a comment are left alone
    (JSONC); in a valid file this changes nothing."""
    out = list(lines)
    following = [i for i, line in enumerate(out) if line.strip()]
    for i, j in itertools.pairwise(following):
        line, ahead = out[i].rstrip(), out[j].strip()
        if "//" in line or "/*" in line or ahead.startswith(("//", "/*")):
            continue
        if line.endswith(",") and ahead.startswith(("}", "]")):
            out[i] = line[:-1]
        elif line.endswith(_VALUE_ENDS) and ahead.startswith(_MEMBER_STARTS):
            out[i] = line + ","
    return out


JSON = LanguageTable(
    default_gap=0,
    definitions=frozenset({"pair", "object"}),
    containers=frozenset({"pair", "object"}),
    transparent=frozenset({"document"}),
    always_by_member=frozenset({"pair", "object"}),
    elision_stand_in="",
    member_wrapper=("{", "}"),
    name_rules={"pair": _key_name, "object": lambda node: "{}"},
    body_rules={"pair": _json_object_body, "object": _json_object_body},
    repair=repair_json_commas,
)
YAML = LanguageTable(
    default_gap=0,
    definitions=frozenset({"block_mapping_pair"}),
    containers=frozenset({"block_mapping_pair"}),
    transparent=frozenset({"document", "block_node", "block_mapping"}),
    always_by_member=frozenset({"block_mapping_pair"}),
    comment_prefixes=("#",),
    elision_stand_in="#",
    name_rules={"block_mapping_pair": _key_name},
    body_rules={"block_mapping_pair": _yaml_mapping_body},
)
TOML = LanguageTable(
    default_gap=0,
    definitions=frozenset({"pair", "table", "table_array_element"}),
    containers=frozenset({"table", "table_array_element"}),
    always_by_member=frozenset({"table", "table_array_element"}),
    comment_prefixes=("#",),
    elision_stand_in="#",
    name_rules={"pair": _key_name, "table": _key_name, "table_array_element": _key_name},
    body_rules={"table": lambda node: node, "table_array_element": lambda node: node},
)
MARKDOWN = LanguageTable(
    definitions=frozenset({"section", "minus_metadata", "plus_metadata"}),
    containers=frozenset({"section"}),
    transparent=frozenset({"document"}),
    always_by_member=frozenset({"section"}),
    comments=frozenset(),
    comment_prefixes=("<!--",),
    elision_stand_in="",
    intro_is_header=True,
    dedent=False,
    name_rules={"section": _heading_name, "minus_metadata": lambda node: "---",
                "plus_metadata": lambda node: "+++"},
    body_rules={"section": lambda node: node},
)
