"""Merging Python snippets by definitions (docs/formats.md, `code-block`)."""

from lsp_server.merge import MergeRequest, merge_code_block

from .helpers import failure, lines, merge, merged_text

FILE = '''
    """Shopping carts."""

    import json
    from decimal import Decimal

    TAX = Decimal("0.2")


    class Cart:
        """A cart."""

        def __init__(self):
            self.items = []

        # Adds one item.
        @logged
        def add(self, item):
            self.items.append(item)

        def total(self):
            return sum(i.price for i in self.items)


    def load(path):
        with open(path) as f:
            return json.load(f)
    '''


def expected(*pairs: tuple[str, str]) -> str:
    text = merged_text(FILE, "TAX = Decimal(\"0.2\")\n", "cart.py")  # the file as text
    for old, new in pairs:
        assert old in text
        text = text.replace(old, new, 1)
    return text


def test_a_function_replaces_the_one_of_its_name() -> None:
    code = '''
        def load(path):
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        '''
    result = merge(FILE, code, "cart.py")
    assert result.kind == "snippet" and result.match == "syntax"
    assert merged_text(FILE, code, "cart.py") == expected(
        ("open(path) as f", 'open(path, encoding="utf-8") as f'))
    assert result.first_line == 24


def test_a_method_pasted_alone_at_column_0_is_re_indented() -> None:
    code = '''
        def total(self):
            return sum(i.price * i.qty for i in self.items)
        '''
    assert merged_text(FILE, code, "cart.py") == expected(
        ("i.price for", "i.price * i.qty for"))


def test_a_method_pasted_with_its_indentation() -> None:
    code = ["    def total(self):", "        return 0"]  # as written, not dedented
    result = merge_code_block(MergeRequest(lines(FILE), code, "cart.py"))
    assert "\n".join(result.lines) + "\n" == expected(
        ("return sum(i.price for i in self.items)", "return 0"))


def test_decorators_and_leading_comment_stay_when_not_shown() -> None:
    code = '''
        def add(self, item):
            self.items.append(item)
            return self
        '''
    text = merged_text(FILE, code, "cart.py")
    assert "    # Adds one item.\n    @logged\n    def add(self, item):\n" in text
    assert "        return self\n" in text


def test_decorators_and_leading_comment_shown_replace_the_files() -> None:
    code = '''
        # Adds an item, once.
        @logged(level=2)
        def add(self, item):
            if item not in self.items:
                self.items.append(item)
        '''
    text = merged_text(FILE, code, "cart.py")
    assert "    # Adds an item, once.\n    @logged(level=2)\n    def add(self, item):\n" in text
    assert "@logged\n" not in text and "Adds one item" not in text


def test_a_class_with_elisions_merges_member_by_member() -> None:
    code = '''
        class Cart:
            # ... existing code ...

            def total(self):
                return round(sum(i.price for i in self.items), 2)

            def clear(self):
                self.items = []
        '''
    text = merged_text(FILE, code, "cart.py")
    assert text == expected(
        ("return sum(i.price for i in self.items)\n",
         "return round(sum(i.price for i in self.items), 2)\n\n"
         "    def clear(self):\n        self.items = []\n"))


def test_a_class_shown_whole_replaces_the_class() -> None:
    code = '''
        class Cart:
            """A cart of items."""

            # Adds one item.
            @logged
            def add(self, item):
                self.items.append(item)

            def total(self):
                return 0
        '''
    text = merged_text(FILE, code, "cart.py")
    assert "__init__" not in text and "Adds one item" in text
    assert '"""A cart of items."""' in text and "return 0" in text and "def load" in text


def test_a_class_shown_with_few_of_its_members_keeps_the_others() -> None:
    code = '''
        class Cart:
            def total(self):
                return 0
        '''
    assert merged_text(FILE, code, "cart.py") == expected(
        ("return sum(i.price for i in self.items)", "return 0"))


def test_a_new_function_goes_after_the_neighbour_shown() -> None:
    code = '''
        TAX = Decimal("0.25")


        def rate():
            return TAX
        '''
    text = merged_text(FILE, code, "cart.py")
    assert 'TAX = Decimal("0.25")\n\n\ndef rate():\n    return TAX\n\n\nclass Cart:' in text


