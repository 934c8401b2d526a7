"""Open a session for a run: a new one, ``--continue``, ``--resume ID``, ``--fork-session``, ``--session-id``.

Resuming repairs the transcript by appending, never by rewriting: a line a crash cut short is ended, tool calls
that never reported back get their "interrupted" results, and a note records which lines were skipped, so the next
load is quiet and a person reading the file sees what happened.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.config.paths import sessions_dir
from agentcli.session.listing import SUFFIX, find_elsewhere, find_session, latest_session
from agentcli.session.load import REPAIR_SUBTYPE, last_boundary, load_transcript
from agentcli.session.redact import Redactor, secret_values
from agentcli.session.store import TranscriptBusy, TranscriptStore
from agentcli.session.tool_state import ToolState, rebuild_tool_state

Message = dict[str, Any]


class SessionError(Exception):
    """A session cannot be opened as asked; ``exit_code`` is what the command line should exit with."""

    exit_code = 1


class SessionNotFound(SessionError):
    def __init__(self, session_id: str, hint: str | None = None) -> None:
        message = f"No conversation found with session ID: {session_id}"
        super().__init__(f"{message}\n{hint}" if hint else message)
        self.session_id = session_id


class NothingToContinue(SessionError):
    def __init__(self) -> None:
        super().__init__("No conversation found to continue in this directory")


class SessionIdInUse(SessionError):
    def __init__(self, session_id: str) -> None:
        super().__init__(f"Session ID {session_id} is already in use")


class SessionBusy(SessionError):
    """Another agentcli process is writing this session; two writers would interleave their lines."""

    def __init__(self, session_id: str, pid: int | None) -> None:
        if pid == os.getpid():
            who = "this agentcli process already"
        else:
            who = f"another agentcli process (pid {pid})" if pid else "another agentcli process"
        super().__init__(
            f"Session {session_id} is open in {who}; two processes writing one session would mix up its "
            f"history. Close the other one, or go on in a copy: agentcli --resume {session_id} --fork-session"
        )
        self.session_id = session_id
        self.pid = pid


class ConflictingFlags(SessionError):
    exit_code = 2


class InvalidSessionId(SessionError):
    exit_code = 2

    def __init__(self, session_id: str) -> None:
        super().__init__(f"Invalid session ID {session_id!r}: it must be a UUID")


@dataclass
class OpenedSession:
    """What a run starts from: its id, the history to send, and the store that records the rest."""

    session_id: str
    store: TranscriptStore
    messages: list[Message] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    resumed_from: str | None = None
    """The session this one continues (itself, or the original of a fork); None for a new session."""
    tools: ToolState = field(default_factory=ToolState)
    """What the model had read and its todo list (:mod:`agentcli.session.tool_state`): the tools go on from it."""

    def close(self) -> None:
        self.store.close()

    def whole_history(self) -> list[Message]:
        """Everything said in the session, compactions or not (for display); ``messages`` starts at the last
        compaction's summary."""
        path = self.store.path
        try:
            if self.resumed_from is None or not path.exists() or last_boundary(path) is None:
                return self.messages
            return load_transcript(path, whole=True).messages
        except OSError:
            return self.messages


def canonical_uuid(text: str) -> str:
    """``text`` as a canonical UUID string; raises :class:`InvalidSessionId` otherwise."""
    try:
        return str(uuid.UUID(text))
    except ValueError:
        raise InvalidSessionId(text) from None


def open_session(  # noqa: C901
    cwd: Path,
    *,
    resume: str | None = None,
    continue_last: bool = False,
    fork: bool = False,
    session_id: str | None = None,
    env: Mapping[str, str] | None = None,
    redactor: Redactor | None = None,
) -> OpenedSession:
    """Resolve the flags to a session; raises :class:`SessionError` subclasses for what the user must fix.

    ``env`` is the settings' environment for tools: its secrets are kept out of the transcript like the process's.
    """
    if redactor is None:
        redactor = Redactor(secret_values({**os.environ, **(env or {})}))
    wanted = canonical_uuid(session_id) if session_id is not None else None
    if wanted is not None and (resume or continue_last) and not fork:
        raise ConflictingFlags("--session-id can be combined with --resume or --continue only with --fork-session")
    source: Path | None = None
    if resume:
        source = find_session(cwd, resume)
        if source is None:
            from agentcli.session.claude_import import foreign_transcript, import_session

            foreign = foreign_transcript(cwd, resume)
            if foreign is not None:
                return import_session(cwd, foreign, session_id=wanted, redactor=redactor)
            elsewhere = find_elsewhere(resume)
            hint = (
                f"It was started in {elsewhere.cwd}; run agentcli from there to resume it."
                if (elsewhere and elsewhere.cwd)
                else None
            )
            raise SessionNotFound(resume, hint)
    elif continue_last:
        source = latest_session(cwd)
        if source is None:
            raise NothingToContinue()

    if source is None:
        new_id = wanted or str(uuid.uuid4())
        return OpenedSession(new_id, _new_store(cwd, new_id, redactor, exists_ok=wanted is None))

    old_id = source.name.removesuffix(SUFFIX)
    store: TranscriptStore | None = None
    if not fork:  # the lock first, so no other writer adds lines between the load and this run's first one
        store = TranscriptStore(source, old_id, cwd, redactor=redactor)
        try:
            store.lock()
        except TranscriptBusy as exc:
            raise SessionBusy(old_id, exc.pid) from None
    transcript = load_transcript(source, keep_entries=fork)
    if store is None:
        new_id = wanted or str(uuid.uuid4())
        store = _new_store(cwd, new_id, redactor, exists_ok=False)
        # Repair notes name line numbers of the original file; the copy's numbers differ.
        store.copy_entries(e for e in transcript.entries or [] if e.get("subtype") != REPAIR_SUBTYPE)
        store.record({"type": "system", "subtype": "session_fork", "forkedFrom": old_id})
    else:
        new_id = old_id
        store.last_uuid = transcript.last_uuid
        if transcript.torn_tail:
            store.seal()
        if transcript.new_bad_lines:
            store.record({"type": "system", "subtype": REPAIR_SUBTYPE, "skippedLines": transcript.new_bad_lines})
    if transcript.dangling:
        results = transcript.messages[-1]["content"][-len(transcript.dangling) :]
        store.record({"type": "user", "message": {"role": "user", "content": results}, "isSynthetic": True})
    store.flush(durable=True)
    tools = rebuild_tool_state(source)
    return OpenedSession(new_id, store, transcript.messages, list(transcript.warnings), old_id, tools)


def _new_store(cwd: Path, session_id: str, redactor: Redactor | None, *, exists_ok: bool) -> TranscriptStore:
    path = sessions_dir(cwd) / f"{session_id}{SUFFIX}"
    if path.exists() and not exists_ok:
        raise SessionIdInUse(session_id)
    return TranscriptStore(path, session_id, cwd, redactor=redactor)
