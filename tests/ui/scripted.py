"""A fixed conversation in the engine's message shapes, for snapshots that must not depend on time or paths."""

from __future__ import annotations

from typing import Any

ANSWER = """I'll check the project first.

## What I found

- `src/app.py` defines **add(a, b)**
- there are *no tests* yet

```python
def test_add():
    assert add(2, 3) == 5
```
"""

FINAL = "Added a test for `add`. Run it with `pytest -q`."


def _stream(message_id: str, blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"type": "stream_event", "event": {"type": "message_start", "message": {"id": message_id}}}
    ]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            out.append(
                {
                    "type": "stream_event",
                    "event": {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {"type": "text", "text": ""},
                    },
                }
            )
            text = block["text"]
            out += [
                {
                    "type": "stream_event",
                    "event": {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "text_delta", "text": text[i : i + 7]},
                    },
                }
                for i in range(0, len(text), 7)
            ]
        else:
            out.append(
                {
                    "type": "stream_event",
                    "event": {"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}},
                }
            )
        out.append({"type": "stream_event", "event": {"type": "content_block_stop", "index": index}})
    out.append(
        {
            "type": "assistant",
            "message": {"id": message_id, "content": blocks, "usage": {"input_tokens": 12_000, "output_tokens": 300}},
        }
    )
    return out


def conversation() -> list[dict[str, Any]]:
    """A finished turn: a streamed answer with a code block, Read, Bash and Edit calls, and a final answer."""
    read = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "src/app.py"}}
    bash = {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "pytest -q"}}
    edit = {
        "type": "tool_use",
        "id": "toolu_3",
        "name": "Edit",
        "input": {"file_path": "tests/test_app.py", "old_string": "", "new_string": "x"},
    }
    patch = (
        "--- a\n+++ b\n@@ -1,2 +1,3 @@\n import pytest\n-from app import sub\n+from app import add\n"
        "+assert add(2, 3) == 5\n"
    )
    messages: list[dict[str, Any]] = [
        {
            "type": "system",
            "subtype": "init",
            "model": "claude-sonnet-5-5",
            "permissionMode": "default",
            "session_id": "00000000-0000-0000-0000-000000000000",
            "cwd": "/project",
            "tools": ["Read", "Bash", "Edit"],
        },
        {"type": "user", "message": {"role": "user", "content": "Add a test for add()"}},
        *_stream("msg_1", [{"type": "text", "text": ANSWER}, read]),
        {
            "type": "system",
            "subtype": "tool_started",
            "tool_use_id": "toolu_1",
            "tool_name": "Read",
            "tool_input": read["input"],
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": "1\tdef add(a, b):\n2\t    return a + b",
                    }
                ],
            },
            "tool_use_result": {"type": "text", "file": {"filePath": "src/app.py", "numLines": 2}},
        },
        *_stream("msg_2", [bash]),
        {
            "type": "system",
            "subtype": "tool_started",
            "tool_use_id": "toolu_2",
            "tool_name": "Bash",
            "tool_input": bash["input"],
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_2",
                        "content": "no tests ran in 0.01s",
                        "is_error": True,
                    }
                ],
            },
            "tool_use_result": {"stdout": "no tests ran in 0.01s", "exitCode": 5},
        },
        *_stream("msg_3", [edit]),
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_3", "content": "The file was updated."}],
            },
            "tool_use_result": {"filePath": "tests/test_app.py", "patch": patch},
        },
        *_stream("msg_4", [{"type": "text", "text": FINAL}]),
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "num_turns": 4,
            "duration_ms": 4200,
            "total_cost_usd": 0.0123,
        },
    ]
    return messages
