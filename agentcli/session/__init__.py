"""Sessions: JSONL transcripts, resume and fork, listing.

Storage layer: nothing here prints or renders; warnings and errors go back to the face that asked. Names are
loaded on first use, so ``agentcli sessions`` does not pay for the loader's imports.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "SessionInfo": "listing",
    "latest_session": "listing",
    "list_sessions": "listing",
    "InvalidSessionId": "resume",
    "NothingToContinue": "resume",
    "OpenedSession": "resume",
    "SessionError": "resume",
    "SessionIdInUse": "resume",
    "SessionNotFound": "resume",
    "open_session": "resume",
    "TranscriptStore": "store",
    "Transcript": "load",
    "load_transcript": "load",
    "conversation_markdown": "export",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentcli.session' has no attribute {name!r}")
    return getattr(import_module(f"agentcli.session.{module}"), name)
