"""The units of a parsed file or snippet: its definitions (with qualified names), imports and
other statements, read from a tree-sitter tree through one table per language.

A :class:`Unit` is line-based: what the merge needs is which lines a definition spans, which of
them are its leading comment and decorators, and, for a container (a class, an impl, a
``describe`` call, a Markdown section), which lines hold its members. The tables below say which
node types are definitions, containers, wrappers (``export``, decorators, templates) and
imports; the code reading them is the same for every language.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .tables import TABLES, LanguageTable

Node = Any  # a tree_sitter.Node (tree-sitter is imported lazily, see grammars.py)

_IDENTIFIERS = frozenset({
    "identifier", "type_identifier", "property_identifier", "field_identifier", "constant",
    "name", "simple_identifier", "namespace_identifier", "private_property_identifier",
    "bare_key", "quoted_key", "dotted_key", "string", "string_content", "plain_scalar",
    "double_quote_scalar", "single_quote_scalar", "scoped_identifier", "qualified_identifier",
    "operator_name", "destructor_name", "field_expression", "scoped_type_identifier",
    "variable_name",
})


@dataclass
class Unit:
    """One unit of a region: a definition, an import, or another statement."""

    kind: str  # "def" | "import" | "other"
    name: str | None  # a definition's name (without modifiers); an import's module key
    start: int  # first line, decorators included, leading comment excluded
    def_start: int  # first line after the decorators
    end: int  # exclusive: after its last line
    comment_start: int  # first line of the leading comment (== start without one)
    node_type: str = ""
    inner: tuple[int, int] | None = None  # a container's member lines [start, end)
    elided_end: int = -1  # after the elision lines ending the unit (its end without any)
    member_by_member: bool = False  # a container merged member by member even when whole
    # A container's members are read when first asked for: a merge into a big file reads
    # the members of the few containers it touches, not of every class of the file.
    _members: list[Unit] | None = field(default=None, repr=False)
    _read: Callable[[], list[Unit]] | None = field(default=None, repr=False)

    @property
    def is_container(self) -> bool:
        return self.inner is not None

    @property
    def members(self) -> list[Unit]:
        if self._members is None:
            self._members = self._read() if self._read is not None else []
            self._read = None
        return self._members


class UnitReader:
    """Reads the units of one tree with its language's table."""

    def __init__(self, table: LanguageTable, lines: list[str], skip_lines: frozenset[int]):
        self.table = table
        self.lines = lines
        self.skip = skip_lines  # lines that are elisions (or their stand-ins)
        self.comment_lines: set[int] = set()

    def units_of(self, root: Node) -> list[Unit]:
        return self._region(root.named_children)

    # ------------------------------------------------------------------------- regions

    def _region(self, nodes: list[Node]) -> list[Unit]:
        units: list[Unit] = []
        self._note_comments(nodes)
        attached: int | None = None  # first line of attributes above the next unit
        for node in nodes:
            if node.type in self.table.comments:
                continue
            if node.type in self.table.prefix_decorators:
                attached = node.start_point[0] if attached is None else attached
                continue
            for unit in self._units_of_node(node):
                if all(line in self.skip for line in range(unit.start, unit.end)):
                    continue
                if attached is not None:
                    unit.start = attached
                    unit.comment_start = self._comment_start(attached)
                    attached = None
                units.append(unit)
        return units

    def _units_of_node(self, node: Node) -> list[Unit]:
        table = self.table
        if node.type in table.transparent:
            return self._region(node.named_children)
        inner = self._unwrap(node)
        if inner.type in table.imports or (table.is_import is not None
                                           and table.is_import(inner)):
            return [self._unit(node, inner, "import", self._import_key(inner))]
        if inner.type in table.definitions:
            names = self._names(inner)
            if names:
                return [self._unit(node, inner, "def", name) for name in names[:1]]
        call_name = self._body_call_name(inner)
        if call_name is not None:
            return [self._unit(node, inner, "def", call_name)]
        return [self._unit(node, inner, "other", None)]

    def _unwrap(self, node: Node) -> Node:
        """The definition a wrapper (export, decorated definition, template) holds."""
        while node.type in self.table.wrappers:
            inner = next((c for c in reversed(node.named_children)
                          if c.type not in self.table.decorators
                          and c.type not in self.table.comments), None)
            if inner is None:
                return node
            node = inner
        return node

    def _unit(self, outer: Node, inner: Node, kind: str, name: str | None) -> Unit:
        start = outer.start_point[0]
        end = self._last_line(outer) + 1
        def_start = self._def_start(outer, inner)
        unit = Unit(kind, name, start, def_start, end, self._comment_start(start),
                    inner.type)
        unit.elided_end = self._elided_end(outer, end)
        if kind == "def":
            self._read_members(unit, inner)
        return unit

    def _elided_end(self, node: Node, end: int) -> int:
        """After the elision lines that end the node (``# ... rest of the function``), or
        ``end`` when it ends with no elision."""
        if not self.skip:  # a file's units: no elision lines
            return end
        last = min(_end_line(node), len(self.lines) - 1)
        elided = [i for i in range(end, last + 1) if i in self.skip]
        return elided[-1] + 1 if elided else end

    def _last_line(self, node: Node) -> int:
        """A unit ends at its last non-blank line that is no elision."""
        last = min(_end_line(node), len(self.lines) - 1)
        while last > node.start_point[0] and (last in self.skip or not self.lines[last].strip()):
            last -= 1
        return last

    # ---------------------------------------------------------------------- names

    def _names(self, node: Node) -> list[str]:
        table = self.table
        special = table.name_rules.get(node.type)
        if special is not None:
            name = special(node)
            return [name] if name else []
        named = node.child_by_field_name("name")
        if named is not None:
            return [_text(named)]
        for field_name in ("declarator", "left", "key", "pattern", "type"):
            child = node.child_by_field_name(field_name)
            if child is not None:
                found = self._identifier(child)
                if found:
                    return [found]
        for child in node.named_children:
            if child.type in table.declarators:
                return self._names(child)
            if child.type in _IDENTIFIERS:
                return [_text(child)]
        return []

    def _identifier(self, node: Node) -> str | None:
        """The identifier a declarator names (``*f(int)`` -> ``f``)."""
        if node.type in _IDENTIFIERS:
            return _text(node)
        for field_name in ("declarator", "name", "left"):
            child = node.child_by_field_name(field_name)
            if child is not None:
                return self._identifier(child)
        if node.type in self.table.declarators or node.type in self.table.definitions:
            names = self._names(node)
            return names[0] if names else None
        return None

    def _import_key(self, node: Node) -> str:
        rule = self.table.import_key
        key = rule(node) if rule is not None else None
        return f"{node.type}:{key if key is not None else ' '.join(_text(node).split())}"

    def _body_call_name(self, node: Node) -> str | None:
        """``describe("x")`` for a call statement whose last argument is a function literal."""
        rule = self.table.body_call
        return rule(node) if rule is not None else None

    # ---------------------------------------------------------- decorators, comments

    def _def_start(self, outer: Node, inner: Node) -> int:
        """The first line after the decorators (attributes, annotations) of a unit."""
        first = outer.start_point[0]
        for node in (outer, inner):
            for child in node.children:
                if child.type in self.table.decorators or child.type in self.table.comments:
                    first = max(first, child.end_point[0] + 1)
                    continue
                if child.type == "modifiers":  # Java: annotations inside the modifiers
                    for sub in child.children:
                        if sub.type in self.table.decorators:
                            first = max(first, sub.end_point[0] + 1)
                break
        return min(first, inner.end_point[0])

    def _note_comments(self, nodes: list[Node]) -> None:
        """Lines that hold comments among ``nodes`` (where leading comments are looked for;
        only a region's own nodes are walked, never the whole tree)."""
        for node in nodes:
            if node.type in self.table.comments:
                self.comment_lines.update(range(node.start_point[0], node.end_point[0] + 1))

    def _comment_start(self, start: int) -> int:
        """The first line of the comment lines directly above ``start`` (no blank line
        between, elisions excluded)."""
        line = start
        while (line - 1 >= 0 and line - 1 in self.comment_lines and line - 1 not in self.skip
               and self.lines[line - 1].strip()
               and _only_comment(self.lines[line - 1], self.table)):
            line -= 1
        return line

    # -------------------------------------------------------------------- members

    def _read_members(self, unit: Unit, node: Node) -> None:
        body = self._body(node)
        if body is None:
            return
        self._note_comments(node.children)
        open_line, close_line = self._body_lines(node, body)
        close_line = max(close_line, open_line)
        unit.member_by_member = node.type in self.table.always_by_member
        members = [c for c in body.named_children if open_line <= c.start_point[0] < close_line]
        if self.table.intro_is_header:  # a section's text up to its first subsection
            members = [c for c in members if c.type == node.type]
            open_line = members[0].start_point[0] if members else close_line
        unit.inner = (open_line, close_line)
        unit._read = lambda: self._region(members)

    def _body(self, node: Node) -> Node | None:
        rule = self.table.body_rules.get(node.type)
        if rule is not None:
            return rule(node)
        if node.type not in self.table.containers:
            return None
        body = node.child_by_field_name("body")
        if body is None:
            body = next((c for c in node.named_children if c.type in self.table.bodies), None)
        return body

    def _body_lines(self, node: Node, body: Node) -> tuple[int, int]:
        """The lines strictly inside a container's body: after the line of its opening
        (``{``, ``:``, ``do``, the header) and before the line of its closing (``}``,
        ``end``)."""
        return self._open_line(node, body), self._close_line(node, body)

    def _open_line(self, node: Node, body: Node) -> int:
        children = body.children
        if children and not children[0].is_named and children[0].type in _OPENINGS:
            return children[0].end_point[0] + 1
        if body == node and children:  # a Markdown section: after its heading
            return _end_line(children[0]) + 1
        before = body.prev_sibling  # the header's last token (`:`, a superclass)
        while before is not None and before.type in self.table.comments:
            before = before.prev_sibling
        return (before.end_point[0] if before is not None else node.start_point[0]) + 1

    def _close_line(self, node: Node, body: Node) -> int:
        closing = body.children[-1] if body.children else None
        if closing is not None and not closing.is_named and closing.type in _CLOSINGS:
            return closing.start_point[0]
        after = body.next_sibling  # Ruby's `end` after the body statements
        if after is not None and not after.is_named:
            return after.start_point[0]
        return self._last_line(node) + 1


