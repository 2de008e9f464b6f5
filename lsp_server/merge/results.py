"""What a merge answers: the file's new lines, or why the code block cannot apply."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MergeKind = Literal["whole", "snippet", "create"]
FailureKind = Literal["ambiguous", "not-found", "looks-partial", "no-grammar", "syntax-error"]


@dataclass(frozen=True)
class MergeRequest:
    """One code block to merge into one file (lines without their EOL characters)."""

    file_lines: list[str] | None  # the file's current lines; None = no file
    code_lines: list[str]  # the fence's content lines (a path-comment first line removed)
    path: str  # the target path (the language is chosen by its extension)
    info: str = ""  # the fence's language word, only breaks ties
    whitespace: bool = False  # matching "whitespace" allowed for content location
    whole_only: bool = False  # the opt-in `whole-file` format: the whole file, never merged
    at_line: int | None = None  # the `at` fix: an ambiguous unit takes the candidate here


@dataclass(frozen=True)
class Merged:
    """The merge succeeded: the file's complete new lines."""

    kind: MergeKind
    lines: list[str]
    match: str  # "exact" | "whitespace" (whole file or content) | "syntax" (by definitions)
    first_line: int  # 0-based file line of the first change


@dataclass(frozen=True)
class MergeFailure:
    """The code block cannot apply; nothing changes."""

    kind: FailureKind
    reason: str  # one sentence the user (or the model) can act on
    line: int | None  # estimated 0-based file line, when known
    candidates: tuple[int, ...] = ()  # ambiguous: the first line of each candidate place
    unplaced: tuple[str, ...] = ()  # not-found: the snippet lines that could not be placed


class MergeError(Exception):
    """Raised inside the merge to stop at the first failure; carries the answer."""

    def __init__(self, failure: MergeFailure) -> None:
        super().__init__(failure.reason)
        self.failure = failure


def fail(kind: FailureKind, reason: str, line: int | None = None, *,
         candidates: tuple[int, ...] = (), unplaced: tuple[str, ...] = ()) -> MergeError:
    """A :class:`MergeError` to raise."""
    return MergeError(MergeFailure(kind, reason, line, candidates, unplaced))
