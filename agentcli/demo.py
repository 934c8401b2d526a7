"""``--demo``: a scripted model on a local port, so anyone can watch agentcli work without an API key."""

from __future__ import annotations

from importlib.resources import files
from typing import Any


def start_demo_server() -> Any:
    """Start the built-in fake Messages API with the demo scenario; the caller stops it."""
    from agentcli.testing import FakeAnthropicServer, load_scenario

    scenario = load_scenario(str(files("agentcli.testing") / "scenarios" / "demo.json"))
    return FakeAnthropicServer(scenario).start()
