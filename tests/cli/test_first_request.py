"""The first request leaves before the official SDK is imported, in every face; the SDK comes in later, in the
background.

The CLI runs with a ``sitecustomize`` of the test's own on ``PYTHONPATH`` that adds an audit hook: it logs, in
order, the connection to the fake API (the first request's) and the start of ``import anthropic`` (seen by an
import finder placed first).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agentcli.testing import FakeAnthropicServer
from tests.ui.tmux import REPO, Tmux, agentcli_in_tmux
from tests.waiting import DEADLINE_S, wait_until

WATCH = """
import os
import sys

_log = os.environ.get("AGENTCLI_TEST_WATCH_LOG")
_port = int(os.environ.get("AGENTCLI_TEST_WATCH_PORT", "0"))
_seen = set()


def _note(what, line):
    if what not in _seen:
        _seen.add(what)
        with open(_log, "a", encoding="utf-8") as handle:
            handle.write(line + "\\n")


def _watch(event, args):
    if event == "socket.connect":
        address = args[1]
        if isinstance(address, tuple) and len(address) >= 2 and address[1] == _port:
            _note("connect", "connect " + ("with" if "anthropic" in sys.modules else "without") + " the SDK")


class _ImportWatch:
    \"\"\"Sees every import's search first (importlib's as well as the import statement's) and finds nothing.\"\"\"

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "anthropic":
            _note("import", "import anthropic")
        return None


if _log:
    sys.addaudithook(_watch)
    sys.meta_path.insert(0, _ImportWatch)
"""


@pytest.fixture
def watched(tmp_path: Path) -> Callable[[FakeAnthropicServer], tuple[dict[str, str], Path]]:
    """The environment that runs the CLI under the watch, and the log it writes."""
    hook_dir = tmp_path / "watch"
    hook_dir.mkdir()
    (hook_dir / "sitecustomize.py").write_text(WATCH, encoding="utf-8")
    log = tmp_path / "watch.log"

    def env_for(server: FakeAnthropicServer) -> tuple[dict[str, str], Path]:
        return {
            "PYTHONPATH": os.pathsep.join([str(hook_dir), str(REPO)]),
            "AGENTCLI_TEST_WATCH_LOG": str(log),
            "AGENTCLI_TEST_WATCH_PORT": str(server.port),
            "ANTHROPIC_BASE_URL": server.base_url,
            "ANTHROPIC_API_KEY": "test-key",
        }, log

    return env_for


def watch_log(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


ANSWER = {"turns": [{"content": [{"type": "text", "text": "the answer"}]}], "on_exhausted": "repeat_last"}


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["-p", "hi"], ""),
        (["-p", "hi", "--output-format", "stream-json", "--verbose"], ""),
        (["-p", "hi", "--output-format", "json"], ""),
        (
            ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
            json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}, "session_id": ""}) + "\n",
        ),
    ],
    ids=["text", "stream-json", "json", "stream-json-input"],
)
def test_headless_faces_send_before_the_sdk_is_imported(
    args: list[str], stdin: str, project: Path, fake_api: Callable[..., FakeAnthropicServer], watched
):
    server = fake_api(ANSWER)
    env, log = watched(server)
    proc = subprocess.run(
        [sys.executable, "-m", "agentcli", *args],
        cwd=project,
        env={**os.environ, **env},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
    )
    assert proc.returncode == 0, proc.stderr
    assert "the answer" in proc.stdout
    assert len(server.requests) == 1
    assert watch_log(log)[0] == "connect without the SDK"


def _first_request_in_terminal(tmux: Tmux, server: FakeAnthropicServer, log: Path, ready: str) -> None:
    tmux.wait_for(ready)
    tmux.type("hi")
    tmux.keys("Enter")
    tmux.wait_for("the answer")
    assert len(server.requests) == 1
    # the SDK arrives once the first response is over, in the background, while the session goes on
    lines = wait_until(lambda: (found := watch_log(log))[1:] and found, "the background import")
    assert lines[:2] == ["connect without the SDK", "import anthropic"]


@pytest.mark.parametrize(
    ("face", "ready"), [((), "Ask agentcli"), (("--plain",), "Ask agentcli…")], ids=["tui", "plain"]
)
def test_terminal_faces_send_before_the_sdk_is_imported(
    face: tuple[str, ...], ready: str, project: Path, fake_api: Callable[..., FakeAnthropicServer], watched
):
    server = fake_api(ANSWER)
    env, log = watched(server)
    with agentcli_in_tmux(project, *face, height=30, scrollback=bool(face), **env) as tmux:
        _first_request_in_terminal(tmux, server, log, ready)
