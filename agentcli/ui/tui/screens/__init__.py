"""The TUI's screens and dialogs, one per module."""