def test_a_new_function_after_an_elision_goes_at_the_end() -> None:
    code = '''
        # ...

        def save(path, data):
            with open(path, "w") as f:
                json.dump(data, f)
        '''
    text = merged_text(FILE, code, "cart.py")
    assert text.endswith("return json.load(f)\n\n\ndef save(path, data):\n"
                         '    with open(path, "w") as f:\n        json.dump(data, f)\n')


def test_an_elision_inside_a_function_keeps_the_files_lines() -> None:
    code = '''
        def load(path):
            # ... existing code ...
                return json.load(f, parse_float=Decimal)
        '''
    assert merged_text(FILE, code, "cart.py") == expected(
        ("json.load(f)", "json.load(f, parse_float=Decimal)"))


def test_imports_join_the_import_block_or_replace_the_same_module() -> None:
    code = '''
        import os
        from decimal import Decimal, ROUND_HALF_UP

        def load(path):
            with open(os.fspath(path)) as f:
                return json.load(f)
        '''
    assert merged_text(FILE, code, "cart.py") == expected(
        ("from decimal import Decimal\n",
         "from decimal import Decimal, ROUND_HALF_UP\nimport os\n"),
        ("open(path)", "open(os.fspath(path))"))


def test_an_import_the_file_has_is_not_added_twice() -> None:
    code = "import json\n\ndef load(path):\n    return 1\n"
    assert merged_text(FILE, code, "cart.py").count("import json") == 1


def test_a_top_level_constant_is_a_definition() -> None:
    assert merged_text(FILE, 'TAX = Decimal("0.1")\n', "cart.py") == expected(
        ('"0.2"', '"0.1"'))


def test_two_definitions_of_a_name_are_ambiguous_and_at_picks_one() -> None:
    file = "class A:\n    def f(self):\n        return 1\n\n\nclass B:\n    def f(self):\n" \
           "        return 2\n"
    found = failure(file, "def f(self):\n    return 3\n", "x.py")
    assert found.kind == "ambiguous" and found.candidates == (1, 6)
    text = merged_text(file, "def f(self):\n    return 3\n", "x.py", at_line=6)
    assert text.endswith("class B:\n    def f(self):\n        return 3\n")
    # Shown inside its class it is not ambiguous.
    text = merged_text(file, "class B:\n    # ...\n    def f(self):\n        return 3\n", "x.py")
    assert text.endswith("class B:\n    def f(self):\n        return 3\n")


def test_a_snippet_with_a_syntax_error_falls_back_to_content_or_fails() -> None:
    # The lines are in the file as they are: merged by content (nothing to change here).
    code = "def total(self):\n    return sum(i.price for i in self.items\n"
    found = failure(FILE, code, "cart.py")
    assert found.kind == "syntax-error" and "syntax error at line 2" in found.reason
    code = "    def total(self):\n        return sum(i.price for i in self.items)\n\n    x = (\n"
    found = failure(FILE, code, "cart.py")
    assert found.kind == "syntax-error"


def test_tabs_in_the_file_are_kept() -> None:
    file = "class A:\n\tdef f(self):\n\t\tif x:\n\t\t\treturn 1\n"
    text = merged_text(file, "def f(self):\n    if x:\n        return 2\n", "x.py")
    assert text == "class A:\n\tdef f(self):\n\t\tif x:\n\t\t\treturn 2\n"


def test_a_whole_file_is_still_a_whole_file() -> None:
    code = FILE.replace("return 0", "return 1")
    assert merge(FILE, code, "cart.py").kind == "whole"


def test_a_unit_outside_a_container_the_snippet_shows_is_top_level() -> None:
    code = '''
        class Cart:
            # ...
            def add(self, item):
                self.items.append(item)


        def total(items):
            return len(items)
        '''
    text = merged_text(FILE, code, "cart.py")
    assert "    def total(self):\n        return sum(i.price for i in self.items)\n" in text
    # After the unit shown before it (the class), as the snippet shows it.
    assert "\n\n\ndef total(items):\n    return len(items)\n\n\ndef load(path):" in text


def test_a_new_definition_goes_before_the_next_unit_shown() -> None:
    code = '''
        def helper():
            return 1


        def load(path):
            with open(path) as f:
                return json.load(f)
        '''
    text = merged_text(FILE, code, "cart.py")
    assert "\ndef helper():\n    return 1\n\n\ndef load(path):" in text


def test_an_elision_in_a_new_definition_stands_for_nothing() -> None:
    code = '''
        # ...

        class Basket:
            """A basket."""

            # ... existing code ...

            def size(self):
                return 0
        '''
    text = merged_text(FILE, code, "cart.py")
    assert text.endswith('class Basket:\n    """A basket."""\n\n    def size(self):\n'
                         "        return 0\n")
    assert "..." not in text


