"""ResumePicker: choose one of this folder's earlier sessions to continue (``agentcli --resume``)."""

from __future__ import annotations

import time
from typing import Any

from textual.content import Content

from agentcli.ui.tui.screens.choice import ChoicePicker


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def _label(info: Any, now: float) -> Content:
    prompt = " ".join((info.first_prompt or "(no prompt)").split())[:70]
    label = Content.assemble(
        (f"{_age(now - info.last_activity):>9}  ", "$text-muted"),
        prompt,
        (f"  · {info.message_count} messages", "$text-muted"),
    )
    if info.git_branch:
        label = label + Content.styled(f" · {info.git_branch}", "$text-muted")
    return label


class ResumePicker(ChoicePicker):
    """The result is the chosen session id, or None (start a new session, or stay in this one)."""

    def __init__(self, sessions: list[Any], *, cancel_label: str = "Esc for a new session") -> None:
        now = time.time()
        super().__init__(
            "Resume a session",
            [(info.session_id, _label(info, now)) for info in sessions],
            f"Enter to resume · {cancel_label}",
            empty="No earlier sessions in this folder.",
        )
        self.sessions = sessions
