"""Why a block failed and where: the estimated line, a reason a person can act on, a hint.

The estimated line (docs/formats.md "Where it failed") is the start of the window of the file that
best matches, line by line, everything the block must match. It is found in two steps:

1. Votes. Each non-blank line of the needle that occurs in the file (compared with
   surrounding whitespace stripped) votes for the window start that would align it
   (``file line - needle line``), weighted by rarity (1/sqrt(occurrences)); exact equality
   weighs more than a stripped one; lines occurring very often do not vote. Positions come
   from the lines containing the stripped needle line (``FileMatcher.lines_containing``:
   ``str.find`` over the exact text the planner has already indexed), each checked; no
   per-file dictionary or stripped copy of the file (on a 100,000-line file building either
   costs more than the whole diagnosis), except for a line inside too many others.
2. Fuzzy votes, only when no rare line anchored a window: the needle lines found nowhere
   (edited lines) are looked up with rapidfuzz and vote for their most similar file lines.
3. Refinement. The best-voted windows (and the hint line) are scored line by line: 1 for an
   exact line, 0.9 for a whitespace-only difference, else a scaled similarity ratio. The
   best score wins; ties go to the line nearest a hint (a unified diff's header) or the
   earliest.

The reason adds what a model can fix: which part failed (from the planner), whitespace-only
differences naming the line (tabs vs spaces, trailing spaces), elision placeholders
(``...``, ``// rest of code``), and a "did you mean" hint at the first line where the block
and the file differ, or that one of them lacks (``did_you_mean``). ``fixes``
tells the quick fixes what would work: ``{"matching": "whitespace"}`` or
``{"closestLine": N}`` (0-based; see ``plan_edits(force_at=...)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .did_you_mean import difference_hint, first_difference, quote
from .matching import EXACT_ONLY, WHITESPACE, FileMatcher, strip_ws
from .reindent import leading_ws

# A line occurring more often than this says little about where a block belongs.
_MAX_VOTING_OCCURRENCES = 64
_MAX_VOTING_LINES = 16
# A needle line's places are found among the file lines containing it; past this many
# (a short line like "x" inside longer ones) the whitespace index is cheaper.
_MAX_CONTAINING_LINES = 512
_MAX_FUZZY_QUERIES = 3
# Fuzzy comparison looks at most this many characters of a line: rapidfuzz prepares about
# 32 bytes per character of its query, so a 50 MB line (one line of a hostile response)
# cost 1.7 GB to diagnose. The first 2,000 characters are plenty to rank similar lines.
_FUZZY_CHARS = 2_000
_MAX_CANDIDATES = 12
_CONTEXT_BEFORE = 3
_CONTEXT_AFTER = 3
_MAX_CONTEXT_LINES = 40

# Elision placeholders are recognised in steps, each regex free of adjacent or nested
# quantifiers: one regex with ``\s*(...)?\s*`` then ``.*\b(words)\b.*`` backtracked
# cubically (a 1.5 KB line of spaces took 16 s on the event loop).
_ELLIPSIS = ("...", "…")
_COMMENT_START_RE = re.compile(r"\#|//|/\*+|\*|<!--|--|;|%|\{/\*")
_ELLIPSIS_COMMENT_RE = re.compile(
    r"\s*(?:(?:\.\.\.|…)\s*)?(?:\.\.\.|…)\s*(?:\*/|-->|\*/\})?"
)
_PLACEHOLDER_WORDS_RE = re.compile(
    r"""\b(?:rest\ of|remaining|existing|unchanged|same\ as|as\ before|omitted|elided|
           snip|other\ (?:code|methods|functions|fields|imports|tests))\b""",
    re.VERBOSE | re.IGNORECASE,
)


def is_elision(stripped: str) -> bool:
    """Whether a stripped line is an elision placeholder: a bare ``...`` or ``…``, or a
    comment holding only an ellipsis or words like "rest of", "existing", "unchanged"."""
    if stripped in _ELLIPSIS:
        return True
    start = _COMMENT_START_RE.match(stripped)
    if start is None:
        return False
    if _ELLIPSIS_COMMENT_RE.fullmatch(stripped, start.end()):
        return True
    return _PLACEHOLDER_WORDS_RE.search(stripped, start.end()) is not None


@dataclass
class Diagnosis:
    """What the planner attaches to a failed block."""

    line: int
    reason: str
    hint: str | None = None
    fixes: dict = field(default_factory=dict)
    context: list[tuple[int, str]] = field(default_factory=list)


# ------------------------------------------------------------------------- line formats


def line_block_reason(
    fm: FileMatcher,
    anchor: list[str],
    old: list[str],
    trailing: list[str],
    levels: tuple[str, ...] = EXACT_ONLY,
) -> str:
    """Which part of a line-format block (leading anchor + old + trailing) is not in the
    file, in seed 002's words. Called when the whole sequence was not found."""
    if anchor:
        if not fm.locate(anchor, levels, limit=1).starts:
            return "Leading anchor not found in file"
        if old and not fm.locate(anchor + old, levels, limit=1).starts:
            return "Old lines don't match content after anchor"
        return "Trailing anchor not found after old lines"
    if old:
        if not fm.locate(old, levels, limit=1).starts:
            return "Old lines not found in file"
        return "Trailing anchor not found after old lines"
    return "Trailing anchor not found in file"


