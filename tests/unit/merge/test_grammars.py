"""Languages by extension, and grammars loaded only when a block needs one."""

import subprocess
import sys

import pytest

from lsp_server.merge import language_of
from lsp_server.merge.grammars import has_grammar, parser_for


@pytest.mark.parametrize(("path", "info", "language"), [
    ("src/app.py", "", "python"),
    ("web/App.tsx", "", "tsx"),
    ("web/app.ts", "javascript", "typescript"),  # the extension wins
    ("lib/x.h", "c", "c"),  # the info string breaks a tie
    ("lib/x.h", "", "cpp"),
    ("Gemfile", "", "ruby"),
    ("notes", "yaml", "yaml"),  # no extension: the info string names it
    ("a.kt", "", "kotlin"),
    ("a.unknown", "python", None),
    ("C:\\src\\main.go", "", "go"),
])
def test_language_of(path: str, info: str, language: str | None) -> None:
    assert language_of(path, info) == language


def test_every_grammar_loads_and_parses() -> None:
    for language in ("python", "javascript", "typescript", "tsx", "go", "rust", "java", "c",
                     "cpp", "csharp", "ruby", "php", "json", "yaml", "toml", "markdown"):
        assert has_grammar(language)
        parser = parser_for(language)
        assert parser is not None, language
        assert parser.parse(b"x").root_node is not None
    assert not has_grammar("kotlin") and parser_for("kotlin") is None


_NO_TREE_SITTER = """
import sys
{imports}
loaded = sorted(m for m in sys.modules if m.startswith("tree_sitter"))
print("loaded:" + ",".join(loaded))
"""


@pytest.mark.parametrize("imports", [
    # llm-edits --version
    "from lsp_server.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass",
    # the server's start-up, the engine and the merge package itself
    "import lsp_server.server, lsp_server.planning, lsp_server.parsing, lsp_server.merge",
])
def test_start_up_does_not_import_tree_sitter(imports: str) -> None:
    script = _NO_TREE_SITTER.format(imports=imports)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    assert out.splitlines()[-1] == "loaded:"



def test_a_grammar_is_imported_when_a_block_needs_it() -> None:
    script = _NO_TREE_SITTER.format(imports=(
        "from lsp_server.merge import MergeRequest, merge_code_block\n"
        "merge_code_block(MergeRequest(['a = 1', 'b = 2'], ['b = 3'], 'x.kt'))\n"
        "assert 'tree_sitter' not in sys.modules\n"
        "merge_code_block(MergeRequest(['a = 1', 'b = 2'], ['b = 3'], 'x.py'))"))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    assert set(out.splitlines()[-1].removeprefix("loaded:").split(",")) >= {
        "tree_sitter", "tree_sitter_python"}


def test_a_grammar_not_installed_merges_by_content_else_fails_as_no_grammar() -> None:
    # The Ruby wheel made unimportable, as when it is not installed (its own process).
    script = (
        "import sys\n"
        "sys.modules['tree_sitter_ruby'] = None\n"
        "from lsp_server.merge import MergeRequest, merge_code_block\n"
        "file = ['class A', '  def f', '    1', '  end', 'end']\n"
        "ok = merge_code_block(MergeRequest(file, ['  def f', '    2', '  end'], 'a.rb'))\n"
        "bad = merge_code_block(MergeRequest(file, ['def g', '  3', 'end'], 'a.rb'))\n"
        "print(ok.kind, ok.match, ok.lines[2], '|', bad.kind, '|', bad.reason)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    merged, failed, reason = out.strip().split(" | ")
    assert merged == "snippet exact     2" and failed == "no-grammar"
    assert reason.startswith("The ruby grammar is not installed, so it was merged by content")


def test_merges_in_several_threads_at_once_are_each_right() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from lsp_server.merge import MergeRequest, merge_code_block

    def merged(k: int) -> list[str]:
        file = [f"def f{i}():" if j == 0 else f"    return {i}" for i in range(300)
                for j in range(2)]
        result = merge_code_block(MergeRequest(file, [f"def f{k}():", "    return -1"],
                                               "m.py"))
        return result.lines[2 * k:2 * k + 2]

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(merged, range(40)))
    assert results == [[f"def f{k}():", "    return -1"] for k in range(40)]
