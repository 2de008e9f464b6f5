"""Merging JavaScript, TypeScript and TSX snippets by definitions."""

from .helpers import failure, merge, merged_text

CALC = """
    import { round } from "./math";

    export class Calculator {
      constructor() {
        this.result = 0;
      }

      add(number) {
        this.result += number;
        return this;
      }

      divide(number) {
        this.result /= number;
        return this;
      }
    }

    export function make() {
      return new Calculator();
    }
    """


def test_a_method_pasted_alone_replaces_the_method() -> None:
    code = """
        divide(number) {
          if (number === 0) throw new Error("Division by zero");
          this.result /= number;
          return this;
        }
        """
    result = merge(CALC, code, "calc.js")
    assert result.match == "syntax"
    text = merged_text(CALC, code, "calc.js")
    assert '    if (number === 0) throw new Error("Division by zero");\n' \
           "    this.result /= number;\n" in text
    assert text.count("divide(") == 1 and "add(number)" in text


def test_a_class_with_elisions_keeps_the_members_it_does_not_show() -> None:
    code = """
        export class Calculator {
          // ... existing code ...

          multiply(number) {
            this.result *= number;
            return this;
          }
        }
        """
    text = merged_text(CALC, code, "calc.js")
    assert "  constructor() {" in text and "  add(number) {" in text
    assert text.index("divide(number)") < text.index("multiply(number)") < text.index(
        "export function make")
    assert "    return this;\n  }\n\n  multiply(number) {\n" in text


def test_export_and_async_are_not_part_of_the_name() -> None:
    code = """
        export async function make() {
          return new Calculator().add(1);
        }
        """
    text = merged_text(CALC, code, "calc.js")
    assert "export async function make() {\n  return new Calculator().add(1);\n}\n" in text


def test_imports_from_the_same_module_replace_the_files() -> None:
    code = """
        import { round, floor } from "./math";
        import fs from "fs";

        export function make() {
          return new Calculator();
        }
        """
    text = merged_text(CALC, code, "calc.js")
    assert text.startswith('import { round, floor } from "./math";\nimport fs from "fs";\n\n')


def test_describe_blocks_merge_by_their_title() -> None:
    file = """
        describe("cart", () => {
          it("adds", () => {
            expect(add(1)).toBe(1);
          });

          it("removes", () => {
            expect(remove(1)).toBe(0);
          });
        });
        """
    code = """
        describe("cart", () => {
          // ...

          it("removes", () => {
            expect(remove(1)).toBe(-1);
          });

          it("clears", () => {
            expect(clear()).toBe(0);
          });
        });
        """
    text = merged_text(file, code, "cart.test.ts")
    assert "expect(add(1)).toBe(1);" in text and "expect(remove(1)).toBe(-1);" in text
    assert text.index('it("removes"') < text.index('it("clears"')
    assert text.endswith("  });\n});\n")


def test_a_typescript_method_with_types_inside_a_class() -> None:
    file = """
        export class Counter {
          private n = 0;

          inc(): number {
            return ++this.n;
          }
        }
        """
    code = """
        inc(by: number = 1): number {
          this.n += by;
          return this.n;
        }
        """
    text = merged_text(file, code, "counter.ts")
    assert "  inc(by: number = 1): number {\n    this.n += by;\n" in text
    assert "private n = 0;" in text


def test_tsx_component() -> None:
    file = """
        import React from "react";

        export function Button({ label }: { label: string }) {
          return <button>{label}</button>;
        }

        export function Link() {
          return <a href="/">home</a>;
        }
        """
    code = """
        export function Button({ label, onClick }: Props) {
          return <button onClick={onClick}>{label}</button>;
        }
        """
    text = merged_text(file, code, "Button.tsx")
    assert "<button onClick={onClick}>{label}</button>" in text and "<a href" in text


def test_static_and_instance_members_of_one_name_are_ambiguous() -> None:
    file = "class A {\n  static make() {\n    return 1;\n  }\n\n  make() {\n    return 2;\n  }\n}\n"
    found = failure(file, "make() {\n  return 3;\n}\n", "a.js")
    assert found.kind == "ambiguous" and found.candidates == (1, 5)


def test_new_lines_after_an_elision_go_before_the_next_line_the_file_has() -> None:
    file = """
        function App() {
          const [x, setX] = useState(0);
          return <div>{x}</div>;
        }
        """
    code = """
        function App() {
          // ... existing code ...
          useEffect(() => setX(1), []);
          return <div>{x}</div>;
        }
        """
    text = merged_text(file, code, "App.jsx")
    assert text == ("function App() {\n  const [x, setX] = useState(0);\n"
                    "  useEffect(() => setX(1), []);\n  return <div>{x}</div>;\n}\n")


def test_a_changed_line_next_to_an_elision_replaces_the_line_it_resembles() -> None:
    file = """
        function total(items) {
          let sum = 0;
          const tax = rate(1);
          return sum + tax;
        }
        """
    code = """
        function total(items) {
          // ... existing code ...
          const tax = rate(2);
          return sum + tax;
        }
        """
    assert merged_text(file, code, "total.js") == (
        "function total(items) {\n  let sum = 0;\n  const tax = rate(2);\n"
        "  return sum + tax;\n}\n")
    # Not the line next to it: both would be kept, so the block fails.
    code = """
        function total(items) {
          // ... existing code ...
          let sum = 1;
          return sum + tax;
        }
        """
    found = failure(file, code, "total.js")
    assert found.kind == "not-found" and "let sum = 1" in found.reason


def test_get_and_set_accessors_are_told_apart() -> None:
    file = ("class A {\n  get x() {\n    return this._x;\n  }\n\n"
            "  set x(v) {\n    this._x = v;\n  }\n}\n")
    text = merged_text(file, "set x(v) {\n  this._x = +v;\n}\n", "a.js")
    assert "  set x(v) {\n    this._x = +v;\n  }\n" in text and "return this._x;" in text


def test_an_elision_ending_a_method_keeps_the_rest_of_it() -> None:
    code = """
        add(number) {
          if (!Number.isFinite(number)) throw new TypeError("number");
          // ... existing code ...
        }
        """
    text = merged_text(CALC, code, "calc.js")
    assert ('  add(number) {\n    if (!Number.isFinite(number)) throw new TypeError("number");\n'
            "    this.result += number;\n    return this;\n  }\n") in text


def test_an_import_quoted_otherwise_is_the_same_module() -> None:
    code = """
        import { round, ceil } from './math';
        import x = require("y");

        export function make() {
          return new Calculator();
        }
        """
    text = merged_text(CALC, code, "calc.ts")
    assert text.startswith("import { round, ceil } from './math';\n")
    assert text.count("./math") == 1 and 'import x = require("y");' in text
