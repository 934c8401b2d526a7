"""The trust boundary through the real CLI against the fake API: protected paths, leaving the sandbox, an untrusted
folder's settings, and session grants in the REPL. Each attack is tried for real and its file checked on disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.messages import tool_result
from tests.ui.conftest import text_turn, tool_turn
from tests.ui.repl_driver import ENTER
from tests.ui.repl_driver import start_repl as start_repl  # the REPL driver's fixture


def _turns(name: str, tool_input: dict[str, Any], tool_id: str = "toolu_1") -> dict[str, Any]:
    return {"turns": [tool_turn(name, tool_input, tool_id), text_turn("Done.")]}


def _json(proc: Any) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _said(server: Any, tool_id: str = "toolu_1") -> str:
    content = tool_result(server.requests[1], tool_id)["content"]
    return content if isinstance(content, str) else json.dumps(content)


def test_bypass_mode_cannot_plant_a_git_hook_until_a_rule_names_it(run_cli, fake_api, project: Path):
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True)
    write = {"file_path": str(hook), "content": "#!/bin/sh\ntouch pwned\n"}
    server = fake_api(_turns("Write", write))
    result = _json(run_cli("-p", "go", "--output-format", "json", "--dangerously-skip-permissions", server=server))
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Write"] and not hook.exists()
    said = _said(server)
    rule = f"Edit(/{hook})"
    assert "protected path" in said and f'--allowedTools "{rule}"' in said and f'["{rule}"]' in said
    server = fake_api(_turns("Write", write))
    opened = _json(
        run_cli(
            "-p",
            "go",
            "--output-format",
            "json",
            "--dangerously-skip-permissions",
            "--allowedTools",
            rule,
            server=server,
        )
    )
    assert opened["permission_denials"] == [] and hook.read_text().startswith("#!/bin/sh")


def test_leaving_the_sandbox_is_refused_headless_unless_a_rule_names_the_command(run_cli, fake_api, project: Path):
    made = project / "made.txt"
    bash = {"command": "touch made.txt", "dangerouslyDisableSandbox": True}
    auto = '{"sandbox": {"mode": "auto-allow"}}'
    server = fake_api(_turns("Bash", bash))
    result = _json(run_cli("-p", "go", "--output-format", "json", "--settings", auto, server=server))
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"] and not made.exists()
    said = _said(server)
    assert "dangerouslyDisableSandbox" in said and '--allowedTools "Bash(touch made.txt)"' in said
    server = fake_api(_turns("Bash", bash))
    bypass = _json(run_cli("-p", "go", "--output-format", "json", "--dangerously-skip-permissions", server=server))
    assert len(bypass["permission_denials"]) == 1 and not made.exists()
    server = fake_api(_turns("Bash", bash))
    allowed = run_cli(
        "-p",
        "go",
        "--output-format",
        "json",
        "--settings",
        auto,
        "--allowedTools",
        "Bash(touch made.txt)",
        server=server,
    )
    assert _json(allowed)["permission_denials"] == [] and made.exists()


def test_an_untrusted_folder_cannot_drop_the_users_claude_code_deny_rules(
    run_cli, fake_api, project: Path, hermetic_home: Path
):
    (hermetic_home / ".claude").mkdir()
    (hermetic_home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Bash(rm *)"]}}))
    (project / ".agentcli").mkdir()
    (project / ".agentcli" / "settings.json").write_text(json.dumps({"claudeCompat": False}))
    keep = project / "keep.txt"
    keep.write_text("precious")
    rm = {"command": f"rm {keep}"}
    server = fake_api(_turns("Bash", rm))
    proc = run_cli("-p", "go", "--output-format", "json", "--dangerously-skip-permissions", server=server)
    assert [d["tool_name"] for d in _json(proc)["permission_denials"]] == ["Bash"] and keep.exists()
    assert "claudeCompat false" in proc.stderr
    assert "Bash(rm *)" in _said(server) and str(hermetic_home / ".claude" / "settings.json") in _said(server)
    server = fake_api(_turns("Bash", rm))
    trusted = run_cli(
        "-p", "go", "--output-format", "json", "--dangerously-skip-permissions", "--trust-project", server=server
    )
    assert _json(trusted)["permission_denials"] == [] and not keep.exists()


async def test_allow_for_the_session_grants_no_more_than_the_question_showed(start_repl, project: Path):
    (project / "build").mkdir()
    turns = [
        tool_turn("Bash", {"command": "rm -rf build && mkdir build"}, "toolu_1"),
        text_turn("Rebuilt."),
        tool_turn("Bash", {"command": "mkdir -p out"}, "toolu_2"),
        text_turn("Made out."),
        tool_turn("Bash", {"command": "rm -f README.md"}, "toolu_3"),
        text_turn("Stopped."),
    ]
    repl = start_repl(turns)
    await repl.idle()
    repl.type("rebuild" + ENTER)
    await repl.wait_for("Allow Bash(rm -rf build && mkdir build)?")
    assert "2. Yes, and allow exactly `rm -rf build`, Bash(mkdir:*) for this session" in repl.output
    repl.type("2")
    await repl.wait_for("Rebuilt.")
    await repl.idle()
    repl.type("make out" + ENTER)
    await repl.wait_for("Made out.")  # covered by Bash(mkdir:*): no question
    await repl.idle()
    assert (project / "out").is_dir() and repl.output.count("Allow Bash(") == 1
    repl.type("tidy" + ENTER)
    await repl.wait_for("Allow Bash(rm -f README.md)?")  # the exact rm grant does not cover another rm
    repl.type("3")
    await repl.wait_for("What should agentcli do instead?")
    repl.type(ENTER)
    await repl.wait_for("Stopped.")
    await repl.idle()
    assert (project / "README.md").exists()
