"""The conversation's token count: exact up to the last response, estimated after, and right after a replace."""

from __future__ import annotations

from agentcli.context.conversation import Conversation
from agentcli.context.tokens import estimate_message


def test_count_is_exact_then_estimated_and_replace_starts_over():
    first = {"role": "user", "content": "x" * 400}
    answer = {"role": "assistant", "content": [{"type": "text", "text": "y" * 40}]}
    conversation = Conversation([first])
    conversation.append(answer)
    assert conversation.context_tokens(1_000) == 1_000 + estimate_message(first) + estimate_message(answer)
    conversation.note_usage({"input_tokens": 500, "cache_read_input_tokens": 700, "output_tokens": 20})
    after = {"role": "user", "content": "z" * 80}
    conversation.append(after)
    assert conversation.context_tokens(1_000) == 1_220 + estimate_message(after)

    smaller = {"role": "user", "content": "short"}
    conversation.replace([smaller, answer, after])
    assert conversation.generation == 1 and conversation.exact_through == 0
    assert conversation.context_tokens(1_000) == 1_000 + sum(estimate_message(m) for m in (smaller, answer, after))
    assert [conversation.size_of(i) for i in range(3)] == [estimate_message(m) for m in (smaller, answer, after)]
