"""One-line summaries of tool calls, shared by both faces."""

from __future__ import annotations

from agentcli.ui.summaries import result_line


def test_a_tool_error_is_shown_without_its_tags():
    block = {
        "type": "tool_result",
        "tool_use_id": "t",
        "is_error": True,
        "content": "<tool_use_error>InputValidationError: file_path is required</tool_use_error>",
    }
    assert result_line("Read", block, None) == "InputValidationError: file_path is required"
