"""agentcli: a terminal coding agent. Kept import-free so start-up stays cheap."""

__version__ = "0.1.0"
