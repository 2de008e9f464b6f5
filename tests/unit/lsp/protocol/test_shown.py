"""Paths and URIs in the server's messages, with invisible characters escaped."""

from __future__ import annotations

from lsp_server.lsp.protocol.shown import shown


def test_bidi_zero_width_and_control_characters_are_escaped() -> None:
    assert shown("src/app.py") == "src/app.py"
    assert shown("é/😀 x.py") == "é/😀 x.py"
    assert shown("a\u202egnp.exe") == "a\\u202egnp.exe"
    assert shown(".g\u200cit/config") == ".g\\u200cit/config"
    assert shown("a\x1b]0;x\x07\tb\nc") == "a\\x1b]0;x\\x07\\x09b\\x0ac"
    assert shown("a\u2028b\ufeff\ud800\U000e0041") == "a\\u2028b\\ufeff\\ud800\\U000e0041"
