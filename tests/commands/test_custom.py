"""Custom slash commands from ``.claude/commands`` and ``.agentcli/commands``, in a real session."""

from __future__ import annotations

from pathlib import Path

from agentcli.commands import session_registry
from agentcli.commands.custom import load_commands, substitute
from agentcli.context.user_context import is_user_context_block
from tests.conftest import collect
from tests.messages import sent_text

TEXT = {"content": [{"type": "text", "text": "Done."}]}


def _command(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)


def test_front_matter_folders_and_precedence(project: Path, hermetic_home: Path):
    _command(hermetic_home / ".claude" / "commands", "review", "User review of $ARGUMENTS")
    _command(
        project / ".claude" / "commands" / "frontend",
        "component",
        "---\ndescription: Make a component\nargument-hint: <name>\nallowed-tools: Bash(git status:*), Read\n"
        "model: claude-haiku-5-5\n---\nCreate $1 in $2.\n",
    )
    _command(project / ".agentcli" / "commands", "review", "Project review of $ARGUMENTS")
    _command(project / ".claude" / "commands", "broken", "---\n: [\n---\nbody")
    catalog = load_commands(project)
    by_name = {command.name: command for command in catalog.commands}
    assert set(by_name) == {"review", "component"}
    assert by_name["review"].body == "Project review of $ARGUMENTS" and by_name["review"].scope == "project"
    component = by_name["component"]
    assert component.description == "Make a component (project:frontend)"
    assert component.argument_hint == "<name>" and component.model == "claude-haiku-5-5"
    assert component.allowed_tools == ("Bash(git status:*)", "Read")
    assert len(catalog.problems) == 1 and "broken.md" in catalog.problems[0]


def test_arguments_substitution():
    assert substitute("Fix issue $1 with priority $2: $ARGUMENTS", '42 "very high"') == (
        'Fix issue 42 with priority very high: 42 "very high"'
    )
    assert substitute("Summarise the diff.", "briefly") == "Summarise the diff.\n\nARGUMENTS: briefly"
    assert substitute("Missing $3 is empty", "a") == "Missing  is empty"


async def test_a_command_expands_with_bang_output_and_file_mentions(
    fake_api, make_engine, project: Path, hermetic_home: Path
):
    (project / "notes.txt").write_text("release on friday\n")
    _command(
        project / ".claude" / "commands",
        "standup",
        "---\ndescription: Project status\nallowed-tools: Bash(echo:*)\n---\n"
        "Branch says: !`echo on-main`\nForbidden: !`touch pwned`\nRead @notes.txt and report on $ARGUMENTS.",
    )
    server = fake_api({"turns": [TEXT]})
    engine = make_engine(server, trust_project=True, allowed_tools=["Read"])
    messages = await collect(engine, "/standup the release")
    assert messages[0]["slash_commands"][-1] == "standup"
    sent = [b for b in server.requests[0].body["messages"][0]["content"] if not is_user_context_block(b)]
    assert sent[0]["type"] == "text"
    prompt = sent[0]["text"]
    assert "Branch says: on-main" in prompt and "report on the release." in prompt
    assert "Forbidden: [not run:" in prompt and not (project / "pwned").exists()
    assert "release on friday" in sent[1]["text"] and "notes.txt" in sent[1]["text"]
    registry = session_registry(engine)
    assert registry.find("standup") is not None
    assert any(line.startswith("/standup") and "Project status" in line for line in registry.help_lines())
    assert ("/standup", "Project status (project)") in registry.complete("/stan")


async def test_an_untrusted_folders_command_gets_no_allowed_tools(fake_api, make_engine, project: Path):
    _command(project / ".claude" / "commands", "go", "---\nallowed-tools: Bash\n---\nOut: !`touch made`")
    server = fake_api({"turns": [TEXT]})
    await collect(make_engine(server), "/go")
    assert not (project / "made").exists()
    assert "Out: [not run:" in sent_text(server.requests[0].body["messages"][0])


async def test_a_commands_model_is_used_for_its_turn_only(fake_api, make_engine, project: Path):
    _command(project / ".claude" / "commands", "quick", "---\nmodel: claude-haiku-5-5\n---\nAnswer briefly: $ARGUMENTS")
    server = fake_api({"turns": [TEXT, TEXT]})
    engine = make_engine(server, model="claude-sonnet-5-5")
    await collect(engine, "/quick why is the sky blue")
    await collect(engine, "and at sunset?")
    assert [request.body["model"] for request in server.requests] == ["claude-haiku-5-5", "claude-sonnet-5-5"]
    assert sent_text(server.requests[0].body["messages"][0]) == "Answer briefly: why is the sky blue"
