"""Nesting of blocks delimited by whole-line markers (edit-v3, edit-v2, search-replace).

The marker lines come from the shared marker scan (``marker_scan``), with their 0-based line
numbers, so no Python loop ever runs over ordinary response lines. :func:`nest_frames` pairs
start markers with the rest of their block while honouring nesting. Every start marker opens
a :class:`Frame` (a format's small state machine); the innermost open frame consumes the
markers that follow until it closes itself. A frame that closes swallows every block it
contained (they were content: "nested blocks — outer block parsed, inner markers are
content"). A frame still open at the end of the response was unclosed (truncated, or its end
marker was mistyped): it is reported, and the blocks that closed inside it are promoted to
real blocks. That is the same as restarting the parse at the first start marker after the
unclosed one, so a truncated block never swallows the complete blocks after it — computed in
one pass, without re-scanning.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from typing import Protocol, TypeVar


class Frame(Protocol):
    """One block being read: a format's state machine, opened at a start marker."""

    start: int  # 0-based line of the start marker
    floor: int  # first line a path line may be taken from (just after the previous marker)
    children: list | None  # blocks that closed inside this one (None: none yet)

    def step(self, marker: str, line: int) -> bool:
        """Consume a non-start marker; return True when it closed the frame."""
        ...


F = TypeVar("F", bound=Frame)


def nest_frames(
    markers: Iterable[tuple[int, str]],
    start_markers: Container[str],
    open_frame: Callable[[int, int, str], F],
) -> list[tuple[F, bool]]:
    """Run the frames of a whole response; ``[(frame, closed)]`` in response order.

    A marker in ``start_markers`` opens a frame: ``open_frame(line, floor, marker)`` creates
    it; ``floor`` is the line after the previous marker (a path line is never looked for
    above it). Closed frames are complete (possibly malformed: the frame knows); unclosed
    ones reached the end of the response and are followed by the blocks that closed inside
    them.
    """
    out: list[tuple[F, bool]] = []
    stack: list[F] = []
    previous_marker_line = -1
    for line, marker in markers:
        if marker in start_markers:
            stack.append(open_frame(line, previous_marker_line + 1, marker))
        elif stack:
            top = stack[-1]
            if top.step(marker, line):
                stack.pop()
                if not stack:
                    out.append((top, True))
                elif stack[-1].children is None:
                    stack[-1].children = [(top, True)]
                else:
                    stack[-1].children.append((top, True))
        # A marker outside any frame (a stray end marker, a divider in prose) is text.
        previous_marker_line = line
    for frame in stack:  # bottom (outermost) first: response order
        out.append((frame, False))
        out.extend(frame.children or ())
    return out
