"""Talking to a model: any OpenAI-compatible chat endpoint, streamed, and the local model.

:func:`stream_chat` posts ``/chat/completions`` with ``stream: true`` and reads the server-sent
events chunk by chunk (standard library only, so the runner needs nothing beyond the project's
environment). :class:`LocalModel` starts ``evals/model_service.py`` under the model runtime's
interpreter and yields its endpoint; the same :func:`stream_chat` then talks to it, so a local
run and a run against a user's server or a GPU machine take one code path.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL_DIR = Path(os.environ.get("LLM_EDITS_MODEL_DIR", ROOT / ".models"))
DEFAULT_MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
FALLBACK_MODEL_FILE = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"


@dataclass(frozen=True)
class Sampling:
    """What makes a run repeatable: greedy decoding and a fixed seed."""

    temperature: float = 0.0
    seed: int = 1234
    max_tokens: int = 1024


@dataclass
class Completion:
    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    seconds: float
    finish_reason: str | None
    chunks: int


@dataclass(frozen=True)
class Endpoint:
    url: str  # base URL ending in /v1 (or the provider's equivalent)
    model_name: str
    api_key: str | None = None


def stream_chat(endpoint: Endpoint, messages: list[dict[str, str]], sampling: Sampling,
                on_chunk: Callable[[str], None] | None = None,
                timeout: float = 900) -> Completion:
    """One streamed chat completion; ``on_chunk`` sees each piece of text as it arrives."""
    body = {
        "model": endpoint.model_name,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": sampling.temperature,
        "seed": sampling.seed,
        "max_tokens": sampling.max_tokens,
    }
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if endpoint.api_key:
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    request = urllib.request.Request(endpoint.url.rstrip("/") + "/chat/completions",
                                     data=json.dumps(body).encode(), headers=headers)
    started = time.monotonic()
    pieces: list[str] = []
    usage: dict = {}
    finish_reason = None
    with urllib.request.urlopen(request, timeout=timeout) as response:
        for event in _events(response):
            usage = event.get("usage") or usage
            for choice in event.get("choices") or []:
                text = (choice.get("delta") or {}).get("content") or ""
                if text:
                    pieces.append(text)
                    if on_chunk is not None:
                        on_chunk(text)
                finish_reason = choice.get("finish_reason") or finish_reason
    return Completion("".join(pieces), usage.get("prompt_tokens"),
                      usage.get("completion_tokens"), time.monotonic() - started,
                      finish_reason, len(pieces))


def _events(response) -> Iterator[dict]:
    """The JSON payloads of a server-sent event stream, up to ``data: [DONE]``."""
    for raw in response:
        line = raw.decode("utf-8").strip()
        if not line.startswith("data:"):
            continue
        payload = line[len("data:"):].strip()
        if payload == "[DONE]":
            return
        yield json.loads(payload)


def default_model_path() -> Path | None:
    """The weights ``scripts/setup-model`` assembles (1.5B, else the 0.5B fallback)."""
    for name in (DEFAULT_MODEL_FILE, FALLBACK_MODEL_FILE):
        if (DEFAULT_MODEL_DIR / name).is_file():
            return DEFAULT_MODEL_DIR / name
    return None


def runtime_python() -> Path:
    return Path(os.environ.get("LLM_EDITS_MODEL_RUNTIME",
                               DEFAULT_MODEL_DIR / "runtime" / "bin" / "python"))


def default_threads() -> int:
    return int(os.environ.get("LLM_EDITS_MODEL_THREADS", "1"))


@contextmanager
def local_model(model: Path, *, threads: int, seed: int, ctx: int = 16384,
                log_file: Path | None = None) -> Iterator[Endpoint]:
    """Serve ``model`` on 127.0.0.1 for the duration of the block (see model_service.py)."""
    python = runtime_python()
    if not python.exists():
        raise FileNotFoundError(f"no model runtime at {python}: run scripts/setup-model")
    log = open(log_file, "ab") if log_file else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(
        [str(python), str(Path(__file__).with_name("model_service.py")), "--model", str(model),
         "--threads", str(threads), "--seed", str(seed), "--ctx", str(ctx)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"the model service exited ({process.wait()}) before serving")
        yield Endpoint(json.loads(line)["endpoint"], model.name)
    finally:
        if process.stdin:
            process.stdin.close()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if log_file:
            log.close()
