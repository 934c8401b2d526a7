"""Sub-agents: the ``Task`` tool runs the same query loop with its own messages, tools, system prompt and model."""
