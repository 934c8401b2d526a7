"""The crash script's small version: ~20 SIGKILLs at random moments of a tool session, each resumed and checked."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT


@pytest.mark.slow
@pytest.mark.timeout(1200)  # forty agentcli processes: minutes on a busy two-core machine
def test_twenty_kill_points_all_resume(tmp_path):
    env = dict(os.environ)
    env["TMPDIR"] = str(tmp_path)
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "crash_resume.py"),
            "--runs",
            "20",
            "--jobs",
            "2",
            "--cli-every",
            "4",
        ],
        capture_output=True,
        text=True,
        timeout=1100,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "20/20 ok" in proc.stdout
