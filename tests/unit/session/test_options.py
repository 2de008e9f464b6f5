"""The options of a run, validated once for every front end; the server's command arguments."""

from __future__ import annotations

import pytest

from lsp_server.lsp.requests.arguments import parse_fix_request
from lsp_server.session.options import (
    CLI,
    EditOptions,
    OptionsError,
    check_response_size,
    parse_options,
)


def test_options_merge_over_initialization_defaults() -> None:
    options = parse_options({"atomic": True}, {"matching": "whitespace", "atomic": False,
                                                    "formats": ["edit-v3"]})
    assert (options.matching, options.atomic, options.formats) == ("whitespace", True,
                                                                   {"edit-v3"})
    assert parse_options(None).max_response_bytes == 16 * 1024 * 1024
    assert parse_options({"formats": []}).formats is None  # empty: every format


@pytest.mark.parametrize(("options", "message"), [
    ({"matching": "fuzzy"}, "matching"),
    ({"matching": ["whitespace"]}, "matching"),  # not a name: refused, not a TypeError
    ({"matching": {"a": 1}}, "matching"),
    ({"atomic": "yes"}, "atomic"),
    ({"formats": ["nope"]}, "unknown format"),
    ({"maxResponseBytes": 0}, "maxResponseBytes"),
    ("exact", "must be an object"),
])
def test_bad_options_are_refused_with_a_message(options: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_options(options)


def test_response_size_limit() -> None:
    options = EditOptions(max_response_bytes=20)
    check_response_size("é" * 10, options)
    with pytest.raises(OptionsError, match=r"21 bytes, more than maxResponseBytes \(20\); split"):
        check_response_size("é" * 10 + "x", options)
    options.vocabulary = CLI  # the CLI names its flag
    with pytest.raises(OptionsError, match=r"21 bytes, more than 20 \(--max-response-bytes\)$"):
        check_response_size("é" * 10 + "x", options)


def test_blocks_and_target_are_read_from_the_commands_own_options() -> None:
    options = parse_options({"blocks": [1], "target": "src/a.py"},
                            {"blocks": [0], "target": "b.py", "atomic": True})
    assert (options.blocks, options.target, options.atomic) == ((1,), "src/a.py", True)
    assert parse_options(None, {"blocks": [0], "target": "b.py"}).blocks is None
    assert parse_options({"blocks": None}).blocks is None
    with pytest.raises(OptionsError, match=r"options\.target must be a workspace path"):
        parse_options({"target": 3})


def test_fix_request_validation() -> None:
    assert parse_fix_request({"runId": "r", "index": 2, "fix": "closest"}).index == 2
    with pytest.raises(ValueError, match="fix must be"):
        parse_fix_request({"runId": "r", "index": 2, "fix": "magic"})
