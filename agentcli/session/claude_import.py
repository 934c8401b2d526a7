"""``--resume`` with a transcript path or a Claude Code session id: the conversation continues in a new agentcli
session, like a fork, and the original file is never written to.

Claude Code keeps its sessions in ``~/.claude/projects/<slug>/<id>.jsonl`` (``CLAUDE_CONFIG_DIR`` moves it) in
nearly the format agentcli writes; :mod:`agentcli.session.load` reads both (one line per content block merged back
into one message, sidechains skipped).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.config.paths import claude_dir, project_slug, sessions_dir
from agentcli.session.listing import SUFFIX, is_valid_session_id
from agentcli.session.load import REPAIR_SUBTYPE, load_transcript
from agentcli.session.redact import Redactor
from agentcli.session.store import TranscriptStore

if TYPE_CHECKING:
    from agentcli.session.resume import OpenedSession

IMPORT_SUBTYPE = "session_fork"


def foreign_transcript(cwd: Path, value: str) -> Path | None:
    """The file ``--resume value`` means when it is not one of this directory's agentcli sessions: a path to a
    ``.jsonl`` transcript, or a Claude Code session id (this directory's Claude Code sessions first, then any)."""
    looks_like_path = "/" in value or value.endswith(SUFFIX) or value.startswith("~")
    if looks_like_path:
        path = Path(value).expanduser()
        path = path if path.is_absolute() else cwd / path
        return path if path.is_file() else None
    if not is_valid_session_id(value):
        return None
    projects = claude_dir() / "projects"
    here = projects / project_slug(cwd) / f"{value}{SUFFIX}"
    if here.is_file():
        return here
    try:
        folders = sorted(projects.iterdir())
    except OSError:
        return None
    return next((f / f"{value}{SUFFIX}" for f in folders if (f / f"{value}{SUFFIX}").is_file()), None)


def import_session(cwd: Path, source: Path, *, session_id: str | None, redactor: Redactor) -> OpenedSession:
    """A new agentcli session holding ``source``'s lines (re-stamped with the new id), then a note of where they
    came from; the history is rebuilt from them as for any resume."""
    from agentcli.session.resume import OpenedSession, SessionIdInUse

    transcript = load_transcript(source, keep_entries=True)
    new_id = session_id or str(uuid.uuid4())
    path = sessions_dir(cwd) / f"{new_id}{SUFFIX}"
    if path.exists():
        raise SessionIdInUse(new_id)
    store = TranscriptStore(path, new_id, cwd, redactor=redactor)
    store.copy_entries(e for e in transcript.entries or [] if e.get("subtype") != REPAIR_SUBTYPE)
    store.record(
        {
            "type": "system",
            "subtype": IMPORT_SUBTYPE,
            "forkedFrom": source.name.removesuffix(SUFFIX),
            "importedFrom": str(source),
        }
    )
    if transcript.dangling:
        results = transcript.messages[-1]["content"][-len(transcript.dangling) :]
        store.record({"type": "user", "message": {"role": "user", "content": results}, "isSynthetic": True})
    store.flush(durable=True)
    warnings = [f"Resumed {source} as a new session ({new_id}); the original file is left as it was."]
    return OpenedSession(new_id, store, transcript.messages, warnings + transcript.warnings, source.stem)