# ----------------------------------------------------------------------- window search


def _line_similarity(block_line: str, file_line: str) -> float:
    if block_line == file_line:
        return 1.0
    b, f = block_line.strip(WHITESPACE), file_line.strip(WHITESPACE)
    if b == f:
        return 0.9
    if not b or not f:
        return 0.0
    from rapidfuzz import fuzz  # on first use: a plan with no failure never imports it

    return 0.8 * fuzz.ratio(b[:_FUZZY_CHARS], f[:_FUZZY_CHARS]) / 100.0


def window_score(fm: FileMatcher, needle: list[str], start: int) -> float:
    """Line-by-line similarity of ``needle`` with the file window starting at ``start``
    (lines outside the file score 0)."""
    lines = fm.lines
    n = len(lines)
    total = 0.0
    for i, block_line in enumerate(needle):
        p = start + i
        if 0 <= p < n:
            total += _line_similarity(block_line, lines[p])
    return total


def _stripped_equal_lines(fm: FileMatcher, key: str, limit: int) -> list[int] | None:
    """Up to ``limit`` file lines (in order) equal to ``key`` once surrounding whitespace is
    stripped, or None when too many lines merely contain ``key`` to check them one by one.

    Why not the whitespace index: building it strips, joins and offsets every line of the
    file (on 100,000 lines that was most of a diagnosis), while a line equal to ``key``
    after stripping contains ``key``, and the matcher finds lines containing a string in the
    exact text the planner has already indexed."""
    lines = fm.lines
    found: list[int] = []
    for tried, p in enumerate(fm.lines_containing(key)):
        if tried >= _MAX_CONTAINING_LINES:
            return None
        if lines[p].strip(WHITESPACE) == key:
            found.append(p)
            if len(found) >= limit:
                break
    return found


def _votes(fm: FileMatcher, needle: list[str]) -> tuple[dict[int, float], list[int]]:
    """Votes for window starts from needle lines found in the file, weighted by rarity (a
    line occurring c times gives each place 1/sqrt(c)), and the needle lines found nowhere
    (edited lines: the fuzzy pass looks for those)."""
    lines = fm.lines
    candidates = [
        (i, line, stripped) for i, line in enumerate(needle) if (stripped := strip_ws(line))
    ]
    # The longest lines are the most distinctive; keep the needle's own order for voting.
    if len(candidates) > _MAX_VOTING_LINES:
        keep = sorted(candidates, key=lambda c: -len(c[2]))[:_MAX_VOTING_LINES]
        candidates = sorted(keep)
    votes: dict[int, float] = {}
    missing: list[int] = []
    limit = _MAX_VOTING_OCCURRENCES + 1
    use_index = False  # once one line was inside too many others, the index is built
    for i, raw, stripped in candidates:
        positions = None if use_index else _stripped_equal_lines(fm, stripped, limit)
        if positions is None:
            use_index = True
            positions = fm.index("whitespace").find([stripped], limit=limit)
        if not positions:
            missing.append(i)
            continue
        if len(positions) > _MAX_VOTING_OCCURRENCES:
            continue
        rarity = 1.0 / len(positions) ** 0.5
        for p in positions:
            weight = (1.0 if lines[p] == raw else 0.8) * rarity
            votes[p - i] = votes.get(p - i, 0.0) + weight
    return votes, missing


