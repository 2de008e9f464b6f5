"""normalize_response (line endings, BOM, surrogates); parse_response's line numbers and the
garbage collector it leaves alone."""

from __future__ import annotations

import gc

from lsp_server.model import text_to_lines
from lsp_server.parsing import normalize_response, parse_response


def test_line_endings_and_bom() -> None:
    assert normalize_response("\ufeffa\r\nb\rc\n") == "a\nb\nc\n"
    assert normalize_response("a\ufeff\r\n") == "a\ufeff\n"  # only a leading BOM goes


def test_clean_text_is_returned_unchanged() -> None:
    for text in ("plain ascii\n", "««« EDIT\n═══════ REPL\n", "emoji 😀 and é\n"):
        assert normalize_response(text) == text


def test_each_lone_surrogate_becomes_one_replacement_character() -> None:
    bad = b"x = '\xff'\n\xc0\xaf\n".decode("utf-8", "surrogateescape")
    assert normalize_response(bad) == "x = '\ufffd'\n\ufffd\ufffd\n"
    assert normalize_response("a\ud800b\udfffc") == "a\ufffdb\ufffdc"


def test_a_surrogate_pair_becomes_its_character() -> None:
    assert normalize_response("smile \ud83d\ude00\n") == "smile \U0001f600\n"


def test_surrogates_in_a_block_become_replacement_characters() -> None:
    text = "a.py\n««« EDIT\nx = '\udcff'\n═══════ REPL\nx = 1\n»»» EDIT END\n"
    [block] = parse_response(text).blocks
    assert block.old == ["x = '\ufffd'"]


def test_response_lines_are_numbered_as_the_package_splits_lines() -> None:
    # A lone CR ends a line for the parser as for model.text_to_lines (editors and LSP agree),
    # so a block's response line is the same line a client shows.
    text = "a\rb\rc\na.py\r««« EDIT\rx\r═══════ REPL\ry\r»»» EDIT END\r"
    [block] = parse_response(text).blocks
    lines = text_to_lines(text)
    assert (block.response_line, block.end_line) == (3, 9)
    assert lines[block.response_line] == "a.py"
    assert lines[block.end_line - 1] == "»»» EDIT END"
    assert len(text_to_lines("a\rb\rc\n")) == len(normalize_response("a\rb\rc\n").split("\n")) - 1


def test_parse_response_leaves_the_collector_as_it_found_it() -> None:
    text = "a.py\n««« EDIT\nx\n═══════ REPL\ny\n»»» EDIT END\n"
    assert gc.isenabled()
    parse_response(text)
    assert gc.isenabled()
    gc.disable()
    try:
        parse_response(text)
        assert not gc.isenabled()
    finally:
        gc.enable()


# ------------------------------------------------------------------ invalid UTF-8 (issue 18)


def test_replacement_characters_are_a_warning_naming_each_line() -> None:
    text = "app.py\n««« EDIT\nx = '\ufffd'\n═══════ REPL\nx = 1\n»»» EDIT END\n\ufffd\ufffd\n"
    result = parse_response(text)
    assert [b.file for b in result.blocks] == ["app.py"]
    assert [w.response_line for w in result.warnings] == [2, 6]
    assert all("U+FFFD replacement characters on this line" in w.message
               and "not valid UTF-8" in w.message for w in result.warnings)


def test_bytes_decoded_with_surrogateescape_are_named_too() -> None:
    # a client that kept undecodable bytes as lone surrogates: they become U+FFFD, and say so
    text = b"a.py\n\xff\xfeok\n".decode("utf-8", "surrogateescape")
    assert [w.response_line for w in parse_response(text).warnings] == [1]


def test_replacement_warnings_stop_after_ten_lines() -> None:
    warnings = parse_response("\ufffd\n" * 30).warnings
    assert [w.response_line for w in warnings] == list(range(10))
    assert warnings[-1].message.endswith("(and on later lines too)")
    assert parse_response("caf\u00e9\n").warnings == []  # other non-ASCII text says nothing


# ------------------------------------------------------------------ whole files not asked for


def test_a_path_line_over_a_fenced_file_is_named_when_no_fence_format_is_asked_for() -> None:
    text = "Here is the whole file:\n\napp.py\n```python\nimport os\nx = 1\n```\n"
    # By default the fence is a code block (docs/formats.md "code-block").
    assert [(b.format, b.file) for b in parse_response(text).blocks] == [("code-block", "app.py")]
    result = parse_response(text, {"edit-v3", "unified-diff"})
    assert result.blocks == []
    (warning,) = result.warnings
    assert warning.response_line == 2
    assert warning.message.startswith("'app.py' above a fenced block (to response line 7) reads "
                                      "like the whole file")
    assert "name 'whole-file': not applied" in warning.message
    assert [b.file for b in parse_response(text, {"whole-file"}).blocks] == ["app.py"]
    assert parse_response(text, {"whole-file"}).warnings == []


def test_no_whole_file_hint_next_to_real_blocks_or_over_a_plain_snippet() -> None:
    block = "app.py\n««« EDIT\na\n═══════ REPL\nb\n»»» EDIT END\n"
    assert parse_response(block + "\nutil.py\n```python\nx = 1\n```\n").warnings == []
    assert parse_response("Run:\n```bash\nls\n```\n").warnings == []
