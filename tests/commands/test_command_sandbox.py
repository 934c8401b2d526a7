"""A custom command's ``!`cmd``` and ```` ```! ```` blocks run in the session's sandbox, like the model's Bash: the
real CLI in ``-p`` expands them, and what they try outside the project or in ``.git/hooks`` does not land."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.commands.test_custom import _command
from tests.messages import first_text

DONE = {"turns": [{"content": [{"type": "text", "text": "Done."}]}]}


@pytest.fixture
def outside() -> Iterator[Path]:
    place = Path("/var/tmp") / f"agentcli-escape-{uuid.uuid4().hex}"
    yield place
    place.unlink(missing_ok=True)


def test_a_users_command_with_bash_allowed_runs_its_commands_in_the_sandbox(
    run_cli, fake_api, project: Path, hermetic_home: Path, outside: Path
):
    (project / ".git" / "hooks").mkdir(parents=True)
    body = (
        "---\nallowed-tools: Bash\n---\n"
        f"Inline: !`touch {outside}; echo inline-sandbox=${{AGENTCLI_SANDBOX:+inside}}`\n"
        "Hook: !`h=hooks; echo '#!/bin/sh' > .git/$h/pre-commit`\n"
        "Block:\n```!\n"
        f"touch {outside}\n"
        "echo block-sandbox=${AGENTCLI_SANDBOX:+inside} > made-by-block\n"
        "cat made-by-block\n"
        "```\n"
        "Then report.\n"
    )
    _command(hermetic_home / ".claude" / "commands", "escape", body)
    server = fake_api(DONE)
    proc = run_cli("-p", "/escape", "--output-format", "json", server=server)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "Done."
    prompt = first_text(server.requests[0].body["messages"][0])
    assert "inline-sandbox=inside" in prompt and "block-sandbox=inside" in prompt and "```" not in prompt
    assert prompt.count("Read-only file system") >= 2 and prompt.rstrip().endswith("Then report.")
    assert not outside.exists() and not (project / ".git" / "hooks" / "pre-commit").exists()
    assert (project / "made-by-block").read_text() == "block-sandbox=inside\n"


def test_an_untrusted_projects_command_that_auto_allow_lets_run_is_contained(
    run_cli, fake_api, project: Path, outside: Path
):
    """The folder is not trusted, so its command's ``allowed-tools`` count for nothing; auto-allow runs the block
    unasked only because the sandbox contains it."""
    body = f"---\nallowed-tools: Bash\n---\n```!\ntouch {outside} inside-made\n```\n"
    _command(project / ".claude" / "commands", "build", body)
    settings = json.dumps({"sandbox": {"mode": "auto-allow"}})
    server = fake_api(DONE)
    proc = run_cli("-p", "/build", "--settings", settings, server=server)
    assert proc.returncode == 0, proc.stderr
    assert (project / "inside-made").exists() and not outside.exists()
    assert "Read-only file system" in first_text(server.requests[0].body["messages"][0])
