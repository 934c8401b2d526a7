"""The full-screen Textual interface (``agentcli`` in a terminal)."""