_OPENINGS = frozenset({"{", "do", "(", "[", "[["})
_CLOSINGS = frozenset({"}", "end", ")"})


def _end_line(node: Node) -> int:
    """The last line of ``node`` (a node ending at column 0 ends on the line before)."""
    row, column = node.end_point
    return row - 1 if column == 0 and row > node.start_point[0] else row


def _only_comment(line: str, table: LanguageTable) -> bool:
    text = line.strip()
    return text.startswith(table.comment_prefixes)


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace")


def read_units(language: str, root: Node, lines: list[str],
               skip_lines: frozenset[int] = frozenset()) -> list[Unit]:
    """The top-level units of a tree of ``language``."""
    return UnitReader(TABLES[language], lines, skip_lines).units_of(root)


def unit_starting_at(language: str, root: Node, lines: list[str], line: int,
                     node_type: str | None = None) -> Unit | None:
    """The outermost definition starting on ``line``, at any depth of the tree (one the
    regions do not list: a function nested in a function's body), or with ``node_type`` the
    outermost statement of that type starting there (an ``if`` block); None when there is
    none."""
    text = lines[line]
    column = len(text.encode("utf-8")) - len(text.lstrip().encode("utf-8"))
    node = root.named_descendant_for_point_range((line, column), (line, column))
    reader = UnitReader(TABLES[language], lines, frozenset())
    table = reader.table
    found = None
    while node is not None and node.start_point[0] == line:
        if (node.type == node_type if node_type is not None
                else node.type in table.definitions or node.type in table.wrappers):
            found = node
        node = node.parent
    if found is None:
        return None
    if node_type is not None:
        return reader._unit(found, found, "other", None)
    units = reader._units_of_node(found)
    return units[0] if units and units[0].kind == "def" else None
