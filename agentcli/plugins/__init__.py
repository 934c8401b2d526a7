"""Plugins: Claude Code plugin folders, contributing hooks, commands, agents, skills and MCP servers."""
