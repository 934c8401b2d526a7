"""Every flag the Agent SDK's transport passes parses, does what it can, and otherwise says so on stderr."""

from __future__ import annotations

from pathlib import Path

from claude_agent_sdk import ClaudeAgentOptions, ResultMessage
from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

from agentcli.cli import build_parser
from tests.messages import system_text
from tests.ui.protocol.conftest import AGENTCLI, collect, text_turn


def _everything(project: Path, **extra) -> dict:
    prompt_file = project / "prompt.txt"
    prompt_file.write_text("You are terse.", encoding="utf-8")
    return dict(
        system_prompt={"type": "file", "path": str(prompt_file)},
        tools=["Read", "Grep"],
        allowed_tools=["Read"],
        disallowed_tools=["Bash(rm *)"],
        max_turns=3,
        max_budget_usd=5.0,
        task_budget={"total": 1000},
        model="claude-sonnet-5-5",
        fallback_model="claude-haiku-5-5",
        betas=["context-1m-2025-08-07"],
        permission_mode="dontAsk",
        settings='{"env": {"A": "1"}}',
        add_dirs=[str(project)],
        mcp_servers={"x": {"type": "stdio", "command": "true"}},
        include_hook_events=True,
        strict_mcp_config=True,
        setting_sources=["user", "project"],
        plugins=[{"type": "local", "path": str(project)}],
        thinking={"type": "enabled", "budget_tokens": 2048},
        effort="low",
        output_format={"type": "json_schema", "schema": {"type": "object"}},
        extra_args={"replay-user-messages": None},
        **extra,
    )


def test_the_sdk_command_line_parses(project: Path):
    for options in (
        _everything(project),
        _everything(project, resume="abc", fork_session=True, resume_session_at="m1", continue_conversation=False),
    ):
        transport = SubprocessCLITransport(prompt="", options=ClaudeAgentOptions(cli_path=AGENTCLI, **options))
        argv = transport._build_command()[1:]
        args = build_parser().parse_args(argv)
        assert args.input_format == "stream-json" and args.output_format == "stream-json"
    assert args.thinking is None and args.max_thinking_tokens == 2048
    assert args.permission_mode == "dontAsk" and args.system_prompt_file.endswith("prompt.txt")


async def test_an_sdk_run_with_every_option_starts_works_and_notes_what_it_ignores(sdk_options, project: Path):
    lines: list[str] = []
    options, server = sdk_options(
        [
            {
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                    {"type": "tool_use", "id": "toolu_s", "name": "StructuredOutput", "input": {"ok": True}},
                ]
            },
            text_turn("Done."),
        ],
        stderr=lines.append,
    )
    for key, value in _everything(project).items():
        setattr(options, key, value)
    messages = await collect("go", options)
    assert isinstance(messages[-1], ResultMessage) and messages[-1].structured_output == {"ok": True}
    body = server.requests[0].body
    assert system_text(body).startswith("You are terse.")
    assert {tool["name"] for tool in body["tools"]} == {"Read", "Grep", "StructuredOutput"}
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    notes = "\n".join(lines)
    for flag in ("--add-dir", "--betas", "--effort", "--setting-sources"):
        assert flag in notes