def test_a_property_getter_and_setter_are_told_apart_by_their_decorators() -> None:
    file = '''
        class Box:
            @property
            def size(self):
                return self._size

            @size.setter
            def size(self, value):
                self._size = value
        '''
    code = "@size.setter\ndef size(self, value):\n    self._size = max(0, value)\n"
    text = merged_text(file, code, "box.py")
    assert "        self._size = max(0, value)\n" in text and "return self._size" in text
    assert failure(file, "def size(self):\n    return 0\n", "box.py").kind == "ambiguous"


def test_a_bare_ellipsis_is_the_body_of_a_new_stub() -> None:
    code = '''
        class Cart:
            # ...

            def weight(self) -> float:
                ...
        '''
    text = merged_text(FILE, code, "cart.py")
    assert "    def weight(self) -> float:\n        ...\n" in text
    # In a definition the file has, it keeps the file's lines.
    code = "def load(path):\n    ...\n"
    assert merged_text(FILE, code, "cart.py") == expected()


def test_an_elision_ending_a_definition_keeps_the_rest_of_it() -> None:
    code = '''
        def load(path):
            with open(path, "rb") as f:
                # ... rest of the function ...
        '''
    assert merged_text(FILE, code, "cart.py") == expected(
        ('with open(path) as f:', 'with open(path, "rb") as f:'))


def test_a_statement_added_after_an_elision_at_the_end_of_a_function() -> None:
    code = '''
        def total(self):
            # ... existing code ...
            log("total")
        '''
    assert merged_text(FILE, code, "cart.py") == expected(
        ("return sum(i.price for i in self.items)\n",
         'return sum(i.price for i in self.items)\n        log("total")\n'))
    code = '''
        def total(self):
            # ... existing code ...
            return sum(i.price for i in self.items) * 2
        '''
    assert merged_text(FILE, code, "cart.py") == expected(
        ("for i in self.items)\n", "for i in self.items) * 2\n"))


def test_a_new_method_written_indented_without_its_class_fails() -> None:
    code = ["    def clear(self):", "        self.items = []"]
    result = merge_code_block(MergeRequest(lines(FILE), code, "cart.py"))
    assert result.kind == "not-found" and "show the class" in result.reason
    # At column 0 it is a new function of the file, as shown.
    assert merged_text(FILE, "def clear(items):\n    items.clear()\n", "cart.py").endswith(
        "\n\n\ndef clear(items):\n    items.clear()\n")


def test_a_call_added_at_the_end_of_a_function_does_not_replace_a_similar_one() -> None:
    file = 'def run():\n    setup()\n    print("a")\n'
    code = 'def run():\n    # ...\n    print("done")\n'
    assert merged_text(file, code, "r.py") == (
        'def run():\n    setup()\n    print("a")\n    print("done")\n')


def test_a_block_statement_is_replaced_by_its_first_line() -> None:
    file = ('import sys\n\n\ndef main(argv):\n    return 0\n\n\n'
            'if __name__ == "__main__":\n    sys.exit(main(sys.argv))\n')
    code = ('def main(argv):\n    return len(argv)\n\n\n'
            'if __name__ == "__main__":\n    # ...\n    sys.exit(main(sys.argv[1:]))\n')
    assert merged_text(file, code, "tool.py") == file.replace(
        "return 0", "return len(argv)").replace("sys.argv))", "sys.argv[1:]))")


def test_an_import_of_some_of_a_modules_names_keeps_the_files() -> None:
    file = "from typing import List, Dict\n\n\ndef f(x: List) -> Dict:\n    return {}\n"
    # Only the new name shown: both statements kept (the file's names are still used).
    code = "from typing import Optional\n\n\ndef f(x: List) -> Optional[Dict]:\n    return None\n"
    text = merged_text(file, code, "t.py")
    assert text.startswith("from typing import List, Dict\nfrom typing import Optional\n")
    # Every name the file imports and more: the file's statement is replaced.
    code = "from typing import Dict, List, Optional\n"
    assert merged_text(file, code, "t.py").startswith(
        "from typing import Dict, List, Optional\n\n\ndef f")
    # Names the file imports already: nothing changes.
    assert merged_text(file, "from typing import Dict\n", "t.py") == file
