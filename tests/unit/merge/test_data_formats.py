"""JSON, YAML and TOML merged by keys, Markdown by sections (docs/formats.md, `code-block`)."""

from .helpers import merge, merged_text

PACKAGE = """
    {
      "name": "shop",
      "scripts": {
        "build": "tsc",
        "test": "jest"
      },
      "license": "MIT"
    }
    """


def test_json_keys_merge_member_by_member_with_commas() -> None:
    code = """
        {
          "scripts": {
            "test": "vitest",
            "lint": "eslint ."
          }
        }
        """
    result = merge(PACKAGE, code, "package.json")
    assert result.match == "syntax"
    assert merged_text(PACKAGE, code, "package.json") == (
        '{\n  "name": "shop",\n  "scripts": {\n    "build": "tsc",\n    "test": "vitest",\n'
        '    "lint": "eslint ."\n  },\n  "license": "MIT"\n}\n')


def test_json_fragment_with_an_elision() -> None:
    code = """
        // ...
        "license": "ISC"
        """
    assert merged_text(PACKAGE, code, "package.json").endswith('  "license": "ISC"\n}\n')


def test_json_new_last_key_gets_its_comma() -> None:
    code = '{\n  // ...\n  "private": true\n}\n'
    assert merged_text(PACKAGE, code, "package.json").endswith(
        '  "license": "MIT",\n  "private": true\n}\n')


def test_yaml_nested_key() -> None:
    file = "name: ci\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu\n"
    code = "jobs:\n  test:\n    runs-on: debian\n    timeout: 5\n"
    assert merged_text(file, code, "ci.yml") == (
        "name: ci\non:\n  push:\n    branches: [main]\njobs:\n  test:\n"
        "    runs-on: debian\n    timeout: 5\n")


def test_toml_table_keys() -> None:
    file = '[project]\nname = "x"\nversion = "1"\n\n[tool.ruff]\nline-length = 100\n'
    code = '[project]\nversion = "2"\n'
    assert merged_text(file, code, "pyproject.toml") == (
        '[project]\nname = "x"\nversion = "2"\n\n[tool.ruff]\nline-length = 100\n')
    code = '[tool.ruff]\ntarget = "py310"\n'
    assert merged_text(file, code, "pyproject.toml").endswith(
        'line-length = 100\ntarget = "py310"\n')


README = """
    # Shop

    A shop.

    ## Install

    Run `make`.

    ### From source

    Clone it.

    ## Use

    Open it.
    """


def test_markdown_section_by_heading_keeps_subsections() -> None:
    code = """
        ## Install

        Run `make install`.
        """
    text = merged_text(README, code, "README.md")
    assert "Run `make install`.\n\n### From source\n\nClone it.\n" in text
    assert "Run `make`." not in text and "## Use\n\nOpen it.\n" in text


def test_markdown_heading_after_an_elision_and_a_new_section() -> None:
    code = """
        <!-- ... -->

        ## Use

        Open it twice.

        ## License

        MIT.
        """
    text = merged_text(README, code, "README.md")
    assert text.endswith("## Use\n\nOpen it twice.\n\n## License\n\nMIT.\n")
    assert "## Install\n\nRun `make`." in text


def test_markdown_front_matter_merges_by_key() -> None:
    file = "---\ntitle: Shop\ntags: [a]\n---\n# Shop\n\nText.\n"
    code = "---\ntags: [a, b]\n---\n"
    assert merged_text(file, code, "post.md") == (
        "---\ntitle: Shop\ntags: [a, b]\n---\n# Shop\n\nText.\n")


def test_yaml_steps_added_after_an_elision_are_appended() -> None:
    file = ("jobs:\n  test:\n    steps:\n      - name: Test\n        run: pytest\n"
            "  lint:\n    runs-on: x\n")
    code = ("jobs:\n  test:\n    steps:\n      # ...\n      - name: Lint\n        run: ruff\n")
    assert merged_text(file, code, "ci.yml") == (
        "jobs:\n  test:\n    steps:\n      - name: Test\n        run: pytest\n"
        "      - name: Lint\n        run: ruff\n  lint:\n    runs-on: x\n")
