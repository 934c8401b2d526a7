"""``-p`` with a host that stops reading stdout: the output fills the pipe, yet agentcli still ends on SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys

from tests.ui.stuck_reader import LONG_ANSWER, frames_in_order, wait_until_full
from tests.waiting import DEADLINE_S, wait_until


def test_sigterm_ends_a_run_whose_reader_stopped_reading(fake_api, project, run_cli_env):
    server = fake_api({"turns": [LONG_ANSWER]})
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcli", "-p", "go", "--output-format", "stream-json", "--include-partial-messages"],
        cwd=project,
        env=run_cli_env(server),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until(lambda: server.requests, "the request")
        assert proc.stdout is not None
        wait_until_full(proc.stdout)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=DEADLINE_S) == 128 + signal.SIGTERM
        frames = frames_in_order(proc.stdout)
        assert frames[0]["type"] == "system" and frames[0]["subtype"] == "init"
        assert any(frame["type"] == "stream_event" for frame in frames)
        assert proc.stderr is not None
        err = proc.stderr.read().decode()
        assert "bytes were not delivered" in err and "Traceback" not in err
    finally:
        proc.kill()
        proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            assert pipe is not None
            pipe.close()
