"""One writer per session: a lock on the transcript, released when its process ends (even by SIGKILL); a second
process resuming the session is told so clearly, and the interactive faces offer to fork it instead."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from agentcli.config.paths import sessions_dir
from agentcli.session.store import TranscriptBusy, TranscriptStore
from tests.session.conftest import text_turn
from tests.waiting import DEADLINE_S, wait_until


def test_a_second_store_cannot_lock_a_locked_transcript(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    first = TranscriptStore(path, "s", tmp_path)
    first.record({"type": "user", "message": {"role": "user", "content": "hi"}})  # creating the file locks it
    second = TranscriptStore(path, "s", tmp_path)
    with pytest.raises(TranscriptBusy) as caught:
        second.lock()
    assert caught.value.pid == os.getpid()
    first.close()
    second.lock()
    second.close()


def test_a_second_process_is_refused_until_the_first_ends_even_by_sigkill(
    fake_api, run_cli, run_cli_env, project: Path
):
    session_id = str(uuid.uuid4())
    slow = fake_api({"turns": [{"content": [{"type": "text", "text": "late"}], "first_byte_delay_ms": 3_600_000}]})
    first = subprocess.Popen(
        [sys.executable, "-m", "agentcli", "-p", "--session-id", session_id, "first"],
        cwd=project,
        env=run_cli_env(slow),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(lambda: slow.requests, "the first run's request")
        path = sessions_dir(project) / f"{session_id}.jsonl"
        before = path.read_bytes()
        server = fake_api({"turns": [text_turn("forked answer"), text_turn("resumed answer")]})
        second = run_cli("-p", "--resume", session_id, "second", server=server)
        assert second.returncode == 1
        assert second.stderr.strip() == (
            f"Session {session_id} is open in another agentcli process (pid {first.pid}); two processes writing one "
            f"session would mix up its history. Close the other one, or go on in a copy: agentcli --resume "
            f"{session_id} --fork-session"
        )
        assert path.read_bytes() == before and not server.requests
        fork = run_cli("-p", "--resume", session_id, "--fork-session", "branch", server=server)
        assert fork.returncode == 0, fork.stderr
        assert fork.stdout == "forked answer\n"
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=DEADLINE_S)
        resumed = run_cli("-p", "--resume", session_id, "third", server=server)
        assert resumed.returncode == 0, resumed.stderr
        assert resumed.stdout == "resumed answer\n"
    finally:
        if first.poll() is None:
            first.kill()
            first.wait(timeout=DEADLINE_S)
