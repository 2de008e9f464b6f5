"""A first judgement of whose fault a failure is, and what counts as compliance.

Per failed block (status ``failed``), from the block's own text (``llmEdits.parse``) and the
files as they were before the response:

- ``tolerance would have matched``: every line the block must match (anchor + old + trailing,
  or each hunk's context and removed lines) occurs, consecutively and in one place only, in
  the file once each line is compared without leading/trailing whitespace, with runs of spaces
  collapsed and Unicode punctuation (curly quotes, dashes, non-breaking spaces) read as ASCII.
  The tool rejected a block a tolerant matcher would have placed: read by hand; this is the
  case a safe engine tolerance could fix. ``tolerance ignoring blank lines would have
  matched``: the same once blank lines are left out on both sides (models often write one
  blank line where the file has two).
- ``path differs``: the block's file does not exist but exactly one file of the workspace has
  its name (the model shortened or invented a directory).
- ``ambiguous``: the server found the block's lines at several places (the model gave too
  little context to tell them apart).
- ``old text not in file``: neither. The model wrote lines the file does not have (new text
  where the old belongs, retyped or invented lines): the model's fault.
- for any other failure (a create over an existing file, a refused path, ...) the reason.

Per parse warning: ``about a parsed block`` when it speaks of a block that was read (such as
"changes nothing"); else ``reads as a block`` when the text it points at contains a start
marker of the asked format (text that looks like a block was not read as one; read by hand);
else ``prose``.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

# A marker that starts a block of each format, as a model writes it at a line's start.
START_MARKERS: dict[str, re.Pattern[str]] = {
    "edit-v3": re.compile(r"^\s*«««\s*EDIT", re.M),
    "edit-v2": re.compile(r"^\s*«««\s*EDIT", re.M),
    "search-replace": re.compile(r"^\s*<{5,9}\s*SEARCH", re.M),
    "hunk-patch": re.compile(r"^\s*edit\s*\{", re.M),
    "semantic-diff": re.compile(r"^\s*#+\s*File\s+`", re.M),
    "apply-patch": re.compile(r"^\s*\*\*\*\s*(Begin Patch|Update File|Add File)", re.M),
    "unified-diff": re.compile(r"^\s*(---\s+\S|\+\+\+\s+\S|@@\s*-\d)", re.M),
    # whole-file: a fence opening right under a path-like line
    "whole-file": re.compile(r"^[^\s`]+\.[A-Za-z0-9]+\s*\n\s*(`{3,}|~{3,})", re.M),
    # code-block: any fence (one naming no file is what a warning about it points at)
    "code-block": re.compile(r"^ {0,3}(`{3,}|~{3,})", re.M),
}

_ASCII = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u00a0": " ", "\u2007": " ", "\u202f": " ", "\u2026": "...",
})


def loose(line: str) -> str:
    """A line compared leniently: ASCII punctuation, outer whitespace gone, runs collapsed."""
    line = unicodedata.normalize("NFKC", line).translate(_ASCII)
    return " ".join(line.split())


def _loose_lines(text: str) -> list[str]:
    return [loose(line) for line in text.replace("\r\n", "\n").split("\n")]


def _places(needle: list[str], haystack: list[str]) -> int:
    """How many places the (non-empty) line sequence ``needle`` occurs at in ``haystack``."""
    width = len(needle)
    return sum(1 for start in range(len(haystack) - width + 1)
               if haystack[start:start + width] == needle)


def _matched_texts(block: dict[str, Any]) -> list[str]:
    """What the block must find in its file: one text per hunk, or anchor+old+trailing."""
    if block.get("hunks"):
        return [hunk.get("old") or "" for hunk in block["hunks"]]
    return [(block.get("anchor") or "") + (block.get("old") or "") + (block.get("trailing") or "")]


def _tolerant_match(block: dict[str, Any], file_text: str, *, blank_lines: bool) -> bool:
    """Whether every text the block must match occurs in exactly one place, leniently."""
    haystack = [line for line in _loose_lines(file_text) if blank_lines or line]
    for text in _matched_texts(block):
        needle = [line for line in _loose_lines(text.rstrip("\n")) if blank_lines or line]
        while needle and not needle[-1]:
            needle.pop()
        while needle and not needle[0]:
            needle.pop(0)
        if not needle or _places(needle, haystack) != 1:
            return False
    return True


def judge_failed_block(parsed_block: dict[str, Any] | None, reason: str | None,
                       files: dict[str, str]) -> str:
    """The judgement of one failed block (see the module docstring)."""
    if parsed_block is None:
        return f"not judged ({reason})"
    path = parsed_block.get("file") or ""
    text = files.get(path)
    if text is None:
        name = path.rsplit("/", 1)[-1]
        same_name = [rel for rel in files if rel.rsplit("/", 1)[-1] == name]
        if parsed_block.get("op") in ("update", "delete") and len(same_name) == 1:
            return f"path differs (wrote {path}, the file is {same_name[0]})"
        return f"other: {reason}"
    if parsed_block.get("op") not in ("update", "append", None) and not parsed_block.get("hunks"):
        return f"other: {reason}"
    if (reason or "").startswith("Edit location is ambiguous"):
        return "ambiguous"  # its lines are in the file, at several places: too little context
    if _tolerant_match(parsed_block, text, blank_lines=True):
        return "tolerance would have matched"
    if _tolerant_match(parsed_block, text, blank_lines=False):
        return "tolerance ignoring blank lines would have matched"
    return "old text not in file"


def judge_warning(warning: dict[str, Any], response: str, format_name: str) -> str:
    """``reads as a block`` when the warned-about text holds a start marker of the format."""
    if re.match(r"block \d+\b", warning.get("message") or ""):
        return "about a parsed block"
    lines = response.splitlines()
    start = int(warning.get("responseLine") or 0)
    window = "\n".join(lines[max(0, start - 1):start + 3])
    marker = START_MARKERS.get(format_name)
    if marker is None:
        return "not judged (no start marker known for this format)"
    return "reads as a block" if marker.search(window) else "prose"


# Block statuses that mean "matched": applied, or validated when it changed nothing (then the
# server sends no edit), or already-applied (its new text was already there).
OK_STATUSES = frozenset({"applied", "validated", "already-applied"})


def applied_all(blocks: list[dict[str, Any]]) -> bool:
    """Apply success: at least one block, and every block matched."""
    return bool(blocks) and all(block.get("status") in OK_STATUSES for block in blocks)


def compliant(blocks: list[dict[str, Any]], format_name: str) -> bool:
    """The response holds at least one block in the asked format that parses."""
    return any(block.get("format") == format_name for block in blocks)
