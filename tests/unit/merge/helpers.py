"""Shared helpers of the merge tests: code written as indented text, merged."""

from __future__ import annotations

import textwrap

from lsp_server.merge import Merged, MergeFailure, MergeRequest, merge_code_block


def lines(text: str) -> list[str]:
    """``text`` dedented, without its first newline, as lines."""
    return textwrap.dedent(text).removeprefix("\n").splitlines()


def merge(file_text: str | None, code_text: str, path: str = "a.txt", **options: object
          ) -> Merged | MergeFailure:
    file_lines = None if file_text is None else lines(file_text)
    return merge_code_block(MergeRequest(file_lines, lines(code_text), path, **options))


def merged_text(file_text: str | None, code_text: str, path: str = "a.txt",
                **options: object) -> str:
    """The merged file as text (asserting the merge succeeded)."""
    result = merge(file_text, code_text, path, **options)
    assert isinstance(result, Merged), result
    return "\n".join(result.lines) + "\n"


def failure(file_text: str | None, code_text: str, path: str = "a.txt",
            **options: object) -> MergeFailure:
    result = merge(file_text, code_text, path, **options)
    assert isinstance(result, MergeFailure), "\n".join(result.lines)
    return result
