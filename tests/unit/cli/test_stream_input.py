"""Reading a response as it arrives: UTF-8 decoded piece by piece."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.cli import stream_input
from lsp_server.cli.stream_input import InputStopped, response_chunks


def read_byte_by_byte(tmp_path: Path, data: bytes, monkeypatch: pytest.MonkeyPatch,
                      max_bytes: int = 1000) -> list[str]:
    """What response_chunks yields when every read returns one byte (each multi-byte
    character arrives cut)."""
    monkeypatch.setattr(stream_input, "_READ_BYTES", 1)
    response = tmp_path / "response.md"
    response.write_bytes(data)
    return list(response_chunks(str(response), max_bytes))


def test_a_character_cut_between_reads_is_yielded_once_its_last_byte_arrived(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a€b😀\n"
    chunks = read_byte_by_byte(tmp_path, b"\xef\xbb\xbf" + text.encode(), monkeypatch)
    assert chunks == ["a", "€", "b", "😀", "\n"]  # the BOM dropped


def test_undecodable_bytes_and_a_character_cut_at_the_end_become_replacement_characters(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chunks = read_byte_by_byte(tmp_path, b"x\xffy\n" + "é".encode()[:1], monkeypatch)
    assert "".join(chunks) == "x\ufffdy\n\ufffd"


def test_past_the_limit_reading_stops_after_what_came_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream_input, "_READ_BYTES", 1)
    response = tmp_path / "response.md"
    response.write_bytes(b"0123456789")
    seen = []
    with pytest.raises(InputStopped, match="larger than 5 bytes"):
        for chunk in response_chunks(str(response), 5):
            seen.append(chunk)
    assert seen == ["0", "1", "2", "3", "4"]
