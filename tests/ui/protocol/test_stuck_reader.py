"""stream-json with a host that stops reading stdout: the turn's output fills the pipe, yet agentcli still ends on
SIGTERM, and what reached the pipe is whole lines in order."""

from __future__ import annotations

import json
import signal
import subprocess

from tests.ui.protocol.conftest import AGENTCLI
from tests.ui.stuck_reader import LONG_ANSWER, frames_in_order, wait_until_full
from tests.waiting import DEADLINE_S, wait_until

STREAM = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]


def test_sigterm_ends_a_session_whose_host_stopped_reading(project, fake_api, run_cli_env):
    server = fake_api({"turns": [LONG_ANSWER]})
    proc = subprocess.Popen(
        [AGENTCLI, *STREAM, "--include-partial-messages"],
        cwd=project,
        env=run_cli_env(server),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        message = {"type": "user", "message": {"role": "user", "content": "tell me everything"}, "session_id": ""}
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()  # stdin stays open: the host is still there, it just reads nothing
        wait_until(lambda: server.requests, "the request")
        wait_until_full(proc.stdout)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=DEADLINE_S) == 128 + signal.SIGTERM
        frames = frames_in_order(proc.stdout)
        assert frames[0]["type"] == "system" and frames[0]["subtype"] == "init"
        assert any(frame["type"] == "stream_event" for frame in frames)
        err = proc.stderr.read().decode()
        assert "bytes were not delivered" in err and "Traceback" not in err
    finally:
        proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            assert pipe is not None
            pipe.close()