def _fuzzy_votes(fm: FileMatcher, needle: list[str], rows: list[int]) -> dict[int, float]:
    from rapidfuzz import fuzz, process  # see _line_similarity

    choices = fm.index("whitespace").lines
    if choices and max(map(len, choices)) > _FUZZY_CHARS:  # rare: only then copy the lines
        choices = [line[:_FUZZY_CHARS] for line in choices]
    queries = sorted(
        ((i, strip_ws(needle[i])) for i in rows if len(strip_ws(needle[i])) >= 4),
        key=lambda q: -len(q[1]),
    )[:_MAX_FUZZY_QUERIES]
    votes: dict[int, float] = {}
    for i, query in queries:
        for _text, score, p in process.extract(
            query[:_FUZZY_CHARS], choices, scorer=fuzz.ratio, limit=4, score_cutoff=55
        ):
            votes[p - i] = votes.get(p - i, 0.0) + score / 100.0
    return votes


def best_windows(
    fm: FileMatcher, needle: list[str], hint_line: int | None = None
) -> list[tuple[float, int]]:
    """Candidate window starts with their line-by-line scores, best first."""
    if not needle or not fm.lines:
        return []
    votes, missing = _votes(fm, needle)
    # Similarity search is the slow part: only when no rare line anchored a window (a line
    # occurring once gives a vote of 1; common lines give less).
    if not votes or (missing and max(votes.values()) < 1.0):
        rows = missing if votes else list(range(len(needle)))
        for start, weight in _fuzzy_votes(fm, needle, rows).items():
            votes[start] = votes.get(start, 0.0) + weight
    starts = [s for s, _ in sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))]
    starts = starts[:_MAX_CANDIDATES]
    if hint_line is not None and hint_line not in starts:
        starts.append(hint_line)
    if not starts:
        return []
    scored = [(window_score(fm, needle, start), start) for start in starts]

    def rank(item: tuple[float, int]) -> tuple[float, int, int]:
        score, start = item
        distance = abs(start - hint_line) if hint_line is not None else 0
        return (-round(score, 6), distance, start)

    return sorted(scored, key=rank)


# ------------------------------------------------------------------------ explanations


def elision_lines(needle: list[str], fm: FileMatcher | None = None) -> list[int]:
    """Needle line indexes that look like elision placeholders (``...``, ``// rest of
    code``, ``# ... existing code ...``) and, when a file is given, are not in it."""
    found = []
    for i, line in enumerate(needle):
        s = strip_ws(line)
        if s and is_elision(s):
            if fm is not None:
                places = _stripped_equal_lines(fm, s, 1)
                if places is None:
                    places = fm.index("whitespace").find([s], limit=1)
                if places:
                    continue  # e.g. a real `...` in a Python stub
            found.append(i)
    return found


def _describe_ws(ws: str) -> str:
    if not ws:
        return "no indentation"
    tabs, spaces = ws.count("\t"), ws.count(" ")
    parts = []
    if tabs:
        parts.append(f"{tabs} tab{'s' if tabs != 1 else ''}")
    if spaces:
        parts.append(f"{spaces} space{'s' if spaces != 1 else ''}")
    other = len(ws) - tabs - spaces
    if other:
        parts.append(f"{other} other whitespace character{'s' if other != 1 else ''}")
    return " and ".join(parts)


def _trailing_ws(line: str) -> str:
    return line[len(line.rstrip(WHITESPACE)) :]


def whitespace_difference(block_line: str, file_line: str) -> str:
    """Describe how two lines equal up to surrounding whitespace differ."""
    problems = []
    bl, fl = leading_ws(block_line), leading_ws(file_line)
    if bl != fl:
        problems.append(
            f"indentation is {_describe_ws(fl)} in the file but {_describe_ws(bl)} in the block"
        )
    bt, ft = _trailing_ws(block_line), _trailing_ws(file_line)
    if bt != ft:
        if ft and not bt:
            problems.append(f"the file line has trailing whitespace ({_describe_ws(ft)}) "
                            "the block lacks")
        elif bt and not ft:
            problems.append(f"the block line has trailing whitespace ({_describe_ws(bt)}) "
                            "the file lacks")
        else:
            problems.append(f"trailing whitespace is {_describe_ws(ft)} in the file but "
                            f"{_describe_ws(bt)} in the block")
    return "; ".join(problems) or "whitespace differs"


def context_lines(fm: FileMatcher, line: int, length: int) -> list[tuple[int, str]]:
    """Actual file lines around an estimated window, for retry feedback."""
    n = len(fm.lines)
    if not n:
        return []
    start = max(0, line - _CONTEXT_BEFORE)
    end = min(n, line + max(length, 1) + _CONTEXT_AFTER, start + _MAX_CONTEXT_LINES)
    return [(i, fm.lines[i]) for i in range(start, end)]


