from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentcli.hooks.config import ConfiguredHook
from agentcli.hooks.runner import HookRunner


@pytest.fixture
def script(tmp_path: Path) -> Callable[[str, str], str]:
    """Write an executable hook script and return the command that runs it."""

    def write(name: str, body: str) -> str:
        path = tmp_path / "hooks" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(body)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return str(path)

    return write


@pytest.fixture
def runner(project: Path) -> Callable[..., HookRunner]:
    def make(*hooks: tuple[str, str | None, str] | tuple[str, str | None, str, float], **kwargs: Any) -> HookRunner:
        configured = [ConfiguredHook(h[0], h[1], h[2], h[3] if len(h) > 3 else 60.0, "test") for h in hooks]
        return HookRunner(configured, project_dir=project, session_id="sess-1", transcript_path="/t.jsonl", **kwargs)

    return make


def settings_file(project: Path, data: dict[str, Any], name: str = "settings.json") -> Path:
    folder = project / ".agentcli"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(data, indent=2))
    return path
