"""Fixtures for the sub-agent tests: the official SDK driving the real CLI, as the protocol tests use it."""

from tests.ui.protocol.conftest import sdk_options  # noqa: F401
