"""planning: docs/formats.md's common rules, seed 002's error table, and each format's locate rules.

Blocks are built directly (the planner's input), so these tests do not depend on the parsers;
a few at the end go through ``plan_response`` with real responses.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.file_text import BOM, apply_text_edits
from lsp_server.model import (
    Block,
    FileEdit,
    FileSnapshot,
    Hunk,
    ParseResult,
    ParseWarning,
    PlanResult,
    ResourceOp,
)
from lsp_server.planning import plan_edits, plan_response

APP = (
    "import os\n"
    "\n"
    "\n"
    "def greet(name):\n"
    '    """Say hello."""\n'
    '    return "Hello, " + name\n'
    "\n"
    "\n"
    "def add(a, b):\n"
    "    return a + b\n"
    "\n"
    "\n"
    "def main():\n"
    '    print(greet("world"))\n'
    "    print(add(1, 2))\n"
)


class Workspace:
    """Files as the caller sees them (buffers or disk), and applying a plan like an editor."""

    def __init__(self, root: Path, files: dict[str, str | bytes | None], versions=None):
        self.root = root
        self.texts: dict[Path, str | None] = {}
        self.binary: set[Path] = set()
        self.dirs: set[Path] = set()
        self.versions = versions or {}
        self.reads: list[Path] = []
        for rel, text in files.items():
            p = root / rel
            if text is None:
                self.dirs.add(p)
            elif isinstance(text, bytes):
                self.binary.add(p)
                self.texts[p] = text.decode("latin-1")
            else:
                self.texts[p] = text

    def read(self, path: Path) -> FileSnapshot:
        self.reads.append(path)
        if path in self.dirs:
            return FileSnapshot(text=None, is_dir=True)
        if path in self.binary:
            return FileSnapshot(text=None, binary=True)
        rel = str(path.relative_to(self.root))
        return FileSnapshot(text=self.texts.get(path), version=self.versions.get(rel))

    def plan(self, *blocks: Block, **kw) -> PlanResult:
        for i, b in enumerate(blocks):
            b.index = i
        return plan_edits(ParseResult(blocks=list(blocks)), self.read, [self.root], **kw)

    def apply(self, result: PlanResult) -> dict[str, str | None]:
        """Apply ``changes`` in order as an editor would; returns {relative path: text}."""
        out = dict(self.texts)
        for ch in result.changes:
            if isinstance(ch, ResourceOp):
                if ch.kind == "create":
                    assert out.get(ch.path) is None, "CreateFile over an existing file"
                    out[ch.path] = ""
                elif ch.kind == "rename":
                    assert out.get(ch.path) is not None and out.get(ch.new_path) is None
                    out[ch.new_path], out[ch.path] = out[ch.path], None
                else:
                    assert out.get(ch.path) is not None
                    out[ch.path] = None
            else:
                assert isinstance(ch, FileEdit)
                cur = out[ch.path]
                assert cur is not None
                bom = cur.startswith(BOM)
                body = cur[1:] if bom else cur
                assert body == ch.original
                new = apply_text_edits(body, ch.edits)
                assert new == ch.new_text
                out[ch.path] = (BOM if bom else "") + new
        return {str(p.relative_to(self.root)): t for p, t in out.items()}


@pytest.fixture
def ws(tmp_path: Path):
    def make(files: dict[str, str | bytes | None], versions=None) -> Workspace:
        return Workspace(tmp_path / "ws", files, versions)

    return make


def v3(file: str, anchor: list[str], old: list[str], new: list[str], **kw) -> Block:
    return Block(format="edit-v3", file=file, anchor=anchor, old=old, new=new, **kw)


def v2(file: str, anchor, old, new, trailing, **kw) -> Block:
    return Block(format="edit-v2", file=file, anchor=anchor, old=old, new=new,
                 trailing=trailing, **kw)


def hunk(lines: str, header: str = "", anchor: str | None = None, **kw) -> Hunk:
    """A hunk from diff-body text: each line starts with ' ', '-' or '+'."""
    body = [(line[0], line[1:]) for line in lines.split("\n") if line]
    return Hunk(header=header, lines=body, anchor=anchor, **kw)


def statuses(result: PlanResult) -> list[str]:
    return [b.status for b in result.blocks]


# ------------------------------------------------------------------ seed 002 error table


def test_exact_match_applies_and_reports_line(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(v3("app.py", ["def add(a, b):"], ["    return a + b"], ["    return a * b"]))
    assert statuses(r) == ["validated"]
    assert r.blocks[0].line == 8 and r.blocks[0].match == "exact"
    assert w.apply(r)["app.py"] == APP.replace("a + b", "a * b")


def test_leading_anchor_not_found_with_line_hint(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(v3("app.py", ["def add(a, c):"], ["    return a + b"], ["    return a * b"]))
    b = r.blocks[0]
    assert b.status == "failed" and b.reason.startswith("Leading anchor not found in file")
    assert b.line == 8
    assert r.changes == []


def test_ambiguous_names_both_lines_and_reports_the_first(ws) -> None:
    w = ws({"app.py": APP + "\n\ndef add2(a, b):\n    return a + b\n"})
    r = w.plan(v3("app.py", [], ["    return a + b"], ["    return a - b"]))
    b = r.blocks[0]
    assert b.reason == "Edit location is ambiguous (matches at lines 10 and 19)"
    assert b.line == 9


def test_old_lines_dont_match_after_anchor(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(v2("app.py", ["def add(a, b):"], ["    return a - b"], ["x"], []))
    b = r.blocks[0]
    assert b.reason.startswith("Old lines don't match content after anchor")
    assert b.line == 8


def test_trailing_anchor_not_found_after_old_lines(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(v2("app.py", ["def add(a, b):"], ["    return a + b"], ["x"], ["def main():"]))
    assert r.blocks[0].reason.startswith("Trailing anchor not found after old lines")
    assert r.blocks[0].line == 8


def test_file_not_found(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(v3("src/nope.py", ["def f():"], ["    pass"], ["    return 1"]))
    assert r.blocks[0].reason == "File not found: src/nope.py"
    assert r.blocks[0].status == "failed"


def test_binary_file_fails_at_line_0_and_later_blocks_skip(ws) -> None:
    w = ws({"data.bin": b"abc\n\x00\x01\n", "app.py": APP})
    r = w.plan(
        v3("data.bin", [], ["abc"], ["abd"]),
        v3("data.bin", [], ["abc"], ["abe"]),
        v3("app.py", ["def add(a, b):"], ["    return a + b"], ["    return a * b"]),
    )
    assert statuses(r) == ["failed", "skipped", "validated"]
    assert r.blocks[0].reason == "Cannot edit binary file" and r.blocks[0].line == 0
    assert r.blocks[1].reason == "Previous edit to this file failed" and r.blocks[1].line is None


def test_nul_in_a_buffer_is_binary_too(ws) -> None:
    w = ws({"b.txt": "abc\n\x00\n"})
    r = w.plan(v3("b.txt", [], ["abc"], ["abd"]))
    assert r.blocks[0].reason == "Cannot edit binary file"


def test_skip_after_failure_same_file_only(ws) -> None:
    w = ws({"app.py": APP, "other.py": "x = 1\n"})
    r = w.plan(
        v3("app.py", ["def nothere():"], [], ["    pass"]),
        v3("app.py", ["def add(a, b):"], ["    return a + b"], ["    return a * b"]),
        v3("other.py", [], ["x = 1"], ["x = 2"]),
    )
    assert statuses(r) == ["failed", "skipped", "validated"]
    assert w.apply(r) == {"app.py": APP, "other.py": "x = 2\n"}


# --------------------------------------------------------------- modifications / ops


def test_insertion_after_anchor(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(v3("app.py", ["import os"], [], ["import sys"]))
    assert w.apply(r)["app.py"] == APP.replace("import os\n", "import os\nimport sys\n")


def test_insert_at_start_with_trailing_anchor_only(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(v2("app.py", [], [], ['"""Doc."""', ""], ["import os"]))
    assert w.apply(r)["app.py"] == '"""Doc."""\n\n' + APP
    assert r.blocks[0].line == 0


def test_deletion(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(v3("app.py", ["def main():"], ['    print(greet("world"))'], []))
    assert w.apply(r)["app.py"] == APP.replace('    print(greet("world"))\n', "")


def test_sequential_edits_see_earlier_results(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(
        v3("app.py", ["def add(a, b):"], ["    return a + b"], ["    return a * b"]),
        v3("app.py", ["def add(a, b):"], ["    return a * b"], ["    return a * b * 1"]),
        v3("app.py", [], ["import os"], ["import os, sys"]),
    )
    assert statuses(r) == ["validated"] * 3
    assert w.apply(r)["app.py"] == APP.replace("a + b", "a * b * 1").replace(
        "import os", "import os, sys")
    # one FileEdit with minimal edits against the original text
    (fe,) = r.changes
    assert isinstance(fe, FileEdit) and fe.original == APP
    assert [(e.start_line, e.end_line) for e in fe.edits] == [(0, 1), (9, 10)]


def test_dry_run_validates_and_apply_mode_applies(ws) -> None:
    w = ws({"app.py": APP})
    block = v3("app.py", [], ["import os"], ["import sys"])
    assert statuses(w.plan(block)) == ["validated"]
    assert statuses(w.plan(block, dry_run=False)) == ["applied"]


def test_trailing_newline_state_is_kept(ws) -> None:
    no_final = APP.rstrip("\n")
    w = ws({"app.py": no_final})
    r = w.plan(v3("app.py", [], ["    print(add(1, 2))"], ["    print(add(3, 4))"]))
    assert w.apply(r)["app.py"] == no_final.replace("add(1, 2)", "add(3, 4)")
    r = w.plan(v3("app.py", ["    print(add(1, 2))"], [], ["main()"]))
    assert w.apply(r)["app.py"] == no_final + "\nmain()"
    r = w.plan(v3("app.py", ['    print(greet("world"))'], ["    print(add(1, 2))"], []))
    assert w.apply(r)["app.py"] == no_final[: no_final.rindex("\n")]


def test_crlf_and_bom_are_kept(ws) -> None:
    crlf = "\ufeff" + APP.replace("\n", "\r\n")
    w = ws({"app.py": crlf})
    r = w.plan(v3("app.py", ["def add(a, b):"], ["    return a + b"], ["    return a * b", "# x"]))
    assert w.apply(r)["app.py"] == crlf.replace("a + b\r\n", "a * b\r\n# x\r\n")
    (fe,) = r.changes
    assert fe.has_bom and not fe.original.startswith(BOM)
    assert fe.edits[0].start_line == 9  # line 0 counts from after the BOM


def test_lone_cr_line_numbers_agree_with_editors(ws) -> None:
    w = ws({"m.txt": "a\rb\rc\r"})
    r = w.plan(v3("m.txt", ["b"], ["c"], ["C"]))
    assert r.blocks[0].line == 1
    assert w.apply(r)["m.txt"] == "a\rb\rC\r"


# ----------------------------------------------------------------------- common rules


def test_lines_not_substrings(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(v3("app.py", [], ["    return a + "], ["    return a - "]))
    assert r.blocks[0].status == "failed" and r.blocks[0].line == 9


def test_exact_mode_whitespace_mismatch_fails_at_the_tolerant_match_with_a_fix(ws) -> None:
    w = ws({"app.py": APP.replace("def add(a, b):", "def add(a, b):   ")})
    r = w.plan(v3("app.py", ["def add(a, b):"], ["    return a + b"], ["    return a * b"]))
    b = r.blocks[0]
    assert b.status == "failed" and b.line == 8
    assert b.fixes == {"matching": "whitespace"}
    assert "line 9" in b.reason and "trailing" in b.reason
    # the same block with whitespace tolerance applies, keeping the file's anchor text
    r = w.plan(v3("app.py", ["def add(a, b):"], ["    return a + b"], ["    return a * b"]),
               matching="whitespace")
    assert r.blocks[0].match == "whitespace"
    assert w.apply(r)["app.py"] == APP.replace("def add(a, b):", "def add(a, b):   ").replace(
        "a + b", "a * b")


def test_whitespace_mode_exact_unique_wins(ws) -> None:
    text = APP + "\n\nclass Calc:\n    def add(a, b):\n        return a + b\n"
    w = ws({"app.py": text})
    r = w.plan(v3("app.py", ["def add(a, b):"], ["    return a + b"], ["    return a * b"]),
               matching="whitespace")
    assert r.blocks[0].match == "exact" and r.blocks[0].line == 8


def test_whitespace_mode_ambiguous_fails(ws) -> None:
    text = APP + "\n\nclass Calc:\n    def add(a, b):\n        return a + b\n"
    w = ws({"app.py": text})
    r = w.plan(v3("app.py", [], ["  return a + b"], ["  return a - b"]), matching="whitespace")
    b = r.blocks[0]
    assert b.status == "failed" and b.reason.startswith("Edit location is ambiguous")
    assert b.line == 9


def test_reindent_adds_the_files_offset_to_inserted_lines(ws) -> None:
    text = "class C:\n    def f(self):\n        return 1\n\n    def g(self):\n        pass\n"
    w = ws({"c.py": text})
    block = v3(
        "c.py",
        ["def f(self):"],
        ["    return 1"],
        ["    if self:", "        return 2", "", "    return 1"],
    )
    r = w.plan(block, matching="whitespace")
    assert r.blocks[0].match == "whitespace"
    assert w.apply(r)["c.py"] == text.replace(
        "        return 1\n",
        "        if self:\n            return 2\n\n        return 1\n",
    )


def test_reindent_removes_an_offset(ws) -> None:
    text = "def f():\n  x = 1\n"
    w = ws({"f.py": text})
    r = w.plan(v3("f.py", ["    def f():"], ["      x = 1"], ["      x = 2", "      y = 3"]),
               matching="whitespace")
    assert w.apply(r)["f.py"] == "def f():\n  x = 2\n  y = 3\n"


def test_reindent_inconsistent_offset_writes_lines_as_given(ws) -> None:
    text = "def f():\n\tx = 1\n"
    w = ws({"f.py": text})
    r = w.plan(v3("f.py", ["def f():"], ["    x = 1"], ["    x = 2"]), matching="whitespace")
    # anchor offset "" vs body offset tab-for-spaces: no consistent offset
    assert w.apply(r)["f.py"] == "def f():\n    x = 2\n"


def test_whitespace_mode_kept_lines_keep_the_files_text(ws) -> None:
    text = "if a:\n\tb()\n\tc()\n"
    w = ws({"t.py": text})
    # old and new share "    c()": kept, so the file's tab stays. Tab vs four spaces is no
    # consistent offset, so the inserted d() is written as given.
    r = w.plan(v3("t.py", [], ["    b()", "    c()"], ["    d()", "    c()"]),
               matching="whitespace")
    assert w.apply(r)["t.py"] == "if a:\n    d()\n\tc()\n"
    # with a consistent offset (four more spaces) the inserted line is re-indented
    w = ws({"t.py": "if a:\n        b()\n        c()\n"})
    r = w.plan(v3("t.py", [], ["    b()", "    c()"], ["    d()", "    c()"]),
               matching="whitespace")
    assert w.apply(r)["t.py"] == "if a:\n        d()\n        c()\n"


def test_unique_or_nothing_never_first_occurrence(ws) -> None:
    w = ws({"d.txt": "x\ny\nx\ny\n"})
    r = w.plan(v3("d.txt", [], ["x", "y"], ["z"]))
    assert r.blocks[0].status == "failed" and r.changes == []


def test_block_with_several_hunks_applies_all_or_none(ws) -> None:
    w = ws({"app.py": APP})
    good = hunk("-import os\n+import sys\n")
    bad = hunk(" def nothere():\n-    pass\n+    return 1\n")
    r = w.plan(Block(format="hunk-patch", file="app.py", hunks=[good, bad]))
    b = r.blocks[0]
    assert b.status == "failed" and "hunk 2 of 2" in b.reason
    assert r.changes == []


def test_paths_outside_the_workspace_fail_and_nothing_is_written(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(
        Block(format="edit-v3", file="../escape.py", op="create", new=["x = 1"]),
        Block(format="edit-v3", file="/etc/hostname", op="create", new=["pwned"]),
        v3("app.py", [], ["import os"], ["import sys"]),
    )
    assert statuses(r) == ["failed", "failed", "validated"]
    assert "outside" in r.blocks[0].reason and r.blocks[0].path is None
    assert all(isinstance(c, FileEdit) and c.path == w.root / "app.py" for c in r.changes)


def test_buffer_versions_are_carried(ws) -> None:
    w = ws({"app.py": APP}, versions={"app.py": 42})
    r = w.plan(v3("app.py", [], ["import os"], ["import sys"]))
    assert r.changes[0].version == 42


def test_each_path_is_read_once(ws) -> None:
    w = ws({"app.py": APP})
    w.plan(v3("app.py", [], ["import os"], ["import sys"]),
           v3("app.py", [], ["import sys"], ["import re"]))
    assert w.reads == [w.root / "app.py"]


# ---------------------------------------------------------------- create never clobbers


def test_create_new_file_is_resource_op_then_fill(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(Block(format="edit-v3", file="pkg/sub/new.py", op="create", new=["VALUE = 42"]))
    create, fill = r.changes
    assert create == ResourceOp("create", w.root / "pkg/sub/new.py")
    assert isinstance(fill, FileEdit) and fill.version is None and fill.new_text == "VALUE = 42\n"
    assert w.apply(r)["pkg/sub/new.py"] == "VALUE = 42\n"


def test_create_text_verbatim_gets_a_final_newline(ws) -> None:
    w = ws({})
    r = w.plan(Block(format="hunk-patch", file="h.txt", op="create", create_text="Hello"))
    assert w.apply(r)["h.txt"] == "Hello\n"


def test_create_over_non_empty_file_fails(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(Block(format="edit-v3", file="app.py", op="create", new=["print('x')"]))
    assert r.blocks[0].reason == "File already exists" and r.changes == []


def test_create_fills_an_existing_empty_file_without_create_file(ws) -> None:
    w = ws({"app2.py": ""})
    r = w.plan(Block(format="edit-v2", file="app2.py", op="create", new=["x = 1"]))
    assert [type(c) for c in r.changes] == [FileEdit]
    assert w.apply(r)["app2.py"] == "x = 1\n"


def test_create_over_binary_or_directory_fails(ws) -> None:
    w = ws({"d": None, "b.bin": b"\x00"})
    r = w.plan(Block(format="edit-v3", file="d", op="create", new=["x"]),
               Block(format="edit-v3", file="b.bin", op="create", new=["x"]))
    assert statuses(r) == ["failed", "failed"]
    assert "directory" in r.blocks[0].reason and r.blocks[1].reason == "File already exists"


def test_create_after_create_in_the_same_response_fails(ws) -> None:
    w = ws({})
    r = w.plan(Block(format="edit-v3", file="n.py", op="create", new=["a"]),
               Block(format="edit-v3", file="other.py", op="create", new=["b"]),
               Block(format="edit-v3", file="n.py", op="create", new=["c"]))
    assert statuses(r) == ["validated", "validated", "failed"]


def test_delete_missing_or_directory_fails(ws) -> None:
    w = ws({"d": None, "old.txt": "bye\n"})
    r = w.plan(Block(format="hunk-patch", file="gone.txt", op="delete"),
               Block(format="hunk-patch", file="d", op="delete"),
               Block(format="hunk-patch", file="old.txt", op="delete"))
    assert statuses(r) == ["failed", "failed", "validated"]
    assert r.changes == [ResourceOp("delete", w.root / "old.txt")]
    assert w.apply(r)["old.txt"] is None


def test_rename_onto_existing_fails_and_missing_source_fails(ws) -> None:
    w = ws({"a.md": "# A\n", "b.md": "# B\n"})
    r = w.plan(Block(format="semantic-diff", file="a.md", op="rename", move_to="b.md"),
               Block(format="semantic-diff", file="c.md", op="rename", move_to="d.md"))
    assert statuses(r) == ["failed", "failed"]
    assert r.blocks[0].reason == "Target already exists: b.md"
    assert r.blocks[1].reason == "File not found: c.md"


def test_rename_target_is_confined(ws) -> None:
    w = ws({"a.md": "# A\n"})
    r = w.plan(Block(format="semantic-diff", file="a.md", op="rename", move_to="../a.md"))
    assert r.blocks[0].status == "failed" and "Target path refused" in r.blocks[0].reason


def test_update_then_move_edits_the_original_path_before_the_rename(ws) -> None:
    w = ws({"app.py": APP})
    b = Block(format="hunk-patch", file="app.py", move_to="src/app.py",
              hunks=[hunk(" def add(a, b):\n-    return a + b\n+    return a * b\n",
                          anchor="def add(a, b):")])
    later = v3("src/app.py", [], ["import os"], ["import sys"])
    r = w.plan(b, later)
    assert statuses(r) == ["validated", "validated"]
    fe, rename = r.changes
    assert isinstance(fe, FileEdit) and fe.path == w.root / "app.py"
    assert rename == ResourceOp("rename", w.root / "app.py", w.root / "src/app.py")
    assert w.apply(r) == {
        "app.py": None,
        "src/app.py": APP.replace("a + b", "a * b").replace("import os", "import sys"),
    }


def test_changes_order_pre_existing_edits_first_then_ops_in_block_order(ws) -> None:
    w = ws({"a.txt": "a\n", "b.txt": "b\n", "old.txt": "x\n"})
    r = w.plan(
        Block(format="unified-diff", file="new.txt", op="create", new=["n"]),
        v3("b.txt", [], ["b"], ["B"]),
        Block(format="unified-diff", file="old.txt", op="delete"),
        v3("a.txt", [], ["a"], ["A"]),
        v3("new.txt", ["n"], [], ["n2"]),
    )
    kinds = [
        (c.kind if isinstance(c, ResourceOp) else "edit", c.path.name) for c in r.changes
    ]
    assert kinds == [("edit", "b.txt"), ("edit", "a.txt"), ("create", "new.txt"),
                     ("edit", "new.txt"), ("delete", "old.txt")]
    assert w.apply(r)["new.txt"] == "n\nn2\n"


def test_delete_then_recreate(ws) -> None:
    w = ws({"x.txt": "old\n"})
    r = w.plan(Block(format="unified-diff", file="x.txt", op="delete"),
               Block(format="unified-diff", file="x.txt", op="create", new=["new"]))
    assert statuses(r) == ["validated", "validated"]
    assert w.apply(r)["x.txt"] == "new\n"


# ---------------------------------------------------------------------------- append


def test_append_creates_fills_or_appends_keeping_final_newline_state(ws) -> None:
    w = ws({"empty.py": "", "full.py": "a\n", "nofinal.py": "a"})
    mk = lambda f: Block(format="search-replace", file=f, op="append", new=["", "b"])  # noqa: E731
    r = w.plan(mk("missing.py"), mk("empty.py"), mk("full.py"), mk("nofinal.py"))
    assert statuses(r) == ["validated"] * 4
    assert w.apply(r) == {"missing.py": "\nb\n", "empty.py": "\nb\n", "full.py": "a\n\nb\n",
                          "nofinal.py": "a\n\nb"}
    assert sum(isinstance(c, ResourceOp) for c in r.changes) == 1


# ----------------------------------------------------------------------- semantic-diff


def test_semantic_diff_locates_ignoring_whitespace_and_writes_added_lines_verbatim(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(Block(format="semantic-diff", file="app.py",
                     old=["def add(a, b):", "  return a + b"],
                     new=["def add(a, b):", "  return a * b"]))
    assert r.blocks[0].match == "whitespace"
    # located despite the indentation; the added line as written (no re-indent), the kept
    # line keeps the file's text
    assert w.apply(r)["app.py"] == APP.replace("    return a + b", "  return a * b")


def test_semantic_diff_exact_first_then_unique(ws) -> None:
    text = "x = 1\n  x = 1\n"
    w = ws({"s.py": text})
    r = w.plan(Block(format="semantic-diff", file="s.py", old=["x = 1"], new=["x = 2"]))
    assert r.blocks[0].match == "exact" and w.apply(r)["s.py"] == "x = 2\n  x = 1\n"
    r = w.plan(Block(format="semantic-diff", file="s.py", old=[" x = 1"], new=["x = 2"]))
    assert r.blocks[0].status == "failed" and "ambiguous" in r.blocks[0].reason


# -------------------------------------------------------------------------- hunk-patch


def test_hunk_patch_anchor_equal_then_substring(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(Block(format="hunk-patch", file="app.py", hunks=[
        hunk('     print(greet("world"))\n-    print(add(1, 2))\n+    print(add(1, 3))\n',
             anchor="def main")]))
    assert statuses(r) == ["validated"]
    assert w.apply(r)["app.py"] == APP.replace("add(1, 2)", "add(1, 3)")


def test_hunk_patch_anchor_not_unique_or_missing(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(Block(format="hunk-patch", file="app.py", hunks=[
        hunk("-    return a + b\n+    return 0\n", anchor="def")]))
    assert r.blocks[0].reason.startswith("Found multiple matches")
    r = w.plan(Block(format="hunk-patch", file="app.py", hunks=[
        hunk("-    return a + b\n+    return 0\n", anchor="def nothere")]))
    assert r.blocks[0].reason.startswith("No match found")


def test_hunk_patch_old_lines_first_match_from_anchor(ws) -> None:
    text = "def a():\n    return 1\n\ndef b():\n    return 1\n"
    w = ws({"h.py": text})
    r = w.plan(Block(format="hunk-patch", file="h.py", hunks=[
        hunk("-    return 1\n+    return 2\n", anchor="def b():")]))
    assert r.blocks[0].line == 4
    assert w.apply(r)["h.py"] == text[: text.rindex("1")] + "2\n"


def test_hunk_patch_bare_header_must_be_unique(ws) -> None:
    w = ws({"app.py": APP + "\n\ndef add2(a, b):\n    return a + b\n"})
    r = w.plan(Block(format="hunk-patch", file="app.py",
                     hunks=[hunk("-    return a + b\n+    return 0\n")]))
    b = r.blocks[0]
    assert b.reason.startswith("Found multiple matches") and b.line == 9


def test_hunk_patch_bare_headers_search_after_the_previous_hunk(ws) -> None:
    text = "x\ny\nx\n"
    w = ws({"h.txt": text})
    r = w.plan(Block(format="hunk-patch", file="h.txt", hunks=[
        hunk(" x\n-y\n+Y\n"), hunk("-x\n+X\n")]))
    # the second hunk's "x" is unique after the first hunk's end (line 2)
    assert w.apply(r)["h.txt"] == "x\nY\nX\n"


def test_hunk_patch_plus_only_inserts_after_anchor_or_at_eof(ws) -> None:
    w = ws({"h.txt": "a\nb\nc\n"})
    r = w.plan(Block(format="hunk-patch", file="h.txt", hunks=[hunk("+after b\n", anchor="b")]))
    assert w.apply(r)["h.txt"] == "a\nb\nafter b\nc\n"
    r = w.plan(Block(format="hunk-patch", file="h.txt", hunks=[hunk("+end\n")]))
    assert w.apply(r)["h.txt"] == "a\nb\nc\nend\n"


def test_hunk_patch_hunks_located_before_the_diff_changes_made_together(ws) -> None:
    # The second hunk's context refers to the text before the first hunk changed it.
    w = ws({"h.txt": "one\ntwo\nthree\nfour\n"})
    r = w.plan(Block(format="hunk-patch", file="h.txt", hunks=[
        hunk("-one\n+ONE\n two\n"), hunk(" three\n-four\n+FOUR\n")]))
    assert w.apply(r)["h.txt"] == "ONE\ntwo\nthree\nFOUR\n"


def test_hunk_without_changes_is_an_error(ws) -> None:
    w = ws({"h.txt": "a\n"})
    r = w.plan(Block(format="hunk-patch", file="h.txt", hunks=[hunk(" a\n")]))
    assert r.blocks[0].status == "failed" and "no + or -" in r.blocks[0].reason


# ------------------------------------------------------------------------- apply-patch


def test_apply_patch_ladder_level_is_reported_and_context_keeps_file_text(ws) -> None:
    text = APP.replace("def add(a, b):", "def add(a, b):   ")
    w = ws({"app.py": text})
    r = w.plan(Block(format="apply-patch", file="app.py", hunks=[
        hunk(" def add(a, b):\n-    return a + b\n+    return a * b\n")]))
    assert r.blocks[0].match == "trailing-whitespace"
    assert w.apply(r)["app.py"] == text.replace("a + b", "a * b")


def test_apply_patch_unicode_level(ws) -> None:
    w = ws({"q.py": "msg = \u201chello\u201d\nx = 1\n"})
    r = w.plan(Block(format="apply-patch", file="q.py", hunks=[
        hunk(' msg = "hello"\n-x = 1\n+x = 2\n')]))
    assert r.blocks[0].match == "unicode"
    assert w.apply(r)["q.py"] == "msg = \u201chello\u201d\nx = 2\n"


def test_apply_patch_first_match_after_the_context_line_unique_under_a_bare_header(ws) -> None:
    text = "def a():\n    v = 1\n\ndef b():\n    v = 1\n"
    w = ws({"p.py": text})
    r = w.plan(Block(format="apply-patch", file="p.py", hunks=[
        hunk("-    v = 1\n+    v = 2\n", anchor="def b():")]))
    assert w.apply(r)["p.py"] == "def a():\n    v = 1\n\ndef b():\n    v = 2\n"
    # Without the @@ line Codex takes the first match; we fail as ambiguous, naming both
    # lines, and the at quick fix can place the hunk at either.
    bare = Block(format="apply-patch", file="p.py", hunks=[hunk("-    v = 1\n+    v = 2\n")])
    r = w.plan(bare)
    (failed,) = r.blocks
    assert failed.status == "failed" and r.changes == []
    assert failed.reason.startswith("Found multiple matches (lines 2 and 5)")
    assert (failed.line, failed.match, failed.fixes) == (
        1, None, {"candidateLines": [1, 4], "candidateCount": 2, "candidateHunk": 0})
    r = w.plan(bare, force_at={0: 4})
    assert w.apply(r)["p.py"] == "def a():\n    v = 1\n\ndef b():\n    v = 2\n"


def test_apply_patch_bare_hunks_are_unique_in_what_is_left_of_the_file(ws) -> None:
    w = ws({"p.py": "v = 1\nw = 1\nv = 1\n"})
    r = w.plan(Block(format="apply-patch", file="p.py", hunks=[
        hunk("-w = 1\n+w = 2\n"), hunk("-v = 1\n+v = 2\n")]))
    assert w.apply(r)["p.py"] == "v = 1\nw = 2\nv = 2\n"


def test_apply_patch_context_line_must_be_unique_after_the_previous_hunk(ws) -> None:
    text = "class A:\n    def f(self):\n        return 1\nclass B:\n    def f(self):\n" \
           "        return 1\n"
    w = ws({"p.py": text})
    r = w.plan(Block(format="apply-patch", file="p.py", hunks=[
        hunk("-        return 1\n+        return 2\n", anchor="    def f(self):")]))
    (failed,) = r.blocks
    assert failed.status == "failed" and failed.line == 1
    assert failed.fixes == {"candidateLines": [1, 4], "candidateCount": 2, "candidateHunk": 0}
    assert failed.reason.startswith(
        "Found multiple matches for context 'def f(self):' (lines 2 and 5)")
    r = w.plan(Block(format="apply-patch", file="p.py", hunks=[
        hunk("-        return 1\n+        return 0\n", anchor="class A:"),
        hunk("-        return 1\n+        return 2\n", anchor="    def f(self):")]))
    assert w.apply(r)["p.py"] == text.replace("1", "0", 1).replace("return 1", "return 2")


def test_apply_patch_update_without_hunks_fails_unless_it_moves(ws) -> None:
    w = ws({"p.py": "x = 1\n"})
    r = w.plan(Block(format="apply-patch", file="p.py", hunks=None))
    assert statuses(r) == ["failed"] and r.blocks[0].reason.startswith("Empty update")
    r = w.plan(Block(format="apply-patch", file="p.py", move_to="q.py", hunks=None))
    assert statuses(r) == ["validated"] and w.apply(r) == {"p.py": None, "q.py": "x = 1\n"}


def test_apply_patch_pure_insert_after_context_line_or_at_eof(ws) -> None:
    w = ws({"p.txt": "a\nb\nc\n"})
    r = w.plan(Block(format="apply-patch", file="p.txt", hunks=[hunk("+new\n", anchor="a")]))
    assert w.apply(r)["p.txt"] == "a\nnew\nb\nc\n"
    r = w.plan(Block(format="apply-patch", file="p.txt", hunks=[hunk("+new\n")]))
    assert w.apply(r)["p.txt"] == "a\nb\nc\nnew\n"


def test_apply_patch_end_of_file_prefers_the_last_match(ws) -> None:
    w = ws({"p.txt": "x\ny\nx\n"})
    r = w.plan(Block(format="apply-patch", file="p.txt",
                     hunks=[hunk("-x\n+z\n", end_of_file=True)]))
    assert w.apply(r)["p.txt"] == "x\ny\nz\n"


def test_apply_patch_final_newline_kept(ws) -> None:
    w = ws({"p.txt": "a\nb"})
    r = w.plan(Block(format="apply-patch", file="p.txt", hunks=[hunk(" a\n-b\n+c\n")]))
    assert w.apply(r)["p.txt"] == "a\nc"


def test_apply_patch_missing_context_fails(ws) -> None:
    w = ws({"p.txt": "a\nb\n"})
    r = w.plan(Block(format="apply-patch", file="p.txt", hunks=[hunk("-b\n+c\n", anchor="zzz")]))
    assert r.blocks[0].status == "failed" and "zzz" in r.blocks[0].reason


# ------------------------------------------------------------------------ unified-diff


def udiff_hunk(body: str, old_start: int | None) -> Hunk:
    return hunk(body, header=f"-{old_start},1 +{old_start},1", old_start=old_start)


def test_unified_content_wins_over_wrong_header_and_reports_offset(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(Block(format="unified-diff", file="app.py", hunks=[
        udiff_hunk(" def add(a, b):\n-    return a + b\n+    return a * b\n", 40)]))
    b = r.blocks[0]
    assert b.status == "validated" and b.line == 8 and b.offset == 8 - 39
    assert w.apply(r)["app.py"] == APP.replace("a + b", "a * b")


def test_unified_header_breaks_ties_nearest_wins(ws) -> None:
    text = APP + "\n\ndef add2(a, b):\n    return a + b\n"
    w = ws({"app.py": text})
    r = w.plan(Block(format="unified-diff", file="app.py",
                     hunks=[udiff_hunk("-    return a + b\n+    return a - b\n", 19)]))
    assert r.blocks[0].line == 18 and r.blocks[0].offset is None
    assert w.apply(r)["app.py"] == text[: text.rindex("+")] + "- b\n"


def test_unified_equally_near_is_ambiguous(ws) -> None:
    w = ws({"u.txt": "x\nm\nx\n"})
    r = w.plan(Block(format="unified-diff", file="u.txt",
                     hunks=[udiff_hunk("-x\n+y\n", 2)]))
    b = r.blocks[0]
    assert b.status == "failed" and "ambiguous" in b.reason and b.line == 0


def test_unified_shifts_header_by_previous_offset(ws) -> None:
    # Hunk 1's header says line 11 but it sits at line 1 (offset -10). Hunk 2's header says
    # 14: shifted by -10 that is line 4, so the "x" at line 4 (0-based 3) wins; the
    # unshifted header would have picked the last "x".
    w = ws({"u.txt": "a\nx\nb\nx\nc\nx\nd\nx\n"})
    r = w.plan(Block(format="unified-diff", file="u.txt", hunks=[
        udiff_hunk(" a\n-x\n+X\n", 11), udiff_hunk("-x\n+Y\n", 14)]))
    assert w.apply(r)["u.txt"] == "a\nX\nb\nY\nc\nx\nd\nx\n"
    assert r.blocks[0].offset == -10


def test_unified_pure_insertion_uses_the_header(ws) -> None:
    w = ws({"u.txt": "a\nb\n"})
    r = w.plan(Block(format="unified-diff", file="u.txt", hunks=[
        Hunk(header="-1,0 +2,1", lines=[("+", "new")], old_start=1)]))
    assert w.apply(r)["u.txt"] == "a\nnew\nb\n"


# -------------------------------------------------------------------- atomic, only, force


def test_atomic_failure_means_no_changes_others_stay_validated(ws) -> None:
    w = ws({"app.py": APP, "other.py": "x\n"})
    r = w.plan(v3("app.py", [], ["import os"], ["import sys"]),
               v3("other.py", [], ["nothing"], ["something"]),
               atomic=True, dry_run=False)
    assert statuses(r) == ["validated", "failed"]
    assert r.changes == [] and r.files_modified == []


def test_only_plans_the_given_blocks(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(v3("app.py", [], ["nothing"], ["x"]),
               v3("app.py", [], ["import os"], ["import sys"]), only={1})
    assert [b.index for b in r.blocks] == [1] and statuses(r) == ["validated"]


def test_force_at_applies_a_line_block_at_the_given_line(ws) -> None:
    w = ws({"app.py": APP})
    block = v3("app.py", ["def add(a, c):"], ["    return a + c"], ["    return a * b"])
    r = w.plan(block)
    assert r.blocks[0].status == "failed" and r.blocks[0].fixes.get("closestLine") == 8
    r = w.plan(block, force_at={0: 8})
    assert r.blocks[0].status == "validated"
    # the anchor line keeps the file's text; the old line is replaced
    assert w.apply(r)["app.py"] == APP.replace("a + b", "a * b")
    r = w.plan(block, force_at={0: 14})
    assert r.blocks[0].status == "failed"  # does not fit


def test_force_at_places_the_first_unlocatable_hunk(ws) -> None:
    w = ws({"h.txt": "a\nb\nc\n"})
    block = Block(format="unified-diff", file="h.txt",
                  hunks=[udiff_hunk(" a\n-B\n+X\n", 1)])
    assert w.plan(block).blocks[0].status == "failed"
    r = w.plan(block, force_at={0: 0})
    assert w.apply(r)["h.txt"] == "a\nX\nc\n"


def test_files_modified_lists_changed_paths(ws) -> None:
    w = ws({"app.py": APP, "old.txt": "x\n"})
    r = w.plan(v3("app.py", [], ["import os"], ["import sys"]),
               Block(format="hunk-patch", file="old.txt", op="delete"))
    assert r.files_modified == [w.root / "app.py", w.root / "old.txt"]


# ------------------------------------------------------------------- through the parsers


def test_plan_response_mixed_formats(ws) -> None:
    w = ws({"app.py": APP})
    response = (
        "app.py\n««« EDIT\ndef add(a, b):\n    return a + b\n═══════ REPL\n"
        "def add(a, b):\n    return a * b\n»»» EDIT END\n\n"
        "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n"
        "\nRemove it with `git rm legacy.py`.\n"
    )
    r = plan_response(response, w.read, [w.root])
    assert statuses(r) == ["validated", "validated"]
    assert r.shell_suggestions == ["git rm legacy.py"]
    files = w.apply(r)
    assert files["app.py"] == APP.replace("a + b", "a * b") and files["notes.txt"] == "hello\n"


def test_plan_response_formats_filter(ws) -> None:
    w = ws({"app.py": APP})
    response = "app.py\n««« EDIT\nimport os\n═══════ REPL\nimport sys\n»»» EDIT END\n"
    assert plan_response(response, w.read, [w.root], formats={"unified-diff"}).blocks == []
    r = plan_response(response, w.read, [w.root], formats={"edit-v3"}, dry_run=False)
    assert statuses(r) == ["applied"]


def test_force_at_places_the_failing_second_hunk(ws) -> None:
    w = ws({"h.txt": "a\nb\nc\nd\nvalue = 1\n"})
    block = Block(format="hunk-patch", file="h.txt", hunks=[
        hunk("-a\n+A\n"), hunk(" d\n-value = 2\n+value = 3\n")])
    r = w.plan(block)
    assert r.blocks[0].status == "failed" and r.blocks[0].fixes.get("closestLine") == 3
    r = w.plan(block, force_at={0: 3})
    assert w.apply(r)["h.txt"] == "A\nb\nc\nd\nvalue = 3\n"


def test_missing_context_line_offers_no_closest_fix(ws) -> None:
    w = ws({"p.txt": "alpha\nbeta\n"})
    r = w.plan(Block(format="apply-patch", file="p.txt",
                     hunks=[hunk("-beta\n+gamma\n", anchor="alphx")]))
    assert r.blocks[0].status == "failed" and "closestLine" not in r.blocks[0].fixes


def test_an_unexpected_error_fails_only_that_block(ws) -> None:
    # A malformed block (as a parser bug could produce) must not abort the whole plan.
    w = ws({"app.py": APP, "other.py": "x = 1\n"})
    broken = Block(format="edit-v3", file="app.py", anchor=None, old=["import os"], new=["x"])
    r = w.plan(broken, v3("app.py", [], ["import os"], ["import sys"]),
               v3("other.py", [], ["x = 1"], ["x = 2"]))
    assert statuses(r) == ["failed", "skipped", "validated"]
    assert r.blocks[0].reason.startswith("internal error while planning this block")


def test_sequential_blocks_compose_like_naive_replacement(ws) -> None:
    """Random files and random blocks (each unique in the file as earlier blocks left it):
    the plan's edits, applied to the original text, give the same text as replacing the
    blocks one by one."""
    import random

    rng = random.Random(31)
    vocab = [f"line {i}" for i in range(40)] + ["", "}", "    pass"]
    for trial in range(150):
        eol = rng.choice(["\n", "\r\n"])
        final = rng.random() < 0.8
        current = [rng.choice(vocab) for _ in range(rng.randint(1, 25))]
        if not final and current[-1] == "":
            current.append("end")  # a last empty line without newline is no line at all
        text = eol.join(current) + (eol if final else "")
        w = ws({f"f{trial}.txt": text})
        blocks = []
        for _ in range(rng.randint(1, 5)):
            if not current:
                break
            k = rng.randint(1, min(4, len(current)))
            s = rng.randint(0, len(current) - k)
            needle = current[s : s + k]
            starts = [i for i in range(len(current) - k + 1) if current[i : i + k] == needle]
            if starts != [s]:
                continue  # not unique: the planner would (rightly) refuse it
            a = rng.randint(0, k - 1)  # leading anchor lines
            new = [rng.choice(vocab) for _ in range(rng.randint(0, 3))]
            after = current[: s + a] + new + current[s + k :]
            if not final and after and after[-1] == "":
                continue
            blocks.append(v3(f"f{trial}.txt", needle[:a], needle[a:], new))
            current = after
        if not blocks:
            continue
        r = w.plan(*blocks)
        assert statuses(r) == ["validated"] * len(blocks), (text, blocks, r.blocks[0].reason)
        expected = eol.join(current) + (eol if final and current else "")
        assert w.apply(r)[f"f{trial}.txt"] == expected


def test_hunk_format_update_without_hunks_just_moves(ws) -> None:
    w = ws({"x.py": "x = 1\n"})
    r = w.plan(Block(format="unified-diff", file="x.py", move_to="y.py", hunks=None))
    assert statuses(r) == ["validated"]
    assert w.apply(r) == {"x.py": None, "y.py": "x = 1\n"}


# ------------------------------------------------------- already applied (FORMATS.md "Statuses")

DONE_APP = APP.replace("a + b", "a * b")


def test_a_block_applied_before_is_already_applied_and_changes_nothing(ws) -> None:
    w = ws({"app.py": DONE_APP})
    r = w.plan(v3("app.py", ["def add(a, b):"], ["    return a + b"], ["    return a * b"]),
               dry_run=False)
    assert statuses(r) == ["already-applied"] and r.ok
    assert (r.blocks[0].line, r.blocks[0].match, r.blocks[0].reason) == (8, "exact", None)
    assert r.changes == [] and r.files_modified == []


def test_later_blocks_for_the_file_go_on_after_an_already_applied_one(ws) -> None:
    w = ws({"app.py": DONE_APP})
    r = w.plan(v3("app.py", ["def add(a, b):"], ["    return a + b"], ["    return a * b"]),
               v3("app.py", [], ["import os"], ["import sys"]), dry_run=False)
    assert statuses(r) == ["already-applied", "applied"]
    assert w.apply(r)["app.py"] == DONE_APP.replace("import os", "import sys")


def test_atomic_goes_on_after_an_already_applied_block(ws) -> None:
    w = ws({"app.py": DONE_APP, "other.py": "X = 1\n"})
    r = w.plan(v3("app.py", ["def add(a, b):"], ["    return a + b"], ["    return a * b"]),
               v3("other.py", [], ["X = 1"], ["X = 2"]), atomic=True, dry_run=False)
    assert statuses(r) == ["already-applied", "applied"]
    assert w.apply(r) == {"app.py": DONE_APP, "other.py": "X = 2\n"}


def test_running_a_response_twice_applies_it_once(ws) -> None:
    blocks = [
        v3("app.py", ["def add(a, b):"], [], ['    """Add a and b."""']),
        Block(format="apply-patch", file="app.py", hunks=[hunk(
            " def main():\n-    print(greet(\"world\"))\n+    print(greet(\"you\"))\n")]),
        Block(format="apply-patch", file="new.py", op="create", new=["x = 1"]),
        Block(format="search-replace", file="app.py", op="append", new=["# end"]),
    ]
    first = ws({"app.py": APP})
    once = first.apply(first.plan(*blocks, dry_run=False))
    second = ws(dict(once))
    r = second.plan(*blocks, dry_run=False)
    assert statuses(r) == ["already-applied"] * 4
    assert r.changes == [] and second.apply(r) == once


def test_a_create_over_a_different_file_still_fails(ws) -> None:
    w = ws({"new.py": "x = 2\n"})
    r = w.plan(Block(format="apply-patch", file="new.py", op="create", new=["x = 1"]))
    assert statuses(r) == ["failed"] and r.blocks[0].reason == "File already exists"


def test_a_block_that_also_moves_its_file_is_never_already_applied(ws) -> None:
    w = ws({"x.py": "x = 2\n"})
    r = w.plan(Block(format="apply-patch", file="x.py", move_to="y.py",
                     hunks=[hunk("-x = 1\n+x = 2\n")]))
    assert statuses(r) == ["failed"]


# ------------------------------------------------------------- blocks that change nothing


def test_a_block_whose_old_and_new_text_are_equal_is_a_warning(ws) -> None:
    w = ws({"app.py": APP})
    same = v3("app.py", ["def add(a, b):"], ["    return a + b"], ["    return a + b"],
              response_line=7)
    context_only = Block(format="apply-patch", file="app.py", response_line=20,
                         hunks=[hunk(" def main():\n")])
    real = v3("app.py", [], ["import os"], ["import sys"], response_line=30)
    for index, block in enumerate((same, context_only, real)):
        block.index = index
    r = plan_edits(ParseResult(blocks=[same, context_only, real], warnings=[
        ParseWarning(12, "edit-v3 block is not closed")]), w.read, [w.root])
    assert statuses(r) == ["validated"] * 3
    assert [(x.response_line, x.message) for x in r.warnings] == [
        (7, "block 1 (app.py) changes nothing: its old and new text are the same"),
        (12, "edit-v3 block is not closed"),
        (20, "block 2 (app.py) changes nothing: its old and new text are the same"),
    ]
    assert w.apply(r)["app.py"] == APP.replace("import os", "import sys")


def test_a_block_changing_nothing_that_fails_only_fails(ws) -> None:
    w = ws({"app.py": APP})
    r = w.plan(v3("app.py", [], ["nowhere"], ["nowhere"]))
    assert statuses(r) == ["failed"] and r.warnings == []


# ---------------------------------------------------------------------- scenario folders
# tests/scenarios/<name>/: before/ (the workspace on disk), response.md, after/ (the whole
# workspace afterwards: files not listed there must be gone), expect.json ({"options",
# "blocks": [{"status", "line"?, "match"?, "reason_contains"?}]}). The driver reads files
# with workspace.read_disk_file and writes the plan's changes to disk, as the CLI does.

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()
    }


def _write_changes(result: PlanResult) -> None:
    for ch in result.changes:
        if isinstance(ch, ResourceOp):
            if ch.kind == "create":
                ch.path.parent.mkdir(parents=True, exist_ok=True)
                assert not ch.path.exists()
                ch.path.write_bytes(b"")
            elif ch.kind == "rename":
                assert ch.new_path is not None and not ch.new_path.exists()
                ch.new_path.parent.mkdir(parents=True, exist_ok=True)
                ch.path.rename(ch.new_path)
            else:
                ch.path.unlink()
        else:
            current = ch.path.read_bytes().decode("utf-8")
            assert current == (BOM if ch.has_bom else "") + ch.original
            assert apply_text_edits(ch.original, ch.edits) == ch.new_text
            ch.path.write_bytes(((BOM if ch.has_bom else "") + ch.new_text).encode("utf-8"))


@pytest.mark.parametrize("name", sorted(p.name for p in SCENARIOS.iterdir() if p.is_dir()))
def test_scenario(name: str, tmp_path: Path) -> None:
    import json
    import shutil

    from lsp_server.workspace import read_disk_file

    scenario = SCENARIOS / name
    root = tmp_path / "ws"
    shutil.copytree(scenario / "before", root)
    expect = json.loads((scenario / "expect.json").read_text())
    options = expect.get("options", {})
    response = (scenario / "response.md").read_bytes().decode("utf-8")
    result = plan_response(response, read_disk_file, [root], **options)
    assert len(result.blocks) == len(expect["blocks"]), [b.reason for b in result.blocks]
    for got, want in zip(result.blocks, expect["blocks"], strict=True):
        assert got.status == want["status"], (got.index, got.reason)
        for key in ("line", "match"):
            if key in want:
                assert getattr(got, key) == want[key], (got.index, key)
        if "reason_contains" in want:
            assert want["reason_contains"] in (got.reason or "")
    _write_changes(result)
    assert _tree(root) == _tree(scenario / "after")


def test_a_prepared_parse_is_used_only_for_the_text_it_was_made_from(tmp_path: Path) -> None:
    from lsp_server.file_text import PreparedText
    from lsp_server.model import FileSnapshot

    old_text = "a\nb\nc\n"
    prepared = PreparedText(old_text)
    assert prepared.base.find(["b"]) == [1]  # built and cached
    new_text = "".join(["x\n", "a\n", "b\n", "c\n"])  # another buffer version
    response = "f.py\n««« EDIT\nb\n═══════ REPL\nB\n»»» EDIT END\n"

    def reader(text: str):
        return lambda path: FileSnapshot(text=text, version=7, prepared=prepared)

    stale = plan_response(response, reader(new_text), [tmp_path])
    assert stale.blocks[0].line == 2  # the stale parse (line 1) was ignored
    fresh = plan_response(response, reader(old_text), [tmp_path])
    assert fresh.blocks[0].line == 1
    assert fresh.changes[0].new_text == "a\nB\nc\n"


def test_each_result_carries_previews_of_its_block_first_lines() -> None:
    """Seed 001's EditResult previews: the first anchor / old / new line of a block (the first
    hunk's for hunk formats), at most 50 characters; a create shows its first new line."""
    long = "x" * 80
    blocks = [
        Block(format="edit-v3", file="a.py", anchor=["def f():"], old=[long, "b"],
              new=["    return 2"]),
        Block(format="unified-diff", file="a.py", hunks=[
            Hunk(header="-1,2 +1,2", lines=[(" ", "def f():"), ("-", "old"), ("+", "new")]),
            Hunk(header="-9,1 +9,1", lines=[("-", "later"), ("+", "later2")])]),
        Block(format="apply-patch", file="new.py", op="create", create_text="first\nsecond\n"),
    ]
    result = plan_edits(ParseResult(blocks=blocks), lambda _p: FileSnapshot(text=None),
                        [Path("/ws")])
    previews = [(r.anchor_preview, r.old_preview, r.new_preview) for r in result.blocks]
    assert previews == [
        ("def f():", "x" * 50, "    return 2"),
        ("-1,2 +1,2", "old", "new"),
        ("", "", "first"),
    ]


def test_a_created_text_is_counted_once() -> None:
    # issue 23: a hunk-patch create carries its text in new and create_text (counted twice)
    from lsp_server.parsing import parse_response
    from lsp_server.planning import block_line_count

    call = 'edit {"path": "n.py", "op": "create", "diff": "a\\nb\\nc\\n"}\n'
    [block] = parse_response(call).blocks
    assert block.create_text == "a\nb\nc\n" and block_line_count(block) == 3
    assert block_line_count(Block("hunk-patch", "n.py", op="create", create_text="a\nb")) == 2

