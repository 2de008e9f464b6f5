"""The open buffers the server keeps (lsp_server/lsp/buffers.py): found by path, parsed once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types


def test_open_buffers_are_found_by_path_whatever_the_uri_encoding(tmp_path: Path) -> None:
    from lsp_server.lsp.buffers import OpenBuffers

    real = tmp_path / "a dir"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    buffers = OpenBuffers()
    uri = "file://" + str(tmp_path / "link").replace(" ", "%20") + "/f%C3%BC.py"
    buffers.open(types.TextDocumentItem(uri=uri, language_id="python", version=4, text="x"))
    by_path = buffers.by_path()
    assert by_path[tmp_path / "link" / "fü.py"].version == 4
    assert by_path[real.resolve() / "fü.py"].uri == uri
    assert buffers.get(uri.replace("%C3%BC", "ü")) is not None
    buffers.close(uri.replace("%C3%BC", "ü"))
    assert buffers.by_path() == {}


def test_open_buffers_keep_the_line_count_of_their_very_text() -> None:
    from lsp_server.lsp.buffers import OpenBuffers

    buffers = OpenBuffers()
    uri = "file:///w/a.py"
    text = "one\ntwo\n"
    buffers.open(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    assert len(buffers.text_lines(uri, text)) == 3
    assert buffers.get(uri).line_count == 3  # kept for the next run
    equal_copy = "".join(["one\n", "two\n"])  # equal text, another object: not trusted
    assert buffers.text_lines(uri, equal_copy)._count is None
    buffers.change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="x\r\ny\rz")]),
        "utf-16")
    assert buffers.get(uri).line_count is None
    assert len(buffers.text_lines(uri, buffers.get(uri).text)) == 3
    assert len(buffers.text_lines("file:///w/closed.py", "a\nb")) == 2


def _read_run(buffers: Any, names: str) -> dict[str, Any]:
    """One run over ``buffers`` that reads the files ``names`` (one letter each) as the
    planner does, then lets the buffers keep its parses; the snapshots it read, by name."""
    from lsp_server.lsp.file_reader import FileReader

    reader = FileReader(buffers.by_written_path())
    for name in names:
        snapshot = reader(Path(f"/w/{name}.py"))
        assert snapshot.prepared is not None and snapshot.prepared.raw is snapshot.text
        snapshot.prepared.doc  # noqa: B018 - the planner parses what it reads
    buffers.keep_parses(reader.read_buffers)
    return {b.path.stem: b for b in reader.read_buffers}


def test_open_buffers_keep_one_parse_per_text_within_the_cap() -> None:
    from lsp_server.lsp.buffers import OpenBuffers

    buffers = OpenBuffers(prepared_max_chars=10)
    uris = [f"file:///w/{name}.py" for name in "abc"]
    for uri in uris:
        buffers.open(types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                            text="abcd"))
    first = _read_run(buffers, "ab")  # a run's parses are kept for the next runs
    assert buffers.get(uris[0]).prepared is first["a"].prepared
    assert buffers.get(uris[1]).prepared is first["b"].prepared
    assert buffers.get(uris[2]).prepared is None  # not read: no parse made
    second = _read_run(buffers, "c")  # over the 10-character cap: the oldest parse goes
    assert buffers.get(uris[0]).prepared is None
    assert buffers.get(uris[1]).prepared is first["b"].prepared
    assert buffers.get(uris[2]).prepared is second["c"].prepared
    assert _read_run(buffers, "c")["c"].prepared is second["c"].prepared  # reused
    buffers.close(uris[1])
    buffers.change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uris[2], version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="xyz\n")]),
        "utf-16")
    assert buffers.get(uris[2]).prepared is None  # it described the old text
    changed = _read_run(buffers, "c")["c"]
    assert changed.prepared is not second["c"].prepared
    assert changed.prepared.raw is changed.text and changed.prepared.doc.lines == ["xyz"]
    assert buffers.get(uris[2]).prepared is changed.prepared


def test_a_run_reading_more_than_the_cap_keeps_the_parses_it_uses() -> None:
    # Plain LRU would thrash: each new parse would evict one this very run needs next time,
    # and every run would parse every file again. Parses the run used stay; the rest of
    # its files are parsed for the run alone.
    from lsp_server.lsp.buffers import OpenBuffers

    buffers = OpenBuffers(prepared_max_chars=12)
    for name in "abcde":
        buffers.open(types.TextDocumentItem(uri=f"file:///w/{name}.py", language_id="python",
                                            version=1, text="1234"))
    first = _read_run(buffers, "abcde")
    kept = {name for name in "abcde" if buffers.get(f"file:///w/{name}.py").prepared}
    assert kept == {"a", "b", "c"}
    again = _read_run(buffers, "abcde")
    assert all(again[name].prepared is first[name].prepared for name in "abc")
    assert all(again[name].prepared is not first[name].prepared for name in "de")
    assert {name for name in "abcde" if buffers.get(f"file:///w/{name}.py").prepared} == kept
    # A run elsewhere takes the room of parses it did not use, oldest first.
    _read_run(buffers, "e")
    assert {name for name in "abcde" if buffers.get(f"file:///w/{name}.py").prepared} == {
        "b", "c", "e"}


def test_a_parse_is_not_kept_for_a_buffer_that_changed_during_the_run() -> None:
    from lsp_server.lsp.buffers import OpenBuffers
    from lsp_server.lsp.file_reader import FileReader

    buffers = OpenBuffers()
    uri = "file:///w/a.py"
    buffers.open(types.TextDocumentItem(uri=uri, language_id="python", version=1, text="one\n"))
    reader = FileReader(buffers.by_written_path())
    assert reader(Path("/w/a.py")).prepared.doc.lines == ["one"]
    buffers.change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="two\n")]),
        "utf-16")
    buffers.keep_parses(reader.read_buffers)
    assert buffers.get(uri).prepared is None
