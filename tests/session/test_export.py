from __future__ import annotations

from agentcli.session.export import conversation_markdown


def test_markdown_shows_prompts_answers_tools_and_results():
    messages = [
        {"role": "user", "content": "What does app.py do?"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "private", "signature": "s"},
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/p/app.py"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "1\tdef add():\n2\t    ```"},
                {"type": "text", "text": "<system-reminder>\nhidden\n</system-reminder>"},
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "It adds."}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t2",
                    "content": [{"type": "text", "text": "boom"}],
                    "is_error": True,
                }
            ],
        },
    ]
    text = conversation_markdown(messages)
    assert text.startswith("# agentcli conversation\n")
    assert "## You\n\nWhat does app.py do?" in text
    assert "## agentcli\n\nLet me look." in text and "## agentcli\n\nIt adds." in text
    assert '**Read**\n\n```json\n{\n  "file_path": "/p/app.py"\n}\n```' in text
    assert "Result:\n\n````\n1\tdef add():\n2\t    ```\n````" in text
    assert "Error:\n\n```\nboom\n```" in text
    assert "private" not in text and "hidden" not in text


def test_long_results_are_previewed():
    long = "\n".join(f"line {i}" for i in range(100))
    text = conversation_markdown(
        [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": long}]}]
    )
    assert "line 39" in text and "line 40\n" not in text and "(60 more lines)" in text
