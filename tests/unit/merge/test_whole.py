"""Whole file or snippet, and the whole-file guard (docs/formats.md, `code-block`)."""

from lsp_server.merge import MergeRequest, merge_code_block

from .helpers import failure, lines, merge, merged_text

FILE = """
    import os


    def greet(name):
        return "Hello, " + name


    def main():
        print(greet("world"))
    """


def test_same_first_and_last_lines_is_the_whole_file() -> None:
    new = FILE.replace('"Hello, "', '"Hi, "')
    result = merge(FILE, new)
    assert result.kind == "whole" and result.match == "exact"
    assert result.lines == lines(new)
    assert result.first_line == 4


def test_first_and_last_lines_compare_ignoring_surrounding_whitespace() -> None:
    new = FILE.replace("import os", "import os   ").replace('"Hello, "', '"Hi, "')
    assert merge(FILE, new).kind == "whole"


def test_an_elision_makes_it_a_snippet() -> None:
    code = """
        import os
        # ... existing code ...
        def main():
            print(greet("world"))
        """
    result = merge(FILE, code)
    assert result.kind == "snippet"
    assert result.lines == lines(FILE)  # the elision kept the file's lines


def test_a_missing_file_is_created() -> None:
    result = merge(None, "print(1)\n")
    assert (result.kind, result.lines, result.first_line) == ("create", ["print(1)"], 0)


def test_a_new_file_with_an_elision_is_refused() -> None:
    found = failure(None, "def f():\n    # ... rest of code ...\n")
    assert found.kind == "looks-partial" and "elision" in found.reason


def test_an_empty_file_takes_any_block_whole() -> None:
    result = merge_code_block(MergeRequest(["", ""], ["x = 1"], "a.py"))
    assert (result.kind, result.lines) == ("whole", ["x = 1"])


def test_a_whole_file_removing_most_lines_is_refused() -> None:
    code = """
        import os
        x = 1
        y = 2
        z = 3
        print(greet("world"))
        """
    found = failure(FILE, code)
    assert found.kind == "looks-partial"
    assert "remove 3 of the file's 5 non-blank lines" in found.reason


def test_re_indented_and_moved_lines_are_not_removed() -> None:
    code = """
        import os
        def main():
          print(greet("world"))
        def greet(name):
          return "Hello, " + name
          print(greet("world"))
        """
    assert merge(FILE, code).kind == "whole"


def test_whole_only_never_merges() -> None:
    code = "import os\n\ndef main():\n    pass\n"
    found = failure(FILE, code, whole_only=True)
    assert found.kind == "looks-partial"
    found = failure(FILE, "import os\n# ... existing code ...\n", whole_only=True)
    assert found.kind == "looks-partial" and "elision" in found.reason
    assert merged_text(FILE, FILE + "\nmain()\n", whole_only=True).endswith("main()\n")


def test_the_same_text_changes_nothing() -> None:
    result = merge(FILE, FILE)
    assert result.kind == "whole" and result.lines == lines(FILE)


def test_a_closing_brace_alone_does_not_make_a_whole_file() -> None:
    file = "fun a() {\n    one()\n}\n\nfun b() {\n    two()\n}\n"
    result = merge(file, "fun a() {\n    uno()\n}\n", "a.kt")
    assert result.kind == "snippet"
    assert result.lines == lines(file.replace("one()", "uno()"))
    assert merge(file, file.replace("one()", "uno()"), "a.kt").kind == "whole"
    # The last statement changed: a snippet of every definition, not a whole file.
    assert merge(file, file.replace("two()", "dos()"), "a.kt").kind == "snippet"
