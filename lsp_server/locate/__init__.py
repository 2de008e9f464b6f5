"""Locate policies: where each format's blocks sit in a file's current lines.

Every policy has one signature, :data:`LocatePolicy`: ``(block, matcher, options) ->
Placement``, raising :class:`BlockFailure` when the block cannot apply. Each format's
registry entry names its policy; the planner calls it and applies the placement. The
tolerance levels themselves live in ``matching``; failures are explained by ``diagnosis``.
"""

from .apply_patch import locate_apply_patch
from .code_block import locate_code_block
from .common import BlockFailure, Item, LocateOptions, LocatePolicy, Placement, Replacement
from .hunk_patch import locate_hunk_patch
from .line_blocks import locate_line_block, locate_semantic_block
from .str_replace import locate_str_replace
from .unified_diff import locate_unified_diff
from .whole_file import locate_whole_file

__all__ = [
    "BlockFailure",
    "Item",
    "LocateOptions",
    "LocatePolicy",
    "Placement",
    "Replacement",
    "locate_apply_patch",
    "locate_code_block",
    "locate_hunk_patch",
    "locate_line_block",
    "locate_semantic_block",
    "locate_str_replace",
    "locate_unified_diff",
    "locate_whole_file",
]
