"""session.live: what a feed costs. Text appended after complete blocks that cannot change
the parse (prose) is not parsed again line by line; counted in characters re-read
(``LiveResponse.reread``), never in time. The parse is always the one of the whole text."""

from __future__ import annotations

from lsp_server.parsing import parse_response
from lsp_server.session.live import LiveResponse
from lsp_server.session.options import EditOptions

BLOCK = "a.py\n<<<<<<< SEARCH\none\n=======\nONE\n>>>>>>> REPLACE\n"
PROSE = "".join(f"This is line {n} of a long explanation, plain words only.\n"
                for n in range(4000))  # ~230 KB


def _feed(live: LiveResponse, text: str, chunk: int = 2048) -> None:
    for end in range(chunk, len(text) + chunk, chunk):
        live.feed(text[:min(end, len(text))], max(0, end - chunk))


def _same_parse(live: LiveResponse, text: str) -> None:
    whole = parse_response(text)
    assert [b.file for b in live.parsed.blocks] == [b.file for b in whole.blocks]
    assert [(w.response_line, w.message) for w in live.parsed.warnings] == [
        (w.response_line, w.message) for w in whole.warnings]
    assert live.parsed.shell_suggestions == whole.shell_suggestions


def test_a_long_prose_tail_after_a_block_is_not_read_again_per_chunk() -> None:
    live = LiveResponse(EditOptions())
    text = "Intro.\n\n" + BLOCK + "\n" + PROSE
    _feed(live, text)
    # Re-parsing from the block on every chunk read ~57x the text (quadratic).
    assert live.reread <= 2 * len(text), live.reread / len(text)
    assert live.complete == 1
    _same_parse(live, text)


def test_what_prose_holds_that_matters_is_parsed() -> None:
    live = LiveResponse(EditOptions())
    head = "Intro.\n\n" + BLOCK + "\n" + PROSE[:20000]
    tail = ("Then run `git rm old.py` and this:\n\n"
            + BLOCK.replace("a.py", "b.py") + "\nDone.\n" + PROSE[:20000])
    _feed(live, head + tail, chunk=333)
    assert [b.file for b in live.parsed.blocks] == ["a.py", "b.py"]
    assert live.complete == 2
    _same_parse(live, head + tail)


def test_an_edit_of_the_prose_tail_is_parsed() -> None:
    live = LiveResponse(EditOptions())
    text = "Intro.\n\n" + BLOCK + "\nRun `git rm x.py` first.\n"
    live.feed(text, 0)
    assert live.parsed.shell_suggestions == ["git rm x.py"]
    at = text.index("Run")
    edited = text[:at] + "Nothing to run.\n"
    live.feed(edited, at)
    assert live.parsed.shell_suggestions == []
    _same_parse(live, edited)


def test_the_end_of_the_text_parses_what_waited() -> None:
    live = LiveResponse(EditOptions())
    text = "Intro.\n\n" + BLOCK + "\n" + PROSE[:5000]
    _feed(live, text, chunk=100)
    update = live.feed(text, len(text), ended=True)
    assert update.complete == 1
    _same_parse(live, text)
