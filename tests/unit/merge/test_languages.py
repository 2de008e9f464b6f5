"""One case per language and rule: the file, the snippet, the file expected (tests of every
rule in depth are test_python.py and test_javascript.py; these check each table)."""

import pytest

from .helpers import lines, merge, merged_text

CASES = {
    "go: a method by receiver and name, an import joins": (
        "shop/cart.go",
        """
        package shop

        import "fmt"

        type Cart struct {
        \titems []int
        }

        func (c *Cart) Add(x int) {
        \tc.items = append(c.items, x)
        }

        func (c *Cart) Total() int {
        \treturn len(c.items)
        }
        """,
        """
        import "errors"

        func (c *Cart) Add(x int) error {
            if x < 0 {
                return errors.New("negative")
            }
            c.items = append(c.items, x)
            return nil
        }
        """,
        """
        package shop

        import "fmt"
        import "errors"

        type Cart struct {
        \titems []int
        }

        func (c *Cart) Add(x int) error {
        \tif x < 0 {
        \t\treturn errors.New("negative")
        \t}
        \tc.items = append(c.items, x)
        \treturn nil
        }

        func (c *Cart) Total() int {
        \treturn len(c.items)
        }
        """,
    ),
    "rust: a method in an impl with elisions, attributes kept": (
        "src/cart.rs",
        """
        use std::fmt;

        #[derive(Debug)]
        pub struct Cart {
            items: Vec<i32>,
        }

        impl Cart {
            pub fn new() -> Self {
                Cart { items: vec![] }
            }

            pub fn add(&mut self, x: i32) {
                self.items.push(x);
            }
        }
        """,
        """
        impl Cart {
            // ... existing code ...

            pub fn add(&mut self, x: i32) -> &mut Self {
                self.items.push(x);
                self
            }

            pub fn len(&self) -> usize {
                self.items.len()
            }
        }
        """,
        """
        use std::fmt;

        #[derive(Debug)]
        pub struct Cart {
            items: Vec<i32>,
        }

        impl Cart {
            pub fn new() -> Self {
                Cart { items: vec![] }
            }

            pub fn add(&mut self, x: i32) -> &mut Self {
                self.items.push(x);
                self
            }

            pub fn len(&self) -> usize {
                self.items.len()
            }
        }
        """,
    ),
    "rust: a struct shown without its attribute keeps it": (
        "src/cart.rs",
        "#[derive(Debug)]\npub struct Cart {\n    items: Vec<i32>,\n}\n",
        "pub struct Cart {\n    items: Vec<i64>,\n}\n",
        "#[derive(Debug)]\npub struct Cart {\n    items: Vec<i64>,\n}\n",
    ),
    "java: a method pasted alone, annotations kept": (
        "src/Cart.java",
        """
        package shop;

        public class Cart {
            private int n = 0;

            @Override
            public String toString() {
                return "Cart";
            }

            public int size() {
                return n;
            }
        }
        """,
        """
        public String toString() {
            return "Cart(" + n + ")";
        }
        """,
        """
        package shop;

        public class Cart {
            private int n = 0;

            @Override
            public String toString() {
                return "Cart(" + n + ")";
            }

            public int size() {
                return n;
            }
        }
        """,
    ),
    "c: a function by name, not its prototype": (
        "src/cart.c",
        """
        #include <stdio.h>

        static int add(int x);

        static int add(int x) {
            return x + 1;
        }

        int main(void) {
            return add(1);
        }
        """,
        """
        #include <stdlib.h>

        static int add(int x) {
            return x + 2;
        }
        """,
        """
        #include <stdio.h>
        #include <stdlib.h>

        static int add(int x);

        static int add(int x) {
            return x + 2;
        }

        int main(void) {
            return add(1);
        }
        """,
    ),
    "cpp: a member function inside a class in a namespace": (
        "src/cart.hpp",
        """
        namespace shop {

        class Cart {
         public:
          int size() const { return n_; }
          void clear() { n_ = 0; }

         private:
          int n_ = 0;
        };

        }  // namespace shop
        """,
        """
        void clear() {
          n_ = 0;
          ++generation_;
        }
        """,
        """
        namespace shop {

        class Cart {
         public:
          int size() const { return n_; }
          void clear() {
            n_ = 0;
            ++generation_;
          }

         private:
          int n_ = 0;
        };

        }  // namespace shop
        """,
    ),
    "csharp: a class with elisions in a namespace, a new method after its neighbour": (
        "Cart.cs",
        """
        using System;

        namespace Shop
        {
            public class Cart
            {
                public int Count { get; set; }

                public void Add(int x)
                {
                    Count += x;
                }
            }
        }
        """,
        """
        public class Cart
        {
            // ...

            public void Add(int x)
            {
                Count += x;
            }

            public void Clear()
            {
                Count = 0;
            }
        }
        """,
        """
        using System;

        namespace Shop
        {
            public class Cart
            {
                public int Count { get; set; }

                public void Add(int x)
                {
                    Count += x;
                }

                public void Clear()
                {
                    Count = 0;
                }
            }
        }
        """,
    ),
    "ruby: a method in a class, a require joins": (
        "lib/cart.rb",
        """
        require "json"

        class Cart
          def initialize
            @items = []
          end

          def add(item)
            @items << item
          end
        end
        """,
        """
        require "set"

        def add(item)
          @items << item unless @items.include?(item)
          self
        end
        """,
        """
        require "json"
        require "set"

        class Cart
          def initialize
            @items = []
          end

          def add(item)
            @items << item unless @items.include?(item)
            self
          end
        end
        """,
    ),
    "ruby: describe blocks": (
        "spec/cart_spec.rb",
        """
        describe "Cart" do
          it "adds" do
            expect(1).to eq(1)
          end
        end
        """,
        """
        describe "Cart" do
          # ...

          it "removes" do
            expect(0).to eq(0)
          end
        end
        """,
        """
        describe "Cart" do
          it "adds" do
            expect(1).to eq(1)
          end

          it "removes" do
            expect(0).to eq(0)
          end
        end
        """,
    ),
    "php: a method pasted alone without <?php": (
        "src/Cart.php",
        """
        <?php

        namespace App;

        class Cart
        {
            private $items = [];

            public function add($item)
            {
                $this->items[] = $item;
            }
        }
        """,
        """
        public function add($item): self
        {
            $this->items[] = $item;
            return $this;
        }
        """,
        """
        <?php

        namespace App;

        class Cart
        {
            private $items = [];

            public function add($item): self
            {
                $this->items[] = $item;
                return $this;
            }
        }
        """,
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_language_case(case: str) -> None:
    path, before, snippet, after = CASES[case]
    result = merge(before, snippet, path)
    assert result.kind == "snippet" and result.match == "syntax", result
    assert merged_text(before, snippet, path) == "\n".join(lines(after)) + "\n"


def test_go_imports_join_the_grouped_block() -> None:
    file = 'package shop\n\nimport (\n\t"fmt"\n)\n\nfunc A() {\n\tfmt.Println(1)\n}\n'
    code = 'import (\n\t"errors"\n\t"fmt"\n)\n\nfunc A() error {\n\treturn errors.New("x")\n}\n'
    assert merged_text(file, code, "a.go") == (
        'package shop\n\nimport (\n\t"fmt"\n\t"errors"\n)\n\n'
        'func A() error {\n\treturn errors.New("x")\n}\n')
    code = 'import "os"\n\nfunc A() {\n\tos.Exit(1)\n}\n'
    assert '\t"fmt"\n\t"os"\n)' in merged_text(file, code, "a.go")


def test_rust_trait_impls_are_told_apart_from_the_inherent_impl() -> None:
    file = ("struct A;\n\nimpl A {\n    fn f(&self) -> i32 {\n        1\n    }\n}\n\n"
            "impl Default for A {\n    fn default() -> Self {\n        A\n    }\n}\n")
    code = "impl Default for A {\n    fn default() -> Self {\n        A {}\n    }\n}\n"
    text = merged_text(file, code, "a.rs")
    assert "        A {}\n" in text and "    fn f(&self) -> i32 {\n        1\n" in text


def test_java_annotations_shown_replace_the_files() -> None:
    file = ("class A {\n    @Deprecated\n    int f() {\n        return 1;\n    }\n\n"
            "    int g() {\n        return 2;\n    }\n}\n")
    code = "@Override\nint f() {\n    return 3;\n}\n"
    text = merged_text(file, code, "A.java")
    assert "    @Override\n    int f() {\n        return 3;\n    }\n" in text
    assert "@Deprecated" not in text and "return 2;" in text


def test_php_class_with_an_elision_and_a_new_method() -> None:
    file = ("<?php\n\nclass Cart\n{\n    public function add($x)\n    {\n        return 1;\n"
            "    }\n}\n")
    code = ("class Cart\n{\n    // ...\n\n    public function clear()\n    {\n"
            "        return 0;\n    }\n}\n")
    text = merged_text(file, code, "Cart.php")
    assert text == ("<?php\n\nclass Cart\n{\n    public function add($x)\n    {\n"
                    "        return 1;\n    }\n\n    public function clear()\n    {\n"
                    "        return 0;\n    }\n}\n")


def test_ruby_module_nesting_and_a_method_pasted_alone() -> None:
    file = ("module Shop\n  class Cart\n    def add(x)\n      x\n    end\n  end\nend\n")
    code = "def add(x)\n  x * 2\nend\n"
    assert merged_text(file, code, "cart.rb") == (
        "module Shop\n  class Cart\n    def add(x)\n      x * 2\n    end\n  end\nend\n")


def test_a_snippet_that_does_not_parse_is_merged_by_content_or_fails() -> None:
    file = "fn a() -> i32 {\n    1\n}\n\nfn b() -> i32 {\n    2\n}\n"
    # Its lines can be placed by content: they are, as written (no half merge).
    result = merge(file, "fn b() -> i32 {\n    2 +\n}\n", "a.rs")
    assert (result.kind, result.match) == ("snippet", "exact")
    assert result.lines[4:] == ["fn b() -> i32 {", "    2 +", "}"]
    # They cannot: the block fails, saying where the snippet does not parse.
    result = merge(file, "    2\n}\n\nfn c() -> i32 {\n", "a.rs")
    assert result.kind == "syntax-error" and "syntax error at line" in result.reason
