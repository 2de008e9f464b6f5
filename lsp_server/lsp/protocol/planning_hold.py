"""A test hook: runs wait before planning until the test releases them.

Off unless the server starts with ``LLM_EDITS_TEST_HOLD_PLANNING=1`` in its environment.
Then every run, once it has taken its snapshot of the buffers and parsed the response,
notifies the client with ``llmEdits/test/planningHeld`` and waits for a
``llmEdits/test/releasePlanning`` notification. Tests act while a run is in flight (change
a buffer, kill the server) at a point they know, instead of guessing how long planning takes
on the machine at hand.
"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from collections.abc import Callable

HOLD_ENV = "LLM_EDITS_TEST_HOLD_PLANNING"
HELD = "llmEdits/test/planningHeld"
RELEASE = "llmEdits/test/releasePlanning"


class PlanningHold:
    """Holds runs, in order, until as many releases arrive."""

    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = os.environ.get(HOLD_ENV) == "1" if enabled is None else enabled
        self._held: deque[asyncio.Future[None]] = deque()
        self._early_releases = 0  # releases that came before a run was held

    async def wait(self, notify_held: Callable[[], None]) -> None:
        """Hold the calling run (tell the client with ``notify_held``) until released."""
        notify_held()
        if self._early_releases:
            self._early_releases -= 1
            return
        released = asyncio.get_running_loop().create_future()
        self._held.append(released)
        await released

    def release(self) -> None:
        """Let the longest-held run go on."""
        if self._held:
            self._held.popleft().set_result(None)
        else:
            self._early_releases += 1
