"""Command options and arguments, validated."""

from __future__ import annotations

import pytest

from lsp_server.lsp.options import check_response_size, parse_fix_request, parse_options


def test_options_merge_over_initialization_defaults() -> None:
    options = parse_options({"atomic": True}, {"matching": "whitespace", "atomic": False,
                                                    "formats": ["edit-v3"]})
    assert (options.matching, options.atomic, options.formats) == ("whitespace", True,
                                                                   {"edit-v3"})
    assert parse_options(None).max_response_bytes == 16 * 1024 * 1024
    assert parse_options({"formats": []}).formats is None  # empty: every format


@pytest.mark.parametrize(("options", "message"), [
    ({"matching": "fuzzy"}, "matching"),
    ({"atomic": "yes"}, "atomic"),
    ({"formats": ["nope"]}, "unknown format"),
    ({"maxResponseBytes": 0}, "maxResponseBytes"),
    ("exact", "must be an object"),
])
def test_bad_options_are_refused_with_a_message(options: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_options(options)


def test_response_size_limit() -> None:
    check_response_size("é" * 10, 20)
    with pytest.raises(ValueError, match="21 bytes, more than maxResponseBytes"):
        check_response_size("é" * 10 + "x", 20)


def test_fix_request_validation() -> None:
    assert parse_fix_request({"runId": "r", "index": 2, "fix": "closest"}).index == 2
    with pytest.raises(ValueError, match="fix must be"):
        parse_fix_request({"runId": "r", "index": 2, "fix": "magic"})
