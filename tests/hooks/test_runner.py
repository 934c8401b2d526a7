"""The hook contract, hook by hook: stdin, environment, exit codes, JSON output, timeouts, failures."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.hooks.config import matcher_matches
from tests.processes import running_with, sleep_seconds
from tests.waiting import DEADLINE_S, wait_until

BASH_ECHO_STDIN = """#!/usr/bin/env bash
input=$(cat)
echo "$input" > "$CLAUDE_PROJECT_DIR/seen.json"
echo "$AGENTCLI_PROJECT_DIR" > "$CLAUDE_PROJECT_DIR/seen_env.txt"
pwd > "$CLAUDE_PROJECT_DIR/seen_cwd.txt"
"""

PYTHON_DENY_RM = """#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
command = data["tool_input"].get("command", "")
if "rm -rf" in command:
    print("Refusing to run rm -rf", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
"""


async def test_bash_hook_reads_stdin_json_env_and_cwd(runner, script, project: Path):
    hooks = runner(("PreToolUse", "Bash", script("echo.sh", BASH_ECHO_STDIN)), permission_mode="acceptEdits")
    outcome = await hooks.run(
        "PreToolUse",
        {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"},
        match_value="Bash",
    )
    assert outcome.errors == [] and outcome.blocking == []
    seen = json.loads((project / "seen.json").read_text())
    assert seen == {
        "session_id": "sess-1",
        "transcript_path": "/t.jsonl",
        "cwd": str(project),
        "permission_mode": "acceptEdits",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_1",
    }
    assert (project / "seen_env.txt").read_text().strip() == str(project)
    assert (project / "seen_cwd.txt").read_text().strip() == str(project)


async def test_python_hook_exit_2_blocks_with_stderr(runner, script):
    hooks = runner(("PreToolUse", "Bash", script("deny.py", PYTHON_DENY_RM)))
    outcome = await hooks.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}, "Bash")
    assert outcome.blocking == [(outcome.results[0].hook.command, "Refusing to run rm -rf")]
    ok = await hooks.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}}, "Bash")
    assert ok.blocking == [] and ok.errors == []


async def test_other_exit_codes_are_non_blocking_errors_with_the_first_stderr_line(runner):
    hooks = runner(("Stop", None, "echo 'first line' >&2; echo second >&2; exit 3"))
    outcome = await hooks.run("Stop", {})
    assert outcome.blocking == []
    assert outcome.errors == ["echo 'first line' >&2; echo second >&2; exit 3: exited with status 3: first line"]


async def test_command_not_found_is_reported_loudly(runner):
    hooks = runner(("Stop", None, "definitely-not-a-command-xyz"))
    outcome = await hooks.run("Stop", {})
    assert outcome.results[0].exit_code == 127
    assert "command not found (exit 127)" in outcome.errors[0] and "broken" in outcome.errors[0]


async def test_json_output_fields(runner):
    output = {
        "continue": False,
        "stopReason": "tests are red",
        "systemMessage": "heads up",
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
            "updatedInput": {"command": "ls -la"},
            "additionalContext": "context for the model",
        },
    }
    hooks = runner(("PreToolUse", "*", f"echo '{json.dumps(output)}'"))
    outcome = await hooks.run("PreToolUse", {"tool_name": "Bash"}, "Bash")
    assert outcome.prevent_continuation and outcome.stop_reason == "tests are red"
    assert outcome.system_messages == ["heads up"]
    assert outcome.permission_decision == ("deny", "no")
    assert outcome.updated_input == {"command": "ls -la"}
    assert outcome.additional_context == ["context for the model"]


async def test_decision_block_with_reason_blocks(runner):
    hooks = runner(("Stop", None, """echo '{"decision": "block", "reason": "run the tests first"}'"""))
    outcome = await hooks.run("Stop", {"stop_hook_active": False})
    assert [message for _, message in outcome.blocking] == ["run the tests first"]


async def test_deny_beats_ask_beats_allow_across_hooks(runner):
    def decide(value: str) -> str:
        return "echo '" + json.dumps({"hookSpecificOutput": {"permissionDecision": value}}) + "'"

    hooks = runner(("PreToolUse", "Bash", decide("allow")), ("PreToolUse", "Bash", decide("ask")))
    assert (await hooks.run("PreToolUse", {}, "Bash")).permission_decision == ("ask", "")
    hooks = runner(("PreToolUse", "Bash", decide("allow")), ("PreToolUse", "*", decide("deny")))
    assert (await hooks.run("PreToolUse", {}, "Bash")).permission_decision == ("deny", "")


async def test_plain_stdout_is_context_only_for_prompt_and_session_start(runner):
    hooks = runner(("UserPromptSubmit", None, "echo 'branch: main'"), ("Stop", None, "echo 'ignored'"))
    assert (await hooks.run("UserPromptSubmit", {"prompt": "x"})).additional_context == ["branch: main"]
    assert (await hooks.run("Stop", {})).additional_context == []


async def test_malformed_json_output_is_reported_not_fatal(runner):
    hooks = runner(("Stop", None, "echo '{not json'"))
    outcome = await hooks.run("Stop", {})
    assert outcome.blocking == [] and not outcome.prevent_continuation
    assert "not valid JSON" in outcome.errors[0]


async def test_hooks_of_one_event_run_in_parallel(runner, project: Path):
    # each hook waits for the other to have started: run one after the other, the first would time out
    meet = "touch {mine}; while [ ! -e {other} ]; do sleep 0.01; done"
    hooks = runner(
        ("Stop", None, meet.format(mine=project / "a", other=project / "b"), DEADLINE_S),
        ("Stop", None, meet.format(mine=project / "b", other=project / "a"), DEADLINE_S),
    )
    outcome = await hooks.run("Stop", {})
    assert len(outcome.results) == 2
    assert [result.timed_out for result in outcome.results] == [False, False]
    assert outcome.errors == []


async def test_identical_commands_run_once(runner, project: Path):
    command = f"echo x >> {project / 'count.txt'}"
    hooks = runner(("PostToolUse", "Edit", command), ("PostToolUse", "Edit|Write", command))
    outcome = await hooks.run("PostToolUse", {}, "Edit")
    assert len(outcome.results) == 1
    assert (project / "count.txt").read_text() == "x\n"


async def test_timeout_kills_the_process_group_and_is_reported(runner):
    # The hook starts a background process that would outlive the shell; the whole group must die with it. Both
    # sleeps last far longer than any test: only the hook's timeout can end them.
    marker = sleep_seconds(3600)
    hooks = runner(("Stop", None, f"sleep {marker} & sleep {marker}", 3.0))
    outcome = await hooks.run("Stop", {})
    assert outcome.results[0].timed_out
    assert outcome.errors == [f"{outcome.results[0].hook.command}: timed out after 3 s and was killed"]
    wait_until(lambda: not running_with(marker), "the hook's processes, the background one too, to die with the group")


async def test_output_is_capped(runner):
    hooks = runner(("Stop", None, "head -c 300000 /dev/zero | tr '\\\\0' 'a'"))
    outcome = await hooks.run("Stop", {})
    assert len(outcome.results[0].stdout) < 70_000
    assert "more bytes not shown" in outcome.results[0].stdout


def test_matchers():
    cases = [
        (None, "Bash", True),
        ("", "Bash", True),
        ("*", "Edit", True),
        ("Bash", "Bash", True),
        ("Bash", "BashX", False),
        ("Edit|Write", "Write", True),
        ("Edit, Write", "Write", True),
        ("Edit.*", "NotebookEdit", True),
        ("^Edit$", "NotebookEdit", False),
        ("mcp__.*__write", "mcp__fs__write", True),
        ("startup", "resume", False),
        ("(unclosed", "x", False),
    ]
    for matcher, value, expected in cases:
        assert matcher_matches(matcher, value) is expected, (matcher, value)
