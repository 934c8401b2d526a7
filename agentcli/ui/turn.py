"""One prompt's run through the engine, as both interactive faces drive it.

The engine's messages are read by a pump task of their own, so ``engine.interrupt()`` always lands inside the
engine (never in the face's code), and handed to the face in batches: whatever arrived while the face was busy is
shown in one go, so a burst of stream events costs one wake-up rather than one per event.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

Message = dict[str, Any]
STOP_TIMEOUT_S = 5


class Submission:
    """The messages of one prompt, read from ``engine.submit_message`` in the background."""

    def __init__(self, engine: Any, prompt: str | list[dict[str, Any]]) -> None:
        from agentcli.ui.rewind import begin_prompt  # here, not at import: off the first frame's path

        self.engine = engine
        begin_prompt(engine, prompt)
        self._queue: asyncio.Queue[Message | BaseException | None] = asyncio.Queue()
        self.task = asyncio.create_task(self._pump(prompt))

    async def _pump(self, prompt: str | list[dict[str, Any]]) -> None:
        try:
            from agentcli.ui.mentions import with_mentions

            tool_env = getattr(getattr(self.engine, "config", None), "tool_env", None)
            if tool_env is not None:
                prompt = await with_mentions(self.engine, prompt, tool_env.project_dir)
            async for message in self.engine.submit_message(prompt):
                self._queue.put_nowait(message)
        except Exception as exc:
            self._queue.put_nowait(exc)
        finally:
            self._queue.put_nowait(None)

    async def read(
        self,
        show: Callable[[Message], None],
        on_error: Callable[[BaseException], None],
        gate: asyncio.Event | None = None,
    ) -> None:
        """Show every message until the submission ends; ``gate`` holds the showing back while it is clear."""
        while True:
            item = await self._queue.get()
            if gate is not None:
                await gate.wait()
            batch = [item]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            for entry in batch:
                if entry is None:
                    return
                if isinstance(entry, BaseException):
                    on_error(entry)
                else:
                    show(entry)

    @property
    def running(self) -> bool:
        return not self.task.done()

    async def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Interrupt the engine if the submission still runs, and wait (briefly) for it to settle."""
        if self.task.done():
            return
        self.engine.interrupt()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(self.task), timeout)

    async def settle(self, timeout: float) -> None:
        """Wait for the submission to end on its own (after an interrupt elsewhere)."""
        if not self.task.done():
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(self.task), timeout)
