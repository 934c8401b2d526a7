"""The look shared by the TUI's dialogs, kept with them so its CSS is parsed when a dialog first opens, not at start."""

from __future__ import annotations


def dialog_css(box: str, *, border: str = "$warning", extra: str = "") -> str:
    """CSS for a dialog's box ``#box`` (the app's CSS centres every modal screen over the dimmed conversation)."""
    return f"""
    #{box} {{
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        border: round {border};
        background: $surface;
        padding: 1 2;
    }}
    {extra}
    """


OPTIONS_CSS = "height: auto; max-height: 16; border: none; background: $surface;"
