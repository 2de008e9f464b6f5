"""Calling one format parser directly, as parse_response calls it."""

from __future__ import annotations

from lsp_server.formats import FindBlocks
from lsp_server.parsing import ParsedSpan
from lsp_server.parsing.marker_scan import scan_markers


def spans_of(find_blocks: FindBlocks, text: str) -> list[ParsedSpan]:
    """What one format's ``find_blocks`` reads in ``text`` (LF line ends), with the marker
    lines scanned as parse_response scans them."""
    return find_blocks(text, text.split("\n"), scan_markers(text))
