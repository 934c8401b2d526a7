"""Hook setups written the way public Claude Code hooks are (bash + jq, Python, Node, prompt hooks), each installed
only in the project's ``.claude/settings.json`` and run unchanged in a real session against the fake API."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from agentcli.context.user_context import is_user_context_block
from tests.conftest import collect
from tests.messages import sent_text, tool_result
from tests.waiting import DEADLINE_S

DONE = {"content": [{"type": "text", "text": "All done."}]}


def tool_turn(name: str, tool_input: dict[str, Any], tool_id: str) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]}


def install(project: Path, hooks: dict[str, Any], scripts: dict[str, str]) -> None:
    """``.claude/settings.json`` with ``hooks``, and the scripts in ``.claude/hooks/`` (executable)."""
    folder = project / ".claude" / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in scripts.items():
        path = folder / name
        path.write_text(body)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}, indent=2))


def command(name: str, matcher: str | None = None, **extra: Any) -> list[dict[str, Any]]:
    group: dict[str, Any] = {
        "hooks": [{"type": "command", "command": f'"$CLAUDE_PROJECT_DIR"/.claude/hooks/{name}', **extra}]
    }
    if matcher is not None:
        group["matcher"] = matcher
    return [group]


def text_of(block: dict[str, Any]) -> str:
    content = block.get("content")
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content or [])


BASH_GUARD = r"""#!/usr/bin/env bash
# Block destructive commands (after Anthropic's bash_command_validator example).
command=$(jq -r '.tool_input.command // empty')
if echo "$command" | grep -Eq 'rm[[:space:]]+-rf'; then
  echo "Blocked: rm -rf is not allowed in this repository; delete files one by one" >&2
  exit 2
fi
exit 0
"""


async def test_bash_jq_guard_blocks_with_exit_2(fake_api, make_engine, project: Path):
    install(project, {"PreToolUse": command("guard.sh", "Bash")}, {"guard.sh": BASH_GUARD})
    (project / "build").mkdir()
    server = fake_api({"turns": [tool_turn("Bash", {"command": "rm -rf build"}, "toolu_1"), DONE]})
    engine = make_engine(server, trust_project=True, allowed_tools=["Bash"])
    await collect(engine, "clean up")
    denied = tool_result(server.requests[1], "toolu_1")
    assert denied["is_error"] and "rm -rf is not allowed" in text_of(denied)
    assert (project / "build").is_dir()


PROTECT_ENV = """#!/usr/bin/env python3
import json, sys

data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if path.endswith(".env") or "/secrets/" in path:
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"{path} holds secrets; ask the user for the value you need",
        }
    }))
