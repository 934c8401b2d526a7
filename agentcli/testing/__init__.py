"""A fake Anthropic Messages API for tests and offline demos: scripted turns, strict validation, faults."""

from agentcli.testing.scenario import Scenario, load_scenario
from agentcli.testing.server import FakeAnthropicServer

__all__ = ["FakeAnthropicServer", "Scenario", "load_scenario"]
