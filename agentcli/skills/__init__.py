"""Skills: folders with a ``SKILL.md`` that the model loads when a task calls for them."""