sys.exit(0)
"""


async def test_python_guard_denies_with_permission_decision(fake_api, make_engine, project: Path):
    install(project, {"PreToolUse": command("protect_env.py", "Read|Edit|Write")}, {"protect_env.py": PROTECT_ENV})
    (project / ".env").write_text("TOKEN=abc\n")
    server = fake_api({"turns": [tool_turn("Read", {"file_path": str(project / ".env")}, "toolu_1"), DONE]})
    await collect(make_engine(server, trust_project=True), "what is the token?")
    denied = tool_result(server.requests[1], "toolu_1")
    assert denied["is_error"] and "holds secrets" in text_of(denied) and "TOKEN" not in text_of(denied)


AUTO_APPROVE_DOCS = r"""#!/usr/bin/env bash
input=$(cat)
path=$(echo "$input" | jq -r '.tool_input.file_path')
case "$path" in
  "$CLAUDE_PROJECT_DIR"/docs/*)
    jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow",
            permissionDecisionReason: "docs are free to edit"}}' ;;
  "$CLAUDE_PROJECT_DIR"/legacy/*)
    jq -n '{decision: "approve", reason: "legacy spelling of allow"}' ;;
  *)
    jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask",
            permissionDecisionReason: "a person should look at this"}}' ;;
esac
"""


async def test_allow_ask_and_the_old_approve(fake_api, make_engine, project: Path):
    install(project, {"PreToolUse": command("approve.sh", "Write")}, {"approve.sh": AUTO_APPROVE_DOCS})
    turns = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_doc",
                    "name": "Write",
                    "input": {"file_path": str(project / "docs" / "a.md"), "content": "# A\n"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_old",
                    "name": "Write",
                    "input": {"file_path": str(project / "legacy" / "b.txt"), "content": "b\n"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_src",
                    "name": "Write",
                    "input": {"file_path": str(project / "src" / "c.py"), "content": "c\n"},
                },
            ]
        },
        DONE,
    ]
    server = fake_api({"turns": turns})
    await collect(make_engine(server, trust_project=True), "write them")
    assert (project / "docs" / "a.md").read_text() == "# A\n"
    assert (project / "legacy" / "b.txt").read_text() == "b\n"
    asked = tool_result(server.requests[-1], "toolu_src")
    assert asked["is_error"] and not (project / "src" / "c.py").exists()  # ask in -p: nobody can answer


FORMATTER = """#!/usr/bin/env node
// Format JavaScript after every edit (single quotes, no trailing spaces), like a prettier hook.
const fs = require("fs");
let raw = "";
process.stdin.on("data", (chunk) => (raw += chunk));
process.stdin.on("end", () => {
  const input = JSON.parse(raw);
  const file = input.tool_input.file_path;
  if (!file.endsWith(".js")) process.exit(0);
  const text = fs.readFileSync(file, "utf8");
  fs.writeFileSync(file, text.replace(/"/g, "'").replace(/[ \\t]+$/gm, ""));
  process.exit(0);
});
"""


async def test_node_formatter_then_an_edit_of_the_same_file(fake_api, make_engine, project: Path):
    install(project, {"PostToolUse": command("format.js", "Write|Edit|MultiEdit")}, {"format.js": FORMATTER})
    path = project / "app.js"
    turns = [
        tool_turn(
            "Write", {"file_path": str(path), "content": 'const name = "app";   \nconsole.log(name);\n'}, "toolu_w"
        ),
        tool_turn("Edit", {"file_path": str(path), "old_string": "'app'", "new_string": "'demo'"}, "toolu_e"),
        DONE,
    ]
    server = fake_api({"turns": turns})
    await collect(make_engine(server, trust_project=True, allowed_tools=["Write", "Edit"]), "make app.js")
    assert path.read_text() == "const name = 'demo';\nconsole.log(name);\n"
    edited = tool_result(server.requests[2], "toolu_e")
    assert not edited.get("is_error")
    assert f"Note: {path} was changed on disk" in text_of(edited) and "+const name = 'app';" in text_of(edited)


STOP_UNTIL_TESTED = r"""#!/usr/bin/env bash
# Keep working until the tests have run (stop_hook_active prevents an endless loop).
input=$(cat)
if [ "$(echo "$input" | jq -r '.stop_hook_active')" = "true" ]; then
  exit 0
fi
if [ ! -f "$CLAUDE_PROJECT_DIR/.tests-passed" ]; then
  jq -n '{decision: "block", reason: "Run the test suite before you finish."}'
fi
"""


async def test_stop_blocker_honours_stop_hook_active(fake_api, make_engine, project: Path):
    install(project, {"Stop": command("stop.sh")}, {"stop.sh": STOP_UNTIL_TESTED})
    server = fake_api({"turns": [DONE, {"content": [{"type": "text", "text": "Tests pass."}]}]})
    messages = await collect(make_engine(server, trust_project=True), "fix the bug")
    assert len(server.requests) == 2 and messages[-1]["result"] == "Tests pass."
    feedback = server.requests[1].body["messages"][-1]["content"][0]["text"]
    assert feedback.startswith("Stop hook feedback:") and "Run the test suite before you finish." in feedback


SESSION_CONTEXT = """#!/usr/bin/env python3
import json, os, sys

data = json.load(sys.stdin)
print(f"Session source: {data['source']}. Project: {os.path.basename(os.environ['CLAUDE_PROJECT_DIR'])}.")
print(f"Running under Claude Code: {os.environ.get('CLAUDECODE')}; session {os.environ['CLAUDE_CODE_SESSION_ID']}")
"""

PROMPT_CONTEXT = r"""#!/usr/bin/env bash
prompt=$(jq -r '.prompt')
if echo "$prompt" | grep -qi 'password'; then
  echo "Prompts must not contain passwords" >&2
  exit 2
fi
jq -n --arg ticket "PROJ-42" '{hookSpecificOutput: {hookEventName: "UserPromptSubmit",
  additionalContext: ("Current ticket: " + $ticket)}}'
"""


async def test_session_start_and_prompt_context(fake_api, make_engine, project: Path):
    install(
        project,
        {"SessionStart": command("context.py", "startup"), "UserPromptSubmit": command("prompt.sh")},
        {"context.py": SESSION_CONTEXT, "prompt.sh": PROMPT_CONTEXT},
    )
    server = fake_api({"turns": [DONE]})
    engine = make_engine(server, trust_project=True)
    messages = await collect(engine, "my password is hunter2")
    assert server.requests == [] and messages[-1]["subtype"] == "success"
    assert any("must not contain passwords" in m.get("message", "") for m in messages)
    await collect(engine, "what next?")
    content = server.requests[0].body["messages"][0]["content"]
    texts = [block["text"] for block in content if not is_user_context_block(block)]
    assert texts[0] == "what next?"
    assert any(f"Session source: startup. Project: {project.name}." in t for t in texts)
    assert any(f"Running under Claude Code: 1; session {engine.config.session_id}" in t for t in texts)
    assert any("Current ticket: PROJ-42" in t for t in texts)


async def test_prompt_hook_on_stop(fake_api, make_engine, project: Path):
    hook = {"type": "prompt", "prompt": "Did the assistant finish the task? Input: $ARGUMENTS", "timeout": DEADLINE_S}
    install(project, {"Stop": [{"hooks": [hook]}]}, {})
    judge_no = {"content": [{"type": "text", "text": '{"ok": false, "reason": "The README was not updated"}'}]}
    judge_yes = {"content": [{"type": "text", "text": '{"ok": true}'}]}
    server = fake_api(
        {"turns": [DONE, judge_no, {"content": [{"type": "text", "text": "README updated."}]}, judge_yes]}
    )
    messages = await collect(make_engine(server, trust_project=True), "document it")
    assert messages[-1]["result"] == "README updated."
    judge = server.requests[1].body
    assert judge["model"] == "claude-haiku-5-5" and '"hook_event_name": "Stop"' in sent_text(judge["messages"][0])
    assert '"last_assistant_message": "All done."' in sent_text(judge["messages"][0])
    feedback = server.requests[2].body["messages"][-1]["content"][0]["text"]
    assert "The README was not updated" in feedback
    assert len(server.requests) == 4


async def test_prompt_hook_on_pre_tool_use_denies(fake_api, make_engine, project: Path):
    hook = {"type": "prompt", "prompt": "Is this command safe to run? $ARGUMENTS", "timeout": DEADLINE_S}
    install(project, {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}, {})
    judge = {"content": [{"type": "text", "text": '{"ok": false, "reason": "curl to an unknown host"}'}]}
    server = fake_api({"turns": [tool_turn("Bash", {"command": "curl http://x.example"}, "toolu_1"), judge, DONE]})
    await collect(make_engine(server, trust_project=True, allowed_tools=["Bash"]), "fetch it")
    denied = tool_result(server.requests[2], "toolu_1")
    assert denied["is_error"] and "curl to an unknown host" in text_of(denied)


async def test_agent_hook_on_stop(fake_api, make_engine, project: Path):
    hook = {"type": "agent", "prompt": "Verify the answer mentions README.md. $ARGUMENTS", "timeout": DEADLINE_S}
    install(project, {"Stop": [{"hooks": [hook]}]}, {})
    check = tool_turn("Read", {"file_path": str(project / "README.md")}, "toolu_check")
    verdict = {"content": [{"type": "text", "text": '{"ok": true}'}]}
    server = fake_api({"turns": [DONE, check, verdict]})
    messages = await collect(make_engine(server, trust_project=True), "summarise")
    assert messages[-1]["result"] == "All done." and len(server.requests) == 3
    agent_tools = {tool["name"] for tool in server.requests[1].body["tools"]}
    assert agent_tools == {"Read", "Grep", "Glob"}


HALT_AND_WARN = """#!/usr/bin/env python3
import json, sys

data = json.load(sys.stdin)
print(json.dumps({"continue": False, "stopReason": "Budget check failed", "systemMessage": "Usage is over budget"}))
"""


async def test_post_tool_use_continue_false_and_system_message(fake_api, make_engine, project: Path):
    install(project, {"PostToolUse": command("halt.py", "Read")}, {"halt.py": HALT_AND_WARN})
    read = tool_turn("Read", {"file_path": str(project / "README.md")}, "toolu_1")
    server = fake_api({"turns": [read, DONE]})
    messages = await collect(make_engine(server, trust_project=True), "read it")
    assert len(server.requests) == 1
    assert any(m.get("message") == "Usage is over budget" for m in messages if m.get("subtype") == "warning")
    assert "Budget check failed" in " ".join(messages[-1].get("errors", []))


LOG_FAILURES_AND_CWD = r"""#!/usr/bin/env bash
input=$(cat)
echo "$(echo "$input" | jq -c '{event: .hook_event_name, cwd: .cwd, error: .error}') $(pwd)" \
  >> "$CLAUDE_PROJECT_DIR/hook.log"
"""


async def test_failure_event_cwd_after_cd_and_unfired_events(fake_api, make_engine, project: Path):
    (project / "sub").mkdir()
    hooks = {
        "PostToolUse": command("log.sh", "Bash"),
        "PostToolUseFailure": command("log.sh", "Bash"),
        "PreToolUse": command("missing-script.sh", "Bash", timeout=DEADLINE_S),  # it fails at once, never times out
        "PermissionRequest": command("log.sh"),
        "Setup": command("log.sh"),
        "Notification": [{"hooks": [{"type": "http", "url": "http://localhost:1/hook"}]}],
    }
    install(project, hooks, {"log.sh": LOG_FAILURES_AND_CWD})
    turns = [
        tool_turn("Bash", {"command": "cd sub"}, "toolu_cd"),
        tool_turn("Bash", {"command": "exit 3"}, "toolu_fail"),
        DONE,
    ]
    server = fake_api({"turns": turns})
    notices: list[str] = []
    engine = make_engine(server, trust_project=True, allowed_tools=["Bash"], notices=notices)
    messages = await collect(engine, "go")
    assert messages[-1]["subtype"] == "success"
    logged = [line.rsplit(" ", 1) for line in (project / "hook.log").read_text().splitlines()]
    events = [(json.loads(data)["event"], json.loads(data)["cwd"], where) for data, where in logged]
    sub = str((project / "sub").resolve())
    assert events[0] == ("PostToolUse", sub, sub)
    assert events[1][0] == "PostToolUseFailure" and events[1][1] == sub
    assert json.loads(logged[1][0])["error"].startswith("Exit code 3")
    assert len(events) == 2  # PermissionRequest and Setup never fire
    warnings = [m["message"] for m in messages if m.get("subtype") == "warning"]
    assert any("PreToolUse hook" in w and "missing-script.sh" in w and "127" in w for w in warnings)
    assert any("does not fire PermissionRequest" in n for n in notices)
    assert any("does not fire Setup" in n for n in notices)
    assert any('does not run "http" hooks' in n for n in notices)


async def test_an_untrusted_folders_claude_hooks_do_not_run(fake_api, make_engine, project: Path):
    install(
        project, {"UserPromptSubmit": command("mark.sh")}, {"mark.sh": '#!/bin/sh\ntouch "$CLAUDE_PROJECT_DIR/ran"\n'}
    )
    notices: list[str] = []
    server = fake_api({"turns": [DONE]})
    await collect(make_engine(server, notices=notices), "hello")
    assert not (project / "ran").exists()
    assert any(".claude/settings.json: 1 hook" in n for n in notices)


def test_print_mode_with_claude_only_hook_types_and_a_blocked_prompt_exits_0(fake_api, run_cli, project: Path):
    hooks = {
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "Done? $ARGUMENTS"}]}],
        "SubagentStart": [{"hooks": [{"type": "mcp_tool", "tool": "mcp__audit__log"}]}],
        "UserPromptSubmit": command("prompt.sh"),
    }
    install(project, hooks, {"prompt.sh": PROMPT_CONTEXT})
    server = fake_api({"turns": [DONE, {"content": [{"type": "text", "text": '{"ok": true}'}]}]})
    blocked = run_cli("-p", "--trust-project", "my password is x", server=server)
    assert blocked.returncode == 0 and server.requests == []
    assert "must not contain passwords" in blocked.stderr
    ran = run_cli("-p", "--trust-project", "hello", server=server)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "All done." and len(server.requests) == 2
    assert 'does not run "mcp_tool" hooks' in ran.stderr


def test_hooks_list_shows_each_hooks_file_and_why_some_never_run(run_cli, project: Path):
    hooks = {"PreToolUse": command("guard.sh", "Bash"), "PermissionRequest": command("guard.sh")}
    install(project, hooks, {"guard.sh": BASH_GUARD})
    listed = run_cli("hooks", "list")
    assert listed.returncode == 0, listed.stderr
    settings = str(project / ".claude" / "settings.json")
    assert "PreToolUse" in listed.stdout and settings in listed.stdout
    assert "note: agentcli does not fire PermissionRequest" in listed.stdout


def test_hooks_report_names_prompt_hooks_and_notes(project: Path):
    from agentcli.commands.reports import hooks_report
    from agentcli.config.settings import load_settings

    hooks = {
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "Is it done?"}]}],
        "Setup": command("guard.sh"),
    }
    install(project, hooks, {"guard.sh": BASH_GUARD})
    title, detail = hooks_report(load_settings(project, trusted=True), project)
    assert title == "Hooks (2)"
    assert "$ prompt: Is it done?" in detail and "note: agentcli does not fire Setup" in detail
    assert ".claude/settings.json" in detail
