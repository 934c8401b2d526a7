"""Checkpoints: what each file looked like before a prompt's edits, so ``/rewind`` can put it back.

Before Edit or Write changes a file, its current content (or the fact that it did not exist) is copied into the
session's folder, once per file and prompt. Rewinding to before prompt *n* restores, for every file the agent
changed from prompt *n* on, the copy taken at the first change. Copies are private (0600) and written atomically;
a file is copied from, and restored to, exactly the path the permission check judged, never through a symlink;
the store keeps the last ``MAX_PROMPTS`` prompts and skips files over ``MAX_FILE_BYTES`` (said so in the index).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.config.paths import sessions_dir
from agentcli.files.anchored import AnchoredFile
from agentcli.files.atomic import atomic_write, atomic_write_text
from agentcli.files.nofollow import Redirected
from agentcli.session.redact import redact_text

MAX_FILE_BYTES = 5_000_000
MAX_PROMPTS = 100
INDEX = "index.json"


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """One prompt the user sent, as a rewind menu lists it."""

    number: int
    prompt: str
    before_uuid: str | None
    """The last transcript entry before the prompt: rewinding the conversation keeps everything up to it."""
    files: tuple[str, ...]
    """The files the agent changed while answering this prompt."""
    message_id: str | None = None
    """The id the driving program gave the prompt's user message (the SDK's ``rewind_files`` names it)."""


def checkpoint_dir(cwd: Path, session_id: str) -> Path:
    return sessions_dir(cwd) / session_id / "checkpoints"


class CheckpointStore:
    """One session's checkpoints; ``begin`` at each prompt, ``keep`` before each file change (tools call it from
    worker threads, hence the lock)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        self._prompts: list[dict[str, Any]] = self._load()

    def _load(self) -> list[dict[str, Any]]:
        try:
            data = json.loads((self.folder / INDEX).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return [p for p in data if isinstance(p, dict)] if isinstance(data, list) else []

    def _save(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        text = redact_text(json.dumps(self._prompts, ensure_ascii=False))  # prompts, like the transcript
        atomic_write_text(self.folder / INDEX, text, private=True)

    def save(self) -> None:
        """Write the index (``begin`` leaves that to the caller: the prompt's request should not wait for a disk
        sync); a failure only costs the list of prompts without file changes after a restart."""
        with self._lock, contextlib.suppress(OSError):
            self._save()

    def begin(self, prompt: str, before_uuid: str | None, message_id: str | None = None, *, save: bool = True) -> int:
        """A new prompt starts; file changes from now on belong to it. Returns its number."""
        with self._lock:
            number = (self._prompts[-1]["number"] + 1) if self._prompts else 1
            entry: dict[str, Any] = {"number": number, "prompt": prompt, "before": before_uuid, "files": []}
            entry["message"] = message_id
            self._prompts.append(entry)
            for old in self._prompts[:-MAX_PROMPTS]:
                shutil.rmtree(self.folder / str(old["number"]), ignore_errors=True)
            self._prompts = self._prompts[-MAX_PROMPTS:]
            if save:
                self._save()
            return number

    def keep(self, path: Path, real: Path | None = None) -> None:
        """Copy the file as it is now, the first time the current prompt is about to change it: ``path`` as the
        tool was given it, ``real`` the file itself (what the permission check judged; by default where ``path``
        leads now). The copy is read without following a symlink, and a restore writes it back to ``real``."""
        with self._lock:
            if not self._prompts:
                return
            current = self._prompts[-1]
            shown = str(path)
            if any(entry["path"] == shown for entry in current["files"]):
                return
            where = Path(os.path.realpath(path)) if real is None else real
            entry: dict[str, Any] = {"path": shown, "real": str(where), "copy": None, "existed": True}
            try:
                self._copy(where, entry, self.folder / str(current["number"]) / f"{len(current['files'])}.bak")
            except OSError as exc:
                entry["skipped"] = str(exc) if isinstance(exc, Redirected) else exc.strerror or str(exc)
            current["files"].append(entry)
            self._save()

    @staticmethod
    def _copy(real: Path, entry: dict[str, Any], copy: Path) -> None:
        with AnchoredFile(real) as file:
            info = file.lstat()
            if info is None:
                entry["existed"] = False
            elif stat.S_ISLNK(info.st_mode):
                raise Redirected(real, file.points_to())
            elif info.st_size > MAX_FILE_BYTES:
                entry["skipped"] = f"larger than {MAX_FILE_BYTES} bytes"
            else:
                data = file.read_bytes()
                copy.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                atomic_write(copy, data, private=True)
                entry["copy"] = copy.name

    def checkpoints(self) -> list[Checkpoint]:
        with self._lock:
            return [
                Checkpoint(
                    p["number"], p["prompt"], p.get("before"), tuple(f["path"] for f in p["files"]), p.get("message")
                )
                for p in self._prompts
            ]

    def changed_since(self, number: int) -> list[str]:
        """The files changed from prompt ``number`` on (what restoring would touch)."""
        with self._lock:
            paths = [e["path"] for p in self._prompts if p["number"] >= number for e in p["files"]]
        return list(dict.fromkeys(paths))

    def restore_files(self, number: int) -> tuple[list[str], list[str]]:
        """Put every file changed from prompt ``number`` on back as it was before that prompt; returns the files
        restored and the ones that could not be (with why)."""
        with self._lock:
            first: dict[str, tuple[int, dict[str, Any]]] = {}
            for prompt in self._prompts:
                if prompt["number"] < number:
                    continue
                for entry in prompt["files"]:
                    first.setdefault(entry["path"], (prompt["number"], entry))
            restored: list[str] = []
            problems: list[str] = []
            for shown, (owner, entry) in first.items():
                if entry.get("skipped"):
                    problems.append(f"{shown}: not kept ({entry['skipped']})")
                    continue
                try:
                    self._put_back(Path(entry.get("real") or shown), owner, entry)
                    restored.append(shown)
                except Redirected as exc:
                    problems.append(
                        f"{shown}: not restored, {exc}; a restore never follows a symlink (remove the link, then "
                        "rewind again)"
                    )
                except OSError as exc:
                    problems.append(f"{shown}: {exc.strerror or exc}")
            return restored, problems

    def _put_back(self, real: Path, owner: int, entry: dict[str, Any]) -> None:
        """Write the kept copy to exactly ``real`` (or remove the file the prompt created), reaching it without
        following a symlink: one planted meanwhile makes this fail rather than write where it points."""
        with AnchoredFile(real) as file:
            if not entry["existed"]:
                file.unlink()
                return
            file.replace((self.folder / str(owner) / entry["copy"]).read_bytes(), create_folders=True)

    def copy_to(self, folder: Path) -> None:
        """Copy the checkpoints for another session (a rewound conversation), while no write is under way."""
        with self._lock:
            if self.folder.exists():
                shutil.copytree(self.folder, folder, dirs_exist_ok=True)

    def forget_from(self, number: int) -> None:
        """Drop prompt ``number`` and later ones (the conversation went back to before them)."""
        with self._lock:
            for prompt in self._prompts:
                if prompt["number"] >= number:
                    shutil.rmtree(self.folder / str(prompt["number"]), ignore_errors=True)
            self._prompts = [p for p in self._prompts if p["number"] < number]
            self._save()
