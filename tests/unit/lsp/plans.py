"""Plans, client kinds and URIs shared by the unit tests of the LSP conversions."""

from __future__ import annotations

import random
from pathlib import Path

from lsprotocol import types
from lsprotocol.converters import get_converter

from lsp_server.lsp.protocol.client_features import ClientFeatures
from lsp_server.model import BlockResult, FileEdit, ParseWarning, PlanResult, ResourceOp, TextEdit
from lsp_server.results import JsonObject

UTF8 = types.PositionEncodingKind.Utf8
UTF16 = types.PositionEncodingKind.Utf16
UTF32 = types.PositionEncodingKind.Utf32
ROOT = Path("/ws")

VSCODE = ClientFeatures(
    encoding=UTF16, document_changes=True,
    resource_operations=frozenset({"create", "rename", "delete"}), related_information=True)
NEOVIM = ClientFeatures(encoding=UTF16, resource_operations=frozenset(
    {"create", "rename", "delete"}), related_information=True)
EMACS = ClientFeatures(encoding=UTF8, document_changes=True)


def uri_for(path: Path) -> str:
    return path.as_uri()


def unstructure(obj: object) -> object:
    return get_converter().unstructure(obj)


def read_back(edit_and_warnings: tuple[JsonObject | None, list[ParseWarning]]
              ) -> tuple[types.WorkspaceEdit | None, list[ParseWarning]]:
    """What ``workspace_edit_json`` returns, its edit read back into lsprotocol's
    ``WorkspaceEdit`` (as a client's library reads it), for assertions by attribute."""
    edit, warnings = edit_and_warnings
    if edit is None:
        return None, warnings
    return get_converter().structure(edit, types.WorkspaceEdit), warnings


def emoji_plan(version: int | None) -> PlanResult:
    original = "x = '😀'; y = 1\nz = 2\n"
    new = "x = '😀'; y = 42\nz = 2\n"
    col = len("x = '😀'; y = ")
    edit = FileEdit(ROOT / "a.py", version, [TextEdit(0, col, 0, col + 1, "42")], original, new)
    block = BlockResult(0, "a.py", "edit-v3", "validated", line=0, match="exact",
                        path=ROOT / "a.py")
    return PlanResult(blocks=[block], changes=[edit])


def resource_plan() -> PlanResult:
    blocks = [
        BlockResult(0, "new.py", "hunk-patch", "validated", line=0, response_line=1,
                    path=ROOT / "new.py"),
        BlockResult(1, "old.py", "hunk-patch", "validated", line=0, response_line=5,
                    path=ROOT / "old.py"),
        BlockResult(2, "gone.py", "hunk-patch", "validated", line=0, response_line=9,
                    path=ROOT / "gone.py"),
    ]
    changes = [
        ResourceOp("create", ROOT / "new.py"),
        FileEdit(ROOT / "new.py", None, [TextEdit(0, 0, 0, 0, "hello\n")], "", "hello\n"),
        FileEdit(ROOT / "old.py", 4, [TextEdit(0, 0, 0, 1, "X")], "x\n", "X\n"),
        ResourceOp("rename", ROOT / "old.py", ROOT / "moved.py"),
        ResourceOp("delete", ROOT / "gone.py"),
    ]
    return PlanResult(blocks=blocks, changes=changes)


def failed_plan() -> PlanResult:
    return PlanResult(
        blocks=[
            BlockResult(0, "a.py", "edit-v3", "failed", reason="No match found", line=1,
                        response_line=3, path=ROOT / "a.py", hint="Did you mean line 2?",
                        fixes={"closest_line": 1}),
            BlockResult(1, "b.py", "search-replace", "validated", line=0, match="whitespace",
                        response_line=10, path=ROOT / "b.py"),
            BlockResult(2, "../x.py", "edit-v3", "failed", reason="outside the workspace",
                        response_line=20, path=None),
        ],
        warnings=[ParseWarning(30, "unclosed edit-v3 block")],
    )


def file_texts(path: Path) -> str | None:
    return {ROOT / "a.py": "one\nsay('😀')\n", ROOT / "b.py": "b = 1\n"}.get(path)


def texts_with_every_kind_of_line() -> list[str]:
    rng = random.Random(5)
    pieces = ["a", "bc", " ", "é", "😀", "\t", "\x0c", "\u2028", "\n", "\r\n", "\r"]
    texts = ["", "\n", "\r", "\r\n", "x", "x\n", "\n\r", "a\r\r\nb"]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 30)))
              for _ in range(300)]
    return texts
