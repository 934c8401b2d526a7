"""Session grants are exactly as wide as what the user saw, and dangerouslyDisableSandbox is always a person's
call (or a rule someone wrote that names the command)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.bootstrap import SessionOptions, permission_policy
from agentcli.config.settings import load_settings
from agentcli.tools.base import ToolCall, ToolEnv
from agentcli.tools.permissions import PermissionAnswer, PermissionPolicy, PermissionRequest
from agentcli.tools.rules import parse_rule
from agentcli.tools.sandbox import Sandbox, SandboxConfig
from tests.tools.conftest import tool_named

BASH = tool_named("Bash")


class Face:
    """Answers every question the same way and keeps what it was shown."""

    def __init__(self, choice: str = "allow_session") -> None:
        self.choice = choice
        self.requests: list[PermissionRequest] = []

    async def __call__(self, request: PermissionRequest) -> PermissionAnswer:
        self.requests.append(request)
        return PermissionAnswer(self.choice)  # type: ignore[arg-type]


def _call(env: ToolEnv, tool_use_id: str = "toolu_1") -> ToolCall:
    return ToolCall(env, tool_use_id)


async def _run(policy: PermissionPolicy, command: str, env: ToolEnv, **extra: object) -> str:
    return (await policy(BASH, {"command": command, **extra}, _call(env))).behavior


async def test_a_compound_command_grants_each_part_no_wider_than_safe(project: Path):
    face = Face()
    policy = PermissionPolicy(project, ask=face)
    env = ToolEnv(project)
    assert await _run(policy, "rm -rf build && make build", env) == "allow"
    assert face.requests[0].session_grant == "exactly `rm -rf build`, Bash(make build:*)"
    before = len(face.requests)
    assert await _run(policy, "rm -rf build", env) == "allow"
    assert await _run(policy, "make build -j4", env) == "allow"
    assert len(face.requests) == before  # both covered by the grant
    face.choice = "deny"
    assert await _run(policy, "rm -f README.md", env) == "deny"  # asked again, and the user said no
    assert face.requests[-1].tool_input["command"] == "rm -f README.md"
    assert (project / "README.md").exists()


@pytest.mark.parametrize(
    ("command", "grant"),
    [
        ("rm -rf build", "exactly `rm -rf build`"),
        ("mv a b", "exactly `mv a b`"),
        ("cp -r src /tmp/x", "exactly `cp -r src /tmp/x`"),
        ("chmod +x run.sh", "exactly `chmod +x run.sh`"),
        ("dd if=/dev/zero of=disk bs=1M count=1", "exactly `dd if=/dev/zero of=disk bs=1M count=1`"),
        ("curl -o x https://example.com", "exactly `curl -o x https://example.com`"),
        ("wget https://example.com", "exactly `wget https://example.com`"),
        ("sudo make install", "exactly `sudo make install`"),
        ("python script.py", "exactly `python script.py`"),
        ("python3 -c 'print(1)'", "exactly `python3 -c 'print(1)'`"),
        ("node build.js", "exactly `node build.js`"),
        ("bash build.sh", "exactly `bash build.sh`"),
        ("sh -c 'make'", "exactly `sh -c 'make'`"),
        ("find . -name x -exec touch {} +", "exactly `find . -name x -exec touch {} +`"),
        ("git push origin main", "exactly `git push origin main`"),
        ("git reset --hard", "exactly `git reset --hard`"),
        ("npm install left-pad", "exactly `npm install left-pad`"),
        ("npx create-thing", "exactly `npx create-thing`"),
        ("FOO=1 make test", "exactly `FOO=1 make test`"),
        ("./gradlew build", "exactly `./gradlew build`"),
        ("xargs rm < list", "exactly `xargs rm <list`"),
        ("make build", "Bash(make build:*)"),
        ("npm test", "Bash(npm test:*)"),
        ("npm run lint -- --fix", "Bash(npm run lint:*)"),
        ("git commit -m 'fix'", "Bash(git commit:*)"),
        ("pytest -x tests", "Bash(pytest:*)"),
        ("python -m pytest tests", "Bash(python -m pytest:*)"),
        ("cargo build --release", "Bash(cargo build:*)"),
    ],
)
def test_what_a_part_grants(project: Path, command: str, grant: str):
    verdict = PermissionPolicy(project).evaluate(BASH, {"command": command}, ToolEnv(project))
    assert verdict.behavior == "ask"
    assert (
        PermissionRequest("Bash", {}, "t", verdict.reason, verdict.suggestions, verdict.grants).session_grant == grant
    )


async def test_an_exact_grant_treats_a_star_as_a_character(project: Path):
    policy = PermissionPolicy(project, ask=Face())
    env = ToolEnv(project)
    assert await _run(policy, "rm -f *.pyc", env) == "allow"
    assert policy.evaluate(BASH, {"command": "rm -f *.pyc"}, env).behavior == "allow"
    assert policy.evaluate(BASH, {"command": "rm -f important.pyc"}, env).behavior == "ask"
    assert policy.evaluate(BASH, {"command": "rm -f * .pyc"}, env).behavior == "ask"


async def test_a_command_that_cannot_be_split_gets_an_exact_grant_that_works(project: Path):
    face = Face()
    policy = PermissionPolicy(project, ask=face)
    env = ToolEnv(project)
    loop = "for f in *; do cat $f; done"
    assert await _run(policy, loop, env) == "allow"
    assert face.requests[0].session_grant == f"exactly `{loop}`"
    assert policy.evaluate(BASH, {"command": loop}, env).behavior == "allow"
    assert policy.evaluate(BASH, {"command": "for f in *; do rm $f; done"}, env).behavior == "ask"
    assert policy.evaluate(BASH, {"command": "for f in x; do cat $f; done"}, env).behavior == "ask"
    assert policy.evaluate(BASH, {"command": "for f in *; do cat $f; done\nrm -rf ~"}, env).behavior == "ask"


# -- dangerouslyDisableSandbox ---------------------------------------------------------------------------------------


def _sandboxed(project: Path, *, auto_allow: bool = True) -> tuple[Sandbox, ToolEnv]:
    sandbox = Sandbox(SandboxConfig(enabled=True, auto_allow=auto_allow), project)
    return sandbox, ToolEnv(project, sandbox=sandbox)


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions", "auto"])
async def test_leaving_the_sandbox_always_asks_and_says_so(project: Path, mode: str):
    sandbox, env = _sandboxed(project)
    face = Face("allow_once")
    policy = PermissionPolicy(project, mode=mode, ask=face, sandbox=sandbox, rules=[parse_rule("Bash", "allow")])
    assert await _run(policy, "ls", env) == "allow" and face.requests == []
    assert await _run(policy, "ls", env, dangerouslyDisableSandbox=True) == "allow"
    assert len(face.requests) == 1 and "sandbox off" in face.requests[0].reason
    assert face.requests[0].session_grant is None  # it can only be allowed once
    hooked = policy.evaluate(BASH, {"command": "ls", "dangerouslyDisableSandbox": True}, env, ("allow", "ok"))
    assert hooked.behavior == "ask"


async def test_a_session_grant_never_covers_the_unsandboxed_form(project: Path):
    sandbox, env = _sandboxed(project, auto_allow=False)
    face = Face()
    policy = PermissionPolicy(project, ask=face, sandbox=sandbox)
    assert await _run(policy, "make build", env) == "allow"
    assert policy.evaluate(BASH, {"command": "make build"}, env).behavior == "allow"
    unsandboxed = {"command": "make build", "dangerouslyDisableSandbox": True}
    assert policy.evaluate(BASH, unsandboxed, env).behavior == "ask"


async def test_headless_refuses_unless_a_written_rule_names_the_command(project: Path, hermetic_home: Path):
    sandbox, env = _sandboxed(project)
    headless = PermissionPolicy(project, mode="bypassPermissions", sandbox=sandbox)
    decision = await headless(BASH, {"command": "npm test", "dangerouslyDisableSandbox": True}, _call(env))
    assert decision.behavior == "deny" and "dangerouslyDisableSandbox" in decision.message
    assert '"permissions": {"allow": ["Bash(npm test)"]}' in decision.message
    user = hermetic_home / "config" / "agentcli" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text(json.dumps({"permissions": {"allow": ["Bash(npm test)"]}, "sandbox": {"mode": "auto-allow"}}))
    policy, _ = permission_policy(SessionOptions(cwd=project), load_settings(project))
    env = ToolEnv(project, sandbox=policy.sandbox)
    assert (await policy(BASH, {"command": "npm test", "dangerouslyDisableSandbox": True}, _call(env))).behavior == (
        "allow"
    )
    other = await policy(BASH, {"command": "npm test -- --all", "dangerouslyDisableSandbox": True}, _call(env))
    assert other.behavior == "deny"


async def test_a_star_in_an_exact_grant_never_reaches_a_driving_program_as_a_wildcard(project: Path):
    env = ToolEnv(project)
    verdict = PermissionPolicy(project).evaluate(BASH, {"command": "rm -f *.pyc && make"}, env)
    assert [str(rule) for rule in verdict.grants] == ["Bash(rm -f *.pyc)", "Bash(make)"]
    assert verdict.suggestions == ("Bash(make)",)
    loop = "for f in *; do cat $f; done"
    denied = await PermissionPolicy(project)(BASH, {"command": loop}, _call(env))
    assert f'--allowedTools "Bash({loop})"' in denied.message
    written = PermissionPolicy(project, rules=[parse_rule(f"Bash({loop})", "allow", "cliArg")])
    assert written.evaluate(BASH, {"command": loop}, env).behavior == "allow"
    assert written.evaluate(BASH, {"command": "for f in *; do rm $f; done"}, env).behavior == "ask"
