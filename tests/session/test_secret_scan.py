"""A session that reads, prints and exports secrets from the environment, settings, files and command output, in
its own turns and a sub-agent's; afterwards no file agentcli wrote (transcript, sub-agent transcript, saved tool
output, checkpoint index, export, prompt history, debug log) holds one."""

from __future__ import annotations

import json
import secrets
import string
from pathlib import Path

import pytest

from agentcli.debuglog import record_exception
from agentcli.session.export import write_export
from agentcli.session.redact import Redactor
from agentcli.ui.history import PromptHistory, default_history_path
from agentcli.ui.rewind import attach_checkpoints, begin_prompt
from tests.conftest import collect


def _random(length: int) -> str:
    """Letters and digits, as real keys of these formats have."""
    return "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(length))


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch, project: Path) -> dict[str, str]:
    """Secrets in every place a session can meet one."""
    values = {
        "api key in env": "sk-ant-api03-" + _random(60),
        "token in env": _random(40),
        "password in --settings env": _random(24),
        "key in untrusted project settings": _random(32),
        "key in a .env file": "sk_live_" + _random(30),
        "token in a source file": "ghp_" + _random(36),
        "private key": _random(64),
    }
    monkeypatch.setenv("ANTHROPIC_API_KEY", values["api key in env"])
    monkeypatch.setenv("MY_SERVICE_TOKEN", values["token in env"])
    (project / ".agentcli").mkdir()
    (project / ".agentcli" / "settings.json").write_text(
        json.dumps({"env": {"PROJECT_SECRET_KEY": values["key in untrusted project settings"]}})
    )
    (project / ".env").write_text(f"STRIPE_SECRET_KEY={values['key in a .env file']}\nDEBUG=1\n")
    (project / "deploy.py").write_text(f'GITHUB = "{values["token in a source file"]}"\n')
    (project / "id_rsa").write_text(
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{values['private key']}\n-----END OPENSSH PRIVATE KEY-----\n"
    )
    return values


GP = "general-purpose"
SUBAGENT_COMMAND = "echo $MY_SERVICE_TOKEN; cat .env; head -c 70000 /dev/zero | tr '\\0' d; echo $MY_SERVICE_TOKEN"
"""A sub-agent's command whose output is long enough to be saved to a file, with secrets at both ends."""


