"""``/rewind`` for every face: go back to before an earlier prompt — the conversation, the files, or both.

The files come back from the session's checkpoints (taken before each Edit and Write). The conversation goes back
by continuing in a new session whose transcript is this one's up to the chosen prompt (the original stays
resumable, as Claude Code keeps it), with the checkpoints of the prompts before it.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentcli.session.checkpoints import Checkpoint, CheckpointStore, checkpoint_dir

What = Literal["both", "conversation", "files"]
WHAT_CHOICES: dict[What, str] = {
    "both": "Restore the conversation and the files",
    "conversation": "Restore the conversation only",
    "files": "Restore the files only",
}
PROMPT_LABEL_CHARS = 70


@dataclass
class RewindOutcome:
    restored: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    session_id: str | None = None
    """The session to continue in when the conversation went back (the face switches to it)."""
    prompt: str = ""
    """The chosen prompt, to put back into the input for editing."""

    def summary(self) -> str:
        parts = []
        if self.session_id is not None:
            parts.append("The conversation is back to before that prompt")
        if self.restored:
            parts.append(f"restored {len(self.restored)} file{'s' if len(self.restored) != 1 else ''}")
        if self.problems:
            parts.append("not everything could be restored (see why below)")
        text = "; ".join(parts) or "Nothing to restore"
        return text[0].upper() + text[1:] + "."


def attach_checkpoints(engine: Any, cwd: Path) -> CheckpointStore:
    """Give the session a checkpoint store and have Edit/Write fill it."""
    store = CheckpointStore(checkpoint_dir(cwd, engine.session_id))
    engine.config.extensions["checkpoints"] = store
    engine.config.tool_env.before_write = store.keep
    return store


def checkpoints_of(engine: Any) -> CheckpointStore | None:
    extensions = getattr(getattr(engine, "config", None), "extensions", None)
    store = extensions.get("checkpoints") if isinstance(extensions, dict) else None
    return store if isinstance(store, CheckpointStore) else None


def begin_prompt(engine: Any, prompt: str | list[dict[str, Any]], message_id: str | None = None) -> None:
    """A prompt is about to be sent: later file changes belong to it, and the conversation can go back to here."""
    store = checkpoints_of(engine)
    if store is None:
        return
    text = (
        prompt
        if isinstance(prompt, str)
        else " ".join(b.get("text", "") for b in prompt if isinstance(b, dict) and b.get("type") == "text")
    )
    recorder = getattr(engine.config, "recorder", None)
    store.begin(text, getattr(recorder, "last_uuid", None), message_id, save=False)
    # Written beside the request, not before it: a disk sync would delay the prompt.
    asyncio.get_running_loop().run_in_executor(None, store.save)


def prompt_label(checkpoint: Checkpoint) -> str:
    text = " ".join(checkpoint.prompt.split())
    if len(text) > PROMPT_LABEL_CHARS:
        text = text[: PROMPT_LABEL_CHARS - 1] + "…"
    changed = f"  ({len(checkpoint.files)} file{'s' if len(checkpoint.files) != 1 else ''} changed)"
    return f"{checkpoint.number}. {text}" + (changed if checkpoint.files else "")


def rewind(engine: Any, cwd: Path, number: int, what: What) -> RewindOutcome:
    """Restore what ``what`` names to before prompt ``number`` (blocking: file and transcript work)."""
    store = checkpoints_of(engine)
    if store is None:
        return RewindOutcome(problems=["This session keeps no checkpoints."])
    chosen = next((c for c in store.checkpoints() if c.number == number), None)
    if chosen is None:
        return RewindOutcome(problems=[f"There is no prompt {number} to go back to."])
    outcome = RewindOutcome(prompt=chosen.prompt)
    if what in ("both", "files"):
        outcome.restored, outcome.problems = store.restore_files(number)
    if what in ("both", "conversation"):
        outcome.session_id = _fork_before(engine, cwd, store, chosen)
    return outcome


def _fork_before(engine: Any, cwd: Path, store: CheckpointStore, chosen: Checkpoint) -> str:
    """A new session holding this one's transcript up to the entry before ``chosen`` and its earlier checkpoints."""
    from agentcli.config.paths import sessions_dir
    from agentcli.session.load import load_transcript
    from agentcli.session.store import TranscriptStore

    recorder = engine.config.recorder
    entries: list[dict[str, Any]] = []
    if chosen.before_uuid is not None:
        recorder.flush()
        for entry in load_transcript(recorder.path, keep_entries=True).entries or []:
            entries.append(entry)
            if entry.get("uuid") == chosen.before_uuid:
                break
    new_id = str(uuid.uuid4())
    copy = TranscriptStore(sessions_dir(cwd) / f"{new_id}.jsonl", new_id, cwd)
    copy.copy_entries(entries)
    copy.record({"type": "system", "subtype": "session_fork", "forkedFrom": engine.session_id})
    copy.flush(durable=True)
    copy.close()
    store.copy_to(checkpoint_dir(cwd, new_id))
    CheckpointStore(checkpoint_dir(cwd, new_id)).forget_from(chosen.number)
    return new_id


def rewind_files_request(engine: Any, message_id: Any, dry_run: bool = False) -> dict[str, Any]:
    """The SDK's ``rewind_files`` control request: the files back to before the user message ``message_id``."""
    store = checkpoints_of(engine)
    if store is None:
        return {"canRewind": False, "error": "this session keeps no file checkpoints"}
    chosen = next((c for c in store.checkpoints() if c.message_id is not None and c.message_id == message_id), None)
    if chosen is None:
        return {"canRewind": False, "error": f"no checkpoint for the user message {message_id!r}"}
    if dry_run:
        return {"canRewind": True, "filesChanged": store.changed_since(chosen.number)}
    restored, problems = store.restore_files(chosen.number)
    answer: dict[str, Any] = {"canRewind": not problems, "filesChanged": restored}
    if problems:
        answer["error"] = "; ".join(problems)
    return answer
