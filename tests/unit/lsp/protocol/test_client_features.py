"""What the server may send each kind of client, read from real captured capabilities."""

from __future__ import annotations

import pytest_lsp

from lsp_server.lsp.protocol.client_features import client_features

from ..plans import (
    UTF8,
    UTF16,
)


def test_client_features_from_captured_capabilities() -> None:
    neovim = client_features(pytest_lsp.client_capabilities("neovim@v0.7.0"), UTF16)
    assert not neovim.document_changes and neovim.related_information
    assert neovim.resource_operations == {"create", "rename", "delete"}
    code = client_features(pytest_lsp.client_capabilities("visual-studio-code@v1.65.2"),
                                UTF16)
    assert code.document_changes and code.work_done_progress and code.apply_edit
    assert code.code_lens_refresh and not neovim.code_lens_refresh  # response documents' lenses
    emacs = client_features(pytest_lsp.client_capabilities("emacs@v29.1"), UTF8)
    assert emacs.document_changes and not emacs.resource_operations
    assert not emacs.related_information and emacs.encoding == UTF8
