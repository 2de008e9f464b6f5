"""lsp_server/mcp/preconditions.py: expected_sha256 refuses a file changed since it was read."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from lsp_server.mcp.arguments import ArgumentError
from lsp_server.mcp.preconditions import CheckedReader, content_sha256
from lsp_server.workspace import read_disk_file


def test_the_hash_of_a_disk_file_is_the_hash_of_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo")
    assert content_sha256(read_disk_file(path).text) == hashlib.sha256(
        path.read_bytes()).hexdigest()


def test_a_matching_hash_reads_the_file_and_another_refuses_it(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    (tmp_path / "link.txt").symlink_to("a.txt")
    good = content_sha256("one\n")
    reader = CheckedReader(read_disk_file, [tmp_path], {"a.txt": good})
    assert reader(tmp_path / "a.txt").text == "one\n"
    stale = CheckedReader(read_disk_file, [tmp_path], {"a.txt": "0" * 64})
    refused = stale(tmp_path / "link.txt")  # one file by two names: one precondition
    assert refused.text is None
    assert refused.error.startswith(f"changed since it was read (its SHA-256 is now {good}")
    assert stale.snapshots[tmp_path / "link.txt"].text == "one\n"  # what was really read


def test_a_file_gone_since_it_was_read_is_refused(tmp_path: Path) -> None:
    reader = CheckedReader(read_disk_file, [tmp_path], {"gone.txt": "0" * 64})
    assert "it no longer exists" in reader(tmp_path / "gone.txt").error


def test_a_precondition_outside_the_workspace_is_an_argument_error(tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match=r"expected_sha256 names '\.\./x\.txt'"):
        CheckedReader(read_disk_file, [tmp_path], {"../x.txt": "0" * 64})
