"""Planning: turn parsed blocks into per-block results and minimal per-file edits.

(Engine core in progress: signatures are final, the body is being filled in.)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .model import FileSnapshot, ParseResult, PlanResult


def plan_edits(
    parsed: ParseResult,
    read_file: Callable[[Path], FileSnapshot],
    roots: list[Path],
    *,
    matching: str = "exact",
    atomic: bool = False,
    dry_run: bool = True,
    force_at: dict[int, int] | None = None,
    only: set[int] | None = None,
) -> PlanResult:
    """Plan every block of ``parsed`` (or just ``only``) against files read via ``read_file``."""
    return PlanResult(
        shell_suggestions=list(parsed.shell_suggestions),
        warnings=list(parsed.warnings),
    )


def plan_response(
    text: str,
    read_file: Callable[[Path], FileSnapshot],
    roots: list[Path],
    *,
    formats: set[str] | None = None,
    **kw: object,
) -> PlanResult:
    """Parse ``text`` and plan its blocks (see :func:`plan_edits` for the keywords)."""
    from .parsing import parse_response

    return plan_edits(parse_response(text, formats), read_file, roots, **kw)  # type: ignore[arg-type]
