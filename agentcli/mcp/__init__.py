"""MCP servers: their configuration, their connections (started in the background), and the tools they offer.

Nothing here imports the ``mcp`` package at module level: a session without servers never pays for it, and a
session with servers imports it off the event loop while the first request is already on its way.
"""
