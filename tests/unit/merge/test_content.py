"""Merge by content: a snippet of a file with no grammar (docs/formats.md, `code-block`)."""

from dataclasses import replace

from lsp_server.merge import MergeRequest, merge_code_block

from .helpers import failure, lines, merge, merged_text

FILE = """
    fun load(path: String): Config {
        val text = read(path)
        return parse(text)
    }

    fun save(path: String, config: Config) {
        write(path, render(config))
    }

    fun main() {
        save("a", load("b"))
    }
    """


def test_a_run_replaces_the_lines_from_its_head_to_its_tail() -> None:
    code = """
        fun save(path: String, config: Config) {
            log("saving")
            write(path, render(config))
        }
        """
    result = merge(FILE, code, "a.kt")
    assert result.kind == "snippet" and result.match == "exact"
    assert result.first_line == 6
    assert merged_text(FILE, code, "a.kt") == FILE.replace(
        "        write(path, render(config))",
        '        log("saving")\n        write(path, render(config))',
    ).removeprefix("\n").replace("\n    ", "\n").removeprefix("    ")


def test_the_closest_tail_wins_over_the_first() -> None:
    code = """
        fun load(path: String): Config {
            val text = read(path).trim()
            return parse(text)
        }
        """
    text = merged_text(FILE, code, "a.kt")
    assert "read(path).trim()" in text and "val text = read(path)\n" not in text
    assert text.count("}") == 3


def test_elisions_keep_the_file_lines_between_runs() -> None:
    code = """
        fun load(path: String): Config {
            // ... existing code ...
            return parse(text, strict = true)
        }
        // ... unchanged ...
        fun main() {
            save("a", load("c"))
        }
        """
    result = failure(FILE, code, "a.kt")  # the second run starts with a changed line
    assert result.kind == "not-found"
    assert result.unplaced[0].strip() == "return parse(text, strict = true)"
    code = """
        fun load(path: String): Config {
            val text = read(path)
            // ... existing code ...
        }
        // ... unchanged ...
        fun main() {
            save("a", load("c"))
        }
        """
    text = merged_text(FILE, code, "a.kt")
    assert 'save("a", load("c"))' in text and "return parse(text)" in text
    assert "fun save" in text


def test_a_line_not_in_the_file_fails_with_the_run_unplaced() -> None:
    found = failure(FILE, "fun other() {\n    x()\n}\n", "a.kt")
    assert found.kind == "not-found" and found.unplaced == ("fun other() {", "    x()", "}")


def test_a_run_found_twice_is_ambiguous_with_candidates() -> None:
    file = "a {\nx\n}\nb {\nx\n}\n"
    found = failure(file, "x\ny\n", "a.kt")
    assert found.kind == "ambiguous" and found.candidates == (1, 4)


def test_a_span_losing_most_of_its_lines_is_refused() -> None:
    code = """
        fun load(path: String): Config {
            return Config()
        }
        """
    # The tail `}` closest to the run is load's own: 2 of 4 lines go, which is allowed.
    assert "return Config()" in merged_text(FILE, code, "a.kt")
    file = "start\na\nb\nc\nd\ne\nend\n"
    found = failure(file, "start\nx\nend\n", "a.kt")
    assert found.kind == "not-found" and "remove 5 of their 7" in found.reason


def test_whitespace_tolerance_re_indents_the_run() -> None:
    code = """
        fun save(path: String, config: Config) {
            write(path, render(config, pretty = true))
        }
        """
    indented = ["  " + line for line in lines(code)]
    request = MergeRequest(lines(FILE), indented, "a.kt")
    assert merge_code_block(request).kind == "not-found"
    result = merge_code_block(replace(request, whitespace=True))
    assert result.match == "whitespace"
    assert "    write(path, render(config, pretty = true))" in result.lines


def test_only_elisions_is_nothing_to_merge() -> None:
    assert failure(FILE, "// ...\n\n// ... existing code ...\n", "a.kt").kind == "not-found"


def test_the_at_line_picks_one_of_several_places() -> None:
    file = "a {\nx\n}\nb {\nx\n}\nc {\nx\n}\n"
    found = failure(file, "x\ny\n}\n", "a.kt")
    assert found.kind == "ambiguous" and found.candidates == (1, 4, 7)
    result = merge(file, "x\ny\n}\n", "a.kt", at_line=4)
    assert result.lines == ["a {", "x", "}", "b {", "x", "y", "}", "c {", "x", "}"]


def test_an_empty_fence_and_lines_the_file_has_unchanged() -> None:
    assert "is empty" in failure(FILE, "\n\n", "a.kt").reason
    result = merge(FILE, "}\n", "a.kt")  # at several places as shown: changes nothing
    assert result.kind == "snippet" and result.lines == lines(FILE)
