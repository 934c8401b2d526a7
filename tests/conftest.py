"""Shared fixtures: a hermetic home, a temp project, the fake Messages API, and an engine wired to it.

Every test runs with XDG_CONFIG_HOME, XDG_DATA_HOME and HOME pointing into its own temp dir and no Anthropic
variables set, so nothing leaks between tests or from the developer's machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from agentcli.testing import FakeAnthropicServer
from tests.waiting import DEADLINE_S

REPO_ROOT = Path(__file__).resolve().parent.parent

# The suite starts a few hundred Python processes (agentcli runs, fake servers, workers): let them reuse compiled
# bytecode (git-ignored __pycache__) instead of compiling agentcli and the tests from source each time, even where
# PYTHONDONTWRITEBYTECODE is set. Subprocesses get the same through hermetic_home's environment.
sys.dont_write_bytecode = False

# Property tests judge results, never speed: no per-example deadline and no "too slow" verdict on a busy machine.
settings.register_profile("busy-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("busy-machine")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` start first: with workers (``-n``), a long test begun last would keep the run waiting
    after every other test is done. The order is otherwise unchanged, and the same in every worker."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def hermetic_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    for sub in ("config", "data"):
        (home / sub).mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    for name in list(os.environ):
        if name.startswith(("ANTHROPIC_", "AGENTCLI_", "CLAUDE_")):
            monkeypatch.delenv(name)
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    # Backoff starts at 10 ms instead of 500 ms (the same knob users have); tests of real delays override it.
    monkeypatch.setenv("AGENTCLI_RETRY_BASE_DELAY_MS", "10")
    # An MCP server may take longer than the default 30 s to start on a busy machine (the same knob users have).
    monkeypatch.setenv("MCP_TIMEOUT", str(int(DEADLINE_S * 1000)))
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# Demo project\n\nHello from the demo.\n", encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    return root


@pytest.fixture
def fake_api() -> Iterator[Callable[..., FakeAnthropicServer]]:
    """Start a fake Messages API with a scenario; at teardown every request it saw must have been valid."""
    servers: list[FakeAnthropicServer] = []

    def start(scenario: dict[str, Any] | str, **kwargs: Any) -> FakeAnthropicServer:
        server = FakeAnthropicServer(scenario, **kwargs).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
    for server in servers:
        server.assert_all_valid()


@pytest.fixture
async def make_engine(project: Path) -> AsyncIterator[Callable[..., Any]]:
    """Build a QueryEngine the way the CLI does, pointed at ``server``; closed when the test ends."""
    from agentcli.api.client import Credentials
    from agentcli.bootstrap import SessionOptions, build_engine

    engines: list[Any] = []

    def make(server: FakeAnthropicServer, **options: Any) -> Any:
        opts = SessionOptions(cwd=project, **options)
        engine = build_engine(opts, Credentials(api_key="test-key", base_url=server.base_url))
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        await engine.aclose()


async def collect(engine: Any, prompt: str) -> list[dict[str, Any]]:
    return [message async for message in engine.submit_message(prompt)]


def hook_entry(
    event: str, command: str, matcher: str | None = None, timeout: float | None = None
) -> dict[str, list[dict[str, Any]]]:
    """One command hook as settings hold it under ``"hooks"``: ``{event: [{"matcher": …, "hooks": [hook]}]}``."""
    hook: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    group: dict[str, Any] = {"hooks": [hook]}
    if matcher is not None:
        group["matcher"] = matcher
    return {event: [group]}


@pytest.fixture
def run_cli_env() -> Callable[..., dict[str, str]]:
    """The environment a CLI subprocess gets: the test's own, pointed at ``server``."""

    def env_for(server: FakeAnthropicServer | None = None, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        if server is not None:
            env["ANTHROPIC_BASE_URL"] = server.base_url
            env.setdefault("ANTHROPIC_API_KEY", "test-key")
        env.update(extra)
        return env

    return env_for


@pytest.fixture
def run_cli(project: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run ``python -m agentcli`` in the temp project with the test's environment."""

    def run(
        *args: str,
        server: FakeAnthropicServer | None = None,
        stdin: str | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 300,
    ) -> subprocess.CompletedProcess[str]:
        full_env = dict(os.environ)
        if server is not None:
            full_env["ANTHROPIC_BASE_URL"] = server.base_url
            full_env.setdefault("ANTHROPIC_API_KEY", "test-key")
        full_env.update(env or {})
        return subprocess.run(
            [sys.executable, "-m", "agentcli", *args],
            cwd=project,
            env=full_env,
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run


@pytest.fixture
def small_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on a small file system that really fills up (tests/files/disk.py)."""
    from tests.files.disk import small_disk_at

    yield from small_disk_at(tmp_path, monkeypatch)