def _turn(*calls: tuple[str, str, dict]) -> dict:
    return {
        "content": [
            {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
            for tool_id, name, tool_input in calls
        ]
    }


def _written_files(*roots: Path) -> list[Path]:
    return [path for root in roots for path in root.rglob("*") if path.is_file() and path.suffix != ".pyc"]


async def test_no_file_agentcli_writes_keeps_a_secret(
    fake_api, make_engine, planted, project: Path, hermetic_home: Path, tmp_path: Path
):
    token = planted["token in env"]
    # printed output long enough to be cut in the middle, with the env token split by the cut
    straddle = "head -c 14995 /dev/zero | tr '\\0' a; echo -n $MY_SERVICE_TOKEN; head -c 40000 /dev/zero | tr '\\0' b"
    server = fake_api(
        {
            "turns": [
                _turn(
                    ("t1", "Bash", {"command": "env; cat .env deploy.py id_rsa"}),
                    ("t2", "Read", {"file_path": str(project / ".env")}),
                    ("t3", "Grep", {"pattern": "sk_live|ghp_", "output_mode": "content"}),
                    ("t4", "Read", {"file_path": str(project / ".agentcli" / "settings.json")}),
                ),
                _turn(
                    ("t5", "Bash", {"command": straddle}),
                    ("t6", "Bash", {"command": "cat .env; head -c 60000 /dev/zero | tr '\\0' c"}),
                ),
                _turn(("t7", "Task", {"description": "check", "prompt": f"check {token}", "subagent_type": GP})),
                _turn(
                    ("s1", "Bash", {"command": SUBAGENT_COMMAND}), ("s2", "Read", {"file_path": str(project / ".env")})
                ),
                {
                    "content": [
                        {"type": "text", "text": f"The sub-agent saw {token} and {planted['key in a .env file']}"}
                    ]
                },
                _turn(
                    (
                        "t8",
                        "Edit",
                        {"file_path": str(project / ".env"), "old_string": "DEBUG=1", "new_string": "DEBUG=0"},
                    )
                ),
                {
                    "content": [
                        {"type": "text", "text": f"Your token is {token} and the key {planted['key in a .env file']}"}
                    ]
                },
            ]
        }
    )
    settings = json.dumps({"env": {"DEPLOY_PASSWORD": planted["password in --settings env"]}})
    engine = make_engine(server, allowed_tools=["Bash", "Read", "Grep", "Task", "Edit"], settings_flag=settings)
    attach_checkpoints(engine, project)
    env_file = (project / ".env").read_bytes()
    prompt = f"check the deploy; my token is {token}"
    begin_prompt(engine, prompt)
    messages = await collect(engine, prompt)
    assert messages[-1]["subtype"] == "success"
    sent = json.dumps([request.body for request in server.requests])
    assert planted["key in a .env file"] in sent and token in sent, "the session really met the secrets"
    assert "characters cut from the middle" in sent
    subagent_results = [json.dumps(r.body) for r in server.requests if '"tool_use_id": "s1"' in json.dumps(r.body)]
    assert subagent_results and token in subagent_results[0], "the sub-agent's command printed the token"
    assert (project / ".env").read_text().endswith("DEBUG=0\n"), "the Edit ran (a checkpoint kept the file)"

    export = project / "conversation.md"
    write_export(export, engine.messages)
    assert export.stat().st_mode & 0o777 == 0o600
    PromptHistory(default_history_path(), project).add(f"deploy with {token}")
    try:
        raise RuntimeError(f"deploy failed for {planted['password in --settings env']}")
    except RuntimeError as exc:
        assert record_exception(exc, engine.session_id) is not None

    files = _written_files(hermetic_home, project)
    kinds = {path.name for path in files}
    assert any(name.endswith(".jsonl") and name != "prompt_history.jsonl" for name in kinds), kinds
    assert "prompt_history.jsonl" in kinds and f"{engine.session_id}.log" in kinds
    assert any("tool-results" in str(path) for path in files), "long output was saved to a file"
    assert any(path.name == "s1.log" for path in files), "the sub-agent's long output too"
    assert any(path.name.startswith("agent-") and path.suffix == ".jsonl" for path in files), "a sub-agent transcript"
    assert any(path.name == "index.json" for path in files), "a checkpoint"
    # A checkpoint's copy is the user's own file as it was, to be put back byte for byte: private, not redacted.
    copies = [path for path in files if path.suffix == ".bak"]
    assert [path.read_bytes() for path in copies] == [env_file] and copies[0].stat().st_mode & 0o777 == 0o600
    planted_files = {project / name for name in (".env", "deploy.py", "id_rsa", ".agentcli/settings.json")}
    for path in files:
        if path in planted_files or path in copies:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for what, value in planted.items():
            for piece in (value, value[: len(value) // 2 + 1], value[len(value) // 2 :]):
                assert piece not in text, f"{what} ({piece[:6]}…) found in {path}"


def test_a_secret_cut_in_half_at_a_truncation_point_is_still_removed():
    secret = "sk-ant-api03-" + "Q" * 20 + "7" * 20 + "z" * 20
    redactor = Redactor([secret])
    cut = f"aaaa{secret[:30]}\n\n... [5 characters cut from the middle of the output] ...\n\n{secret[30:]}bbbb"
    assert (
        redactor.redact(cut)
        == "aaaa[REDACTED]\n\n... [5 characters cut from the middle of the output] ...\n\n[REDACTED]bbbb"
    )
