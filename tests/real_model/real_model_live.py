"""Asking the local model for one task in one format, as the eval runner does."""

from __future__ import annotations

import asyncio
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from evals.model import Completion, Endpoint, Sampling, stream_chat  # noqa: E402
from evals.tasks import Task, user_message  # noqa: E402
from evals.through_server import instructions_from_server  # noqa: E402

# The format the local model writes best (docs/evals.md): the live tests ask for it.
BEST_FORMAT = "semantic-diff"
# Greedy decoding and a fixed seed: the same prompt gets the same answer.
SAMPLING = Sampling(temperature=0.0, seed=1234, max_tokens=800)


async def ask(endpoint: Endpoint, task: Task, format_name: str, sampling: Sampling,
              scratch: Path) -> Completion:
    """The model's streamed answer to ``task`` with ``format_name``'s instructions."""
    prompts = await instructions_from_server(scratch, [format_name],
                                             log_file=scratch / "instructions.log")
    messages = [{"role": "system", "content": prompts[format_name]},
                {"role": "user", "content": user_message(task)}]
    return await asyncio.to_thread(stream_chat, endpoint, messages, sampling)