def diagnose(
    fm: FileMatcher,
    needle: list[str],
    reason: str,
    *,
    hint_line: int | None = None,
    tolerant_start: int | None = None,
    ambiguous_start: int | None = None,
    allow_closest: bool = True,
) -> Diagnosis:
    """Explain a failed needle.

    ``reason`` is the planner's base reason (seed wording). ``tolerant_start``: exact mode
    failed but the needle matches exactly once ignoring surrounding whitespace there (the
    diagnosis goes there and offers the whitespace fix). ``ambiguous_start``: the first of
    several matches (reported as is). Otherwise the best-matching window is estimated.
    """
    if ambiguous_start is not None:
        return Diagnosis(
            line=ambiguous_start,
            reason=reason,
            hint="add context lines that occur only once in the file",
            context=context_lines(fm, ambiguous_start, len(needle)),
        )
    if tolerant_start is not None:
        return _whitespace_diagnosis(fm, needle, reason, tolerant_start)
    return _estimated_diagnosis(fm, needle, reason, hint_line, allow_closest)


def _whitespace_diagnosis(fm: FileMatcher, needle: list[str], reason: str,
                          start: int) -> Diagnosis:
    """The needle matches at ``start`` once whitespace is ignored: say where it differs."""
    details = [
        (start + i, whitespace_difference(block_line, fm.lines[start + i]))
        for i, block_line in enumerate(needle)
        if fm.lines[start + i] != block_line
    ]
    if details:
        first_line, what = details[0]
        more = ""
        if len(details) > 1:
            more = f" (and {len(details) - 1} more line{'s' if len(details) > 2 else ''})"
        detail = f"whitespace differs at line {first_line + 1}: {what}{more}"
    else:
        detail = "whitespace differs"
    return Diagnosis(
        line=start,
        reason=f"{reason}; {detail}; it matches with whitespace tolerance",
        hint="copy the lines' whitespace exactly, or apply with whitespace tolerance",
        fixes={"matching": "whitespace"},
        context=context_lines(fm, start, len(needle)),
    )


def _estimated_diagnosis(fm: FileMatcher, needle: list[str], reason: str,
                         hint_line: int | None, allow_closest: bool) -> Diagnosis:
    """The needle is nowhere: estimate the window it was meant for and explain the first
    difference there."""
    n = len(fm.lines)
    windows = best_windows(fm, needle, hint_line)
    if windows:
        best_score, best = windows[0]
    else:
        best_score, best = 0.0, (hint_line if hint_line is not None else 0)
    line = max(0, min(best, n - 1)) if n else 0
    details: list[str] = []
    hint: str | None = None
    fixes: dict = {}
    elided = elision_lines(needle, fm)
    if elided:
        i = elided[0]
        details.append(
            f"line {i + 1} of the block ({quote(strip_ws(needle[i]))}) is an elision "
            "placeholder; copy every line the block must match verbatim, without omissions"
        )
    if windows and best_score > 0:
        hint = _explain_mismatch(fm, needle, best, details)
        second = windows[1][0] if len(windows) > 1 else 0.0
        if allow_closest and not elided and _is_clear_closest(fm, needle, best, best_score,
                                                              second):
            fixes["closestLine"] = best
    detail = "; ".join(details)
    return Diagnosis(
        line=line,
        reason=f"{reason}; {detail}" if detail else reason,
        hint=hint,
        fixes=fixes,
        context=context_lines(fm, line, len(needle)),
    )


def _explain_mismatch(fm: FileMatcher, needle: list[str], best: int,
                      details: list[str]) -> str | None:
    """The hint for the first place the block differs from the file around the window at
    ``best`` (``did_you_mean``); a whitespace-only difference also goes into ``details``."""
    difference = first_difference(fm.lines, needle, best)
    if difference is None:
        return None
    if difference.kind == "changed":
        actual, block_line = fm.lines[difference.file_line], needle[difference.block_line]
        if strip_ws(actual) == strip_ws(block_line):
            details.append(
                f"line {difference.file_line + 1} differs only in whitespace: "
                f"{whitespace_difference(block_line, actual)}"
            )
    return difference_hint(fm.lines, needle, best, difference)


def _is_clear_closest(fm: FileMatcher, needle: list[str], best: int, best_score: float,
                      second: float) -> bool:
    """The best window fits in the file, matches most of the needle and clearly beats the
    next one: "Apply at closest match" may place the block there."""
    k = len(needle)
    return bool(k) and 0 <= best <= len(fm.lines) - k and best_score >= 0.6 * k \
        and second < best_score * 0.9
