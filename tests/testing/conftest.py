"""Fixtures for the fake Messages API tests: servers and SDK clients that are always torn down."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import anthropic
import pytest

from agentcli.testing import FakeAnthropicServer


@pytest.fixture
def serve() -> Iterator[Callable[..., FakeAnthropicServer]]:
    """Start a server for a scenario; every server started is stopped at teardown."""
    servers: list[FakeAnthropicServer] = []

    def _serve(scenario: Any, **kwargs: Any) -> FakeAnthropicServer:
        server = FakeAnthropicServer(scenario, **kwargs).start()
        servers.append(server)
        return server

    yield _serve
    for server in servers:
        server.stop()


@pytest.fixture
def client_for() -> Iterator[Callable[..., anthropic.Anthropic]]:
    """A sync SDK client pointed at a server, with retries off so faults surface directly."""
    clients: list[anthropic.Anthropic] = []

    def _client(server: FakeAnthropicServer, **kwargs: Any) -> anthropic.Anthropic:
        client = anthropic.Anthropic(base_url=server.base_url, api_key="test-key", max_retries=0, **kwargs)
        clients.append(client)
        return client

    yield _client
    for client in clients:
        client.close()


@pytest.fixture
async def async_client_for() -> AsyncIterator[Callable[..., anthropic.AsyncAnthropic]]:
    """The async counterpart of `client_for`, closed on the test's own event loop."""
    clients: list[anthropic.AsyncAnthropic] = []

    def _client(server: FakeAnthropicServer, **kwargs: Any) -> anthropic.AsyncAnthropic:
        client = anthropic.AsyncAnthropic(base_url=server.base_url, api_key="test-key", max_retries=0, **kwargs)
        clients.append(client)
        return client

    yield _client
    for client in clients:
        await client.close()
