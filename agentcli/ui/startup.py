"""What both interactive faces do the same way: refuse to start without credentials, feed a turn to a queue."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

Message = dict[str, Any]


def credentials_problem(demo: bool) -> str | None:
    """Why this run cannot reach a model (the same words as ``-p``), or None when it can.

    The environment is checked first so that a normal start does not import the session machinery before the
    first frame.
    """
    if demo or os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        return None
    from agentcli.bootstrap import MissingCredentials, SessionOptions, credentials_from_env

    try:
        credentials_from_env(SessionOptions(cwd=Path.cwd()))
    except MissingCredentials as exc:
        return str(exc)
    return None


async def pump_submission(engine: Any, prompt: str, queue: asyncio.Queue[Message | BaseException | None]) -> None:
    """Put every message of one submission on ``queue``, then an error if one escaped, then ``None``."""
    try:
        async for message in engine.submit_message(prompt):
            queue.put_nowait(message)
    except Exception as exc:
        queue.put_nowait(exc)
    finally:
        queue.put_nowait(None)
