"""Tracebacks of unexpected errors go to a private log file, never onto the user's screen."""

from __future__ import annotations

import os
import time
import traceback
from pathlib import Path

from agentcli.config.paths import data_dir
from agentcli.session.redact import redact_text


def record_exception(exc: BaseException, session_id: str) -> Path | None:
    """Append ``exc``'s traceback to ``<data>/debug/<session_id>.log`` (0600); the path, or None if unwritable."""
    try:
        folder = data_dir() / "debug"
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = folder / f"{session_id}.log"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} unexpected error\n")
            handle.write(redact_text("".join(traceback.format_exception(exc))))
        return path
    except OSError:
        return None
