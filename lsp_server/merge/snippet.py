"""The merge by definitions (docs/formats.md, `code-block`, "Definitions by name").

The snippet's units are matched to the file's by qualified name, region by region (the file's
top level, then the members of a container shown with elisions). Each unit answers edits on
the file's lines; the edits are checked for overlap and applied together, or the merge fails
and nothing changes. New definitions are placed by their neighbours (placement.py), imports
join the import block (imports.py), other lines are located by content (content.py).
"""

from __future__ import annotations

from ..matching import strip_ws
from ..reindent import leading_ws
from ..removed_lines import removes_most_of
from .content import content_spans
from .elided import ElisionPlaces
from .imports import import_edits
from .indent import reindent
from .placement import insert_new_units
from .regions import accessor, before_blanks, groups, search_key, trimmed, walk
from .results import fail
from .snippet_state import Edit, SnippetState
from .tables import TABLES
from .units import Unit

# Markdown front matter (its node type) and the language of its lines.
_FRONT_MATTER = {"minus_metadata": "yaml", "plus_metadata": "toml"}


class SnippetMerge(SnippetState):
    """One snippet merged into one file's lines: the definitions matched by name, region by
    region."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._file_units: list[Unit] = []
        self.places = ElisionPlaces(self.file_lines, self.code_lines, self.elided)
        self._shown: set[str | None] = set()

    def _everywhere(self, name: str | None) -> list[Unit]:
        """The file's definitions named ``name`` at any depth, outside the containers the
        snippet shows (asked only for a unit the region does not have: a method pasted
        alone). Only containers whose text mentions the name are read."""
        key = search_key(name)
        return [unit for unit, _ in walk(self._file_units, (), self._shown,
                                          self.file_lines, key) if unit.name == name]

    # ------------------------------------------------------------------------ regions

    def merge_top(self, file_units: list[Unit], code_units: list[Unit]) -> None:
        self._shown = {u.name for u in code_units if u.kind == "def" and u.is_container}
        self._file_units = file_units
        imports = [u for u in code_units if u.kind == "import"]
        self.edits += import_edits(self, file_units, imports)
        others = [u for u in code_units if u.kind != "import"]
        self.merge_region(file_units, (0, len(self.file_lines)), others, top=True)

    def merge_region(self, file_units: list[Unit], file_span: tuple[int, int],
                     code_units: list[Unit], top: bool) -> None:
        new: list[Unit] = []
        for group in groups(code_units, self.elided):
            if group[0].kind != "def":
                self._locate_others(group, file_span)
                continue
            new += [unit for unit in group
                    if not self._merged_by_name(unit, file_units, file_span, top)]
        if new:
            self.edits += insert_new_units(self, new, code_units, file_units, file_span)

    def _merged_by_name(self, unit: Unit, file_units: list[Unit], file_span: tuple[int, int],
                        top: bool) -> bool:
        """Merges a definition into the file's of its name (or, when the regions do not list
        it, the one its first line is); False when it is new."""
        match = self._match(unit, file_units, top)
        if match is not None:
            self._merge_unit(unit, match)
            return True
        first_line = self._first_line_in_file(unit, file_span)
        hidden = None if first_line is None else self.unit_at(first_line, None)
        if hidden is not None:
            self._merge_unit(unit, hidden)
        elif first_line is not None:  # the file has it, as no definition
            self._locate_others([unit], file_span)
        elif top and leading_ws(self.code_lines[unit.def_start]):
            raise fail("not-found", f"`{unit.name}` is new and written indented, as a member "
                       "of something the code block does not show; show the class (or block) "
                       "it goes in", None, unplaced=tuple(self.code_lines[unit.start:unit.end]))
        else:
            return False
        return True

    def _block_by_first_line(self, unit: Unit, file_span: tuple[int, int]) -> bool:
        if unit.end - unit.def_start < 2 or not unit.node_type:
            return False
        header = [self.code_lines[unit.def_start]]
        places = self.matcher.find_all(header, "whitespace", file_span[0], file_span[1])
        block = self.unit_at(places[0], unit.node_type) if len(places) == 1 else None
        if block is None or removes_most_of(self.file_lines[block.def_start:block.end],
                                            self.code_lines[unit.def_start:unit.end]):
            return False  # not there, or shown so partly that its lines go by content
        self.placed[id(unit)] = (block.comment_start, block.end)
        self.edits.append(Edit(block.comment_start, block.end, self._composed(unit, block)))
        return True

    def _first_line_in_file(self, unit: Unit, file_span: tuple[int, int]) -> int | None:
        """Where the region has the unit's first line (ignoring indentation), once: a
        definition the regions do not list (a function nested in a function's body), or text
        the file has as no definition (a heading inside a fenced block), never added a
        second time as new."""
        header = [self.code_lines[unit.def_start]]
        places = self.matcher.find_all(header, "whitespace", file_span[0], file_span[1])
        if len(places) > 1:
            raise fail("ambiguous", f"The file has {len(places)} lines "
                       f"`{strip_ws(header[0])}`; choose one (the `at` fix)", places[0],
                       candidates=tuple(places))
        return places[0] if places else None

    def _locate_others(self, group: list[Unit], file_span: tuple[int, int]) -> None:
        """Statements that are no definition: located by content within the region. A block
        statement (``if __name__ == "__main__":``) whose first line the region has once, as
        the same statement, is replaced as a definition would be: its extent is the tree's."""
        if self.blocks_by_first_line and len(group) == 1 and self._block_by_first_line(
                group[0], file_span):
            return
        lo, hi = group[0].comment_start, group[-1].end
        run_lines = self.code_lines[lo:hi]
        elided = [i - lo for i in self.elided if lo <= i < hi]
        spans = content_spans(self.matcher, run_lines, elided, self.whitespace,
                              file_span[0], file_span[1], self.at_line)
        for span in spans:
            self.edits.append(Edit(span.start, span.end, span.new))
        if spans:
            for unit in group:
                self.placed[id(unit)] = (spans[0].start, spans[-1].end)

    # ---------------------------------------------------------------------- matching

    def _match(self, unit: Unit, file_units: list[Unit], top: bool) -> Unit | None:
        """The file's definition of the unit's name in the region (at any depth for a unit
        of the top level the region does not have), or None: a new definition."""
        same = [f for f in file_units if f.kind == "def" and f.name == unit.name]
        if not same and top:
            same = self._everywhere(unit.name)
        if len(same) > 1:
            return self._chosen(unit, same)
        return same[0] if same else None

    def _chosen(self, unit: Unit, same: list[Unit]) -> Unit:
        """The one of several definitions of a name that starts at the `at` line, or the
        one that is the same accessor (a property's getter or setter, `get`/`set`)."""
        chosen = [f for f in same if self.at_line in (f.comment_start, f.start, f.def_start)]
        if len(chosen) == 1:
            return chosen[0]
        role = accessor(self.code_lines, unit)
        chosen = [f for f in same if accessor(self.file_lines, f) == role]
        if len(chosen) == 1:
            return chosen[0]
        places = tuple(sorted({f.def_start for f in same}))
        raise fail("ambiguous", f"The file has {len(places)} definitions named "
                   f"`{unit.name}`; choose one (the `at` fix) or show its container",
                   places[0], candidates=places)

    def _merge_unit(self, unit: Unit, match: Unit) -> None:
        self.by_name += 1
        self.placed[id(unit)] = (match.comment_start, match.end)
        if unit.node_type in _FRONT_MATTER and unit.node_type == match.node_type:
            self._merge_front_matter(unit, match)
        elif unit.is_container and match.is_container and (
                unit.member_by_member or match.member_by_member
                or any(unit.start <= i < unit.end for i in self.elided)
                or self._shows_a_part(unit, match)):
            self._merge_members(unit, match)
        else:
            self.edits.append(Edit(match.comment_start, match.end, self._composed(unit, match)))

    def _merge_front_matter(self, unit: Unit, match: Unit) -> None:
        """A Markdown document's front matter, merged by key in its own language (the lines
        between its fences)."""
        code_lo, code_hi = unit.start + 1, unit.end - 1
        elided = [i - code_lo for i in self.elided if code_lo <= i < code_hi]
        try:
            lines, _ = merge_by_definitions(
                self.file_lines[match.start + 1:match.end - 1],
                self.code_lines[code_lo:code_hi], elided, _FRONT_MATTER[unit.node_type],
                self.whitespace, None)
        except SyntaxProblem as problem:
            raise fail("syntax-error", f"{problem} of the front matter", match.start) from None
        self._replace_if_changed(match.start + 1, match.end - 1, lines)

    def _shows_a_part(self, unit: Unit, match: Unit) -> bool:
        """Whether a container shown without elisions would, replaced whole, remove more
        than half of the file's container's non-blank lines: it shows the members that
        change (models write a class with only its changed method), merged member by member
        as if an elision ended it."""
        return removes_most_of(self.file_lines[match.def_start:match.end],
                               self.code_lines[unit.def_start:unit.end]) is not None

    def _merge_members(self, unit: Unit, match: Unit) -> None:
        """A container shown with elisions: its header and closing lines replace the
        file's, and its members merge one by one; the members it does not show stay."""
        assert unit.inner is not None and match.inner is not None
        # The blank lines between the header and the first member stay the file's.
        code_end = before_blanks(self.code_lines, unit.def_start, unit.inner[0])
        file_end = before_blanks(self.file_lines, match.def_start, match.inner[0])
        header = self._composed(unit, match, (unit.def_start, code_end),
                                (match.def_start, file_end))
        if removes_most_of(self.file_lines[match.comment_start:file_end], header):
            # Most of a long header is not shown (a section's first lines of text): the
            # lines shown are placed by content, the others stay.
            self._header_by_content(unit, code_end, (match.comment_start, file_end))
        else:
            self._replace_if_changed(match.comment_start, file_end, header)
        closing = self._indented(self._code_range(unit.inner[1], unit.end), unit, match)
        self._replace_if_changed(match.inner[1], match.end, closing)
        self.merge_region(match.members, match.inner, unit.members, top=False)

    def _header_by_content(self, unit: Unit, code_end: int, file_span: tuple[int, int]
                           ) -> None:
        lo = unit.comment_start
        elided = [i - lo for i in self.elided if lo <= i < code_end]
        for span in content_spans(self.matcher, self.code_lines[lo:code_end], elided,
                                  self.whitespace, file_span[0], file_span[1], self.at_line):
            self._replace_if_changed(span.start, span.end, span.new)

    def _replace_if_changed(self, start: int, end: int, lines: list[str]) -> None:
        if self.file_lines[start:end] != lines:
            self.edits.append(Edit(start, end, lines))

    # ------------------------------------------------------------------ composition

    def _composed(self, unit: Unit, match: Unit, code_body: tuple[int, int] | None = None,
                  file_body: tuple[int, int] | None = None) -> list[str]:
        """The unit's new lines for the file: its leading comment and decorators when it
        shows its own (else the file's), its body (by default from its definition line to
        its end) with elisions filled from the file, at the file unit's indentation."""
        lines: list[str] = []
        if unit.comment_start < unit.start:
            lines += self._indented(self.code_lines[unit.comment_start:unit.start], unit, match)
        else:
            lines += self.file_lines[match.comment_start:match.start]
        if unit.start < unit.def_start:
            lines += self._indented(self.code_lines[unit.start:unit.def_start], unit, match)
        else:
            lines += self.file_lines[match.start:match.def_start]
        # A definition's trailing elisions are inside it: they keep the rest of the file's.
        code_body = code_body or (unit.def_start, max(unit.end, unit.elided_end))
        file_body = file_body or (match.def_start, match.end)
        return lines + self._filled(unit, match, code_body, file_body)

    def _code_range(self, start: int, end: int) -> list[str]:
        return [line for i, line in enumerate(self.code_lines[start:end], start)
                if i not in self.elided]

    def _indented(self, lines: list[str], unit: Unit, match: Unit) -> list[str]:
        from_ws = leading_ws(self.code_lines[unit.def_start])
        to_ws = leading_ws(self.file_lines[match.def_start])
        return reindent(lines, from_ws, to_ws, self.code_unit, lambda: self.file_unit)

    def _filled(self, unit: Unit, match: Unit, code_body: tuple[int, int],
                file_body: tuple[int, int]) -> list[str]:
        """The snippet's lines ``code_body``, each elision replaced by the file lines it
        stands for: those between the shown lines around it, located in the file's lines
        ``file_body`` (ignoring surrounding whitespace), unique there."""
        out: list[str] = []
        code_lo, code_hi = code_body
        file_pos = file_body[0]  # file lines before this are accounted for
        run_start = code_lo
        for e in sorted(i for i in self.elided if code_lo <= i < code_hi):
            # The blank lines around an elision are the file's, among the lines it keeps.
            out += trimmed(self._indented(self.code_lines[run_start:e], unit, match))
            kept_from, kept_to = self.places.span(code_body, file_body, e, file_pos)
            out += self.file_lines[kept_from:kept_to]
            file_pos = kept_to
            run_start = e + 1
            while run_start < code_hi and not self.code_lines[run_start].strip():
                run_start += 1
        out += self._indented(self.code_lines[run_start:code_hi], unit, match)
        return out


class SyntaxProblem(Exception):
    """The file or the snippet does not parse: no merge by definitions."""

    def __init__(self, what: str, line: int) -> None:
        super().__init__(f"{what} has a syntax error at line {line + 1}")
        self.what = what
        self.line = line


def merge_by_definitions(file_lines: list[str], code_lines: list[str], elided: list[int],
                         language: str, whitespace: bool, at_line: int | None
                         ) -> tuple[list[str], int]:
    """The file's new lines and how many definitions were merged by name; raises
    :class:`SyntaxProblem` when either text does not parse, a merge failure otherwise."""
    from .parsed import parse_file, parse_snippet  # loads tree-sitter: only here

    file_parsed = parse_file(language, file_lines)
    if file_parsed.error_line is not None:
        raise SyntaxProblem("The file", file_parsed.error_line)
    code_parsed = parse_snippet(language, code_lines, elided)
    if code_parsed.error_line is not None:
        raise SyntaxProblem("The code block", code_parsed.error_line)
    merge = SnippetMerge(file_lines, code_lines, frozenset(elided), whitespace, at_line,
                         default_gap=TABLES[language].default_gap,
                         ellipsis_is_code=language == "python",
                         blocks_by_first_line=language != "markdown",
                         unit_at=file_parsed.unit_at)
    merge.merge_top(file_parsed.units, code_parsed.units)
    lines = apply_edits(file_lines, merge.edits)
    repair = TABLES[language].repair
    return (repair(lines) if repair is not None else lines), merge.by_name


def apply_edits(file_lines: list[str], edits: list[Edit]) -> list[str]:
    """``file_lines`` with ``edits`` applied; two edits on the same lines fail the merge."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    out: list[str] = []
    pos = 0
    for edit in ordered:
        if edit.start < pos:
            raise fail("not-found", f"Two parts of the code block change the file's line "
                       f"{edit.start + 1}; show each definition once", edit.start)
        out += file_lines[pos:edit.start]
        out += edit.lines
        pos = max(pos, edit.end)
    out += file_lines[pos:]
    return out
