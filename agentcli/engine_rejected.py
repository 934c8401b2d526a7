"""A turn the API refused is taken back: left in the history, a message the API rejects (a stray ``tool_result``,
an image it cannot read) makes every later request fail the same way, so the session could never go on.

The history goes back to what it was before the turn's prompt; the transcript gets a line naming that prompt, so
``--resume`` leaves the turn out too; the user is told what happened and why.
"""

from __future__ import annotations

from typing import Any

from agentcli.context.conversation import Conversation
from agentcli.engine_messages import Outbox
from agentcli.session.load import REJECTED_SUBTYPE

Message = dict[str, Any]

REJECTED_STATUSES = frozenset({400, 413})
"""The answers that say the request itself is wrong (invalid, too large): sending it again fails again."""
TAKEN_BACK = (
    "The API refused this turn's request, so the message was taken out of the conversation (the model will not see "
    "it); send it again in another form, or go on with something else."
)


def take_back(conversation: Conversation, outbox: Outbox, start: int, prompt_uuid: str) -> Message:
    """Drop the turn that began at ``start`` and record that it was dropped; returns the warning faces show."""
    conversation.take_back(start)
    outbox.record(outbox.envelope({"type": "system", "subtype": REJECTED_SUBTYPE, "rejectedPrompt": prompt_uuid}))
    return outbox.warning(TAKEN_BACK)
