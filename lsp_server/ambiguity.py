"""An ambiguous block, explained so the user (or the model) can choose: every place it
matches, each with the lines around it.

A block whose text is found at several places fails ("Unique or nothing", docs/formats.md):
a line block's whole text, or in a hunk format the first hunk (or its ``@@`` anchor or
context line) that matches at several places after the previous hunk. Its diagnosis names
every place (the first :data:`MAX_LISTED`, then how many more), offers them as
``fixes.candidateLines`` (0-based; the ``at`` quick fix applies the block with that text at
one of them) with ``fixes.candidateCount`` and, for a hunk, ``fixes.candidateHunk`` (which
hunk), and carries the file's lines around each (:data:`CONTEXT_LINES` before and after)
for retry feedback, so a model can add context that occurs once.
"""

from __future__ import annotations

from collections.abc import Callable

from .diagnosis import Diagnosis
from .matching import FileMatcher
from .model import BlockResult

MAX_LISTED = 10  # candidate places named, offered as quick fixes, shown in feedback
MAX_COUNTED = 10_000  # past this many places the count stops (the reason says "more than")
CONTEXT_LINES = 2  # file lines shown before and after each candidate
_SHOWN_MATCH_LINES = 4  # a longer match shows its first and last lines around a gap
_MAX_LINE_CHARS = 300  # a minified line must not swamp the feedback


def ambiguous_places(fm: FileMatcher, needle: list[str], level: str | None,
                     start: int = 0) -> list[int]:
    """Every place (up to one past :data:`MAX_COUNTED`) ``needle`` matches at ``level``,
    from line ``start`` on."""
    return fm.find_all(needle, level or "exact", start, None, MAX_COUNTED + 1)


def places_diagnosis(fm: FileMatcher, starts: list[int], length: int,
                     reason_at: Callable[[str], str], *, hunk: int | None = None) -> Diagnosis:
    """The diagnosis of lines (``length`` of them) matching at every one of ``starts``:
    ``reason_at`` words the reason around "lines 6, 12 and 20"; ``hunk``: which hunk of a
    hunk-format block it is (``fixes.candidateHunk``, the one the ``at`` fix places)."""
    listed = starts[:MAX_LISTED]
    fixes: dict = {"candidateLines": listed, "candidateCount": min(len(starts), MAX_COUNTED)}
    if hunk is not None:
        fixes["candidateHunk"] = hunk
    return Diagnosis(
        line=starts[0],
        reason=reason_at(candidate_words(listed, len(starts))),
        hint="add context lines that occur only once in the file",
        fixes=fixes,
        context=candidate_context(fm.lines, listed, length),
    )


def ambiguous_diagnosis(fm: FileMatcher, needle: list[str], level: str | None,
                        base_reason: str = "Edit location is ambiguous") -> Diagnosis:
    """The diagnosis of ``needle`` matching at several places at ``level``."""
    return places_diagnosis(fm, ambiguous_places(fm, needle, level), len(needle),
                            lambda words: f"{base_reason} (matches at {words})")


def candidate_words(listed: list[int], total: int) -> str:
    """"lines 6 and 12", "lines 1, 2, …, 10 and 5 more" (1-based)."""
    numbers = [str(line + 1) for line in listed]
    more = total - len(listed)
    if more > 0:
        count = f"more than {MAX_COUNTED - len(listed)}" if total > MAX_COUNTED else str(more)
        return f"lines {', '.join(numbers)} and {count} more"
    if len(numbers) == 1:
        return f"line {numbers[0]}"
    return f"lines {', '.join(numbers[:-1])} and {numbers[-1]}"


def candidate_context(lines: list[str], starts: list[int], length: int) -> list[tuple[int, str]]:
    """The file lines around each candidate: ``CONTEXT_LINES`` before and after the match
    (a long match shows its first and last lines), in order, without repeats."""
    shown: set[int] = set()
    for start in starts:
        end = start + max(length, 1)
        if end - start > _SHOWN_MATCH_LINES:
            half = _SHOWN_MATCH_LINES // 2
            shown.update(range(start - CONTEXT_LINES, start + half))
            shown.update(range(end - half, end + CONTEXT_LINES))
        else:
            shown.update(range(start - CONTEXT_LINES, end + CONTEXT_LINES))
    return [(n, lines[n]) for n in sorted(shown) if 0 <= n < len(lines)]


def candidate_lines(fixes: dict) -> list[int]:
    """The 0-based candidate lines a block's ``fixes`` offer (either key spelling)."""
    found = fixes.get("candidateLines", fixes.get("candidate_lines"))
    return [n for n in found if isinstance(n, int)] if isinstance(found, list) else []


def candidate_hunk(fixes: dict) -> int | None:
    """Which hunk of a hunk-format block the candidate lines are places of (None: the whole
    block, a line format)."""
    hunk = fixes.get("candidateHunk", fixes.get("candidate_hunk"))
    return hunk if isinstance(hunk, int) and not isinstance(hunk, bool) and hunk >= 0 else None


def candidates_feedback(block: BlockResult,
                        the_file: str = "the file as the blocks before this one leave it"
                        ) -> list[str]:
    """Retry feedback's part for an ambiguous block: its places, each with the file's lines
    around it (numbered; ``>`` marks where a match starts, ``…`` a gap), or nothing.
    ``the_file`` names the text the places are in."""
    starts = candidate_lines(block.fixes)
    if not starts or not block.context:
        return []
    total = block.fixes.get("candidateCount", len(starts))
    hunk = candidate_hunk(block.fixes)
    what = "Your lines occur" if hunk is None else (
        f"What hunk {hunk + 1} looks for occurs, after the hunk before it,")
    head = (f"{what} at {total} places in {the_file}; add lines before or after them that "
            "occur only once. The places (line numbers are for reference only, they are not "
            "part of the file):")
    width = len(str(block.context[-1][0] + 1))
    marked = set(starts)
    body: list[str] = []
    previous: int | None = None
    for n, text in block.context:
        if previous is not None and n > previous + 1:
            body.append("…")
        if len(text) > _MAX_LINE_CHARS:
            text = text[:_MAX_LINE_CHARS] + " …(line cut)"
        body.append(f"{'>' if n in marked else ' '} {n + 1:>{width}} | {text}")
        previous = n
    fence = fence_for(body)
    return [head, fence, *body, fence]


def fence_for(lines: list[str]) -> str:
    """A backtick fence longer than any backtick run in ``lines`` (the feedback's quoted
    file lines: a run anywhere in them, so no reader can take one for the fence's end)."""
    longest = 0
    for line in lines:
        run = 0
        for ch in line:
            run = run + 1 if ch == "`" else 0
            longest = max(longest, run)
    return "`" * max(3, longest + 1)


__all__ = ["CONTEXT_LINES", "MAX_COUNTED", "MAX_LISTED", "ambiguous_diagnosis",
           "ambiguous_places", "candidate_context", "candidate_hunk", "candidate_lines",
           "candidate_words", "candidates_feedback", "fence_for", "places_diagnosis"]
