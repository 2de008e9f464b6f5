"""Fixtures of the end-to-end tests: the server over stdio (pytest-lsp) and a test editor on it."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_server.testing import SERVER_COMMAND
from lsp_server.testing.editor import Editor


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient):
    yield
    if lsp_client.capabilities is None and lsp_client._server is not None:
        # Never initialized (setup failed): pytest-lsp would wait forever for it to exit.
        lsp_client._server.terminate()
        return
    await lsp_client.shutdown_session()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws.resolve()


@pytest.fixture
def editor(client: LanguageClient, root: Path) -> Editor:
    return Editor(client, root)
