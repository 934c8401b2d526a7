from __future__ import annotations

from pathlib import Path

from agentcli.api.client import Credentials
from agentcli.bootstrap import SessionOptions, build_engine
from agentcli.context.memory import MAX_IMPORT_DEPTH, import_targets, memory_files
from agentcli.context.user_context import HEAD, is_user_context_block
from tests.conftest import collect


def _user_context(body: dict) -> str:
    """The text of the user-context block of a request (it heads the first user message)."""
    first = body["messages"][0]
    assert sum(map(is_user_context_block, first["content"])) == 1 and is_user_context_block(first["content"][0])
    return str(first["content"][0]["text"])


async def test_memory_files_reach_the_user_context_outermost_first(
    fake_api, make_engine, project: Path, hermetic_home: Path
):
    (hermetic_home / ".claude").mkdir()
    (hermetic_home / ".claude" / "CLAUDE.md").write_text("Claude user: no emoji.\n")
    (hermetic_home / "config" / "agentcli").mkdir(parents=True, exist_ok=True)
    (hermetic_home / "config" / "agentcli" / "AGENTS.md").write_text("User: answer in English.\n")
    (project.parent / "CLAUDE.md").write_text("Parent: prefer small commits.\n")
    (project / "AGENTS.md").write_text("Project: run `make test` before you finish.\n")
    (project / "CLAUDE.md").write_text("Project (Claude): tabs, not spaces.\n")
    (project / "CLAUDE.local.md").write_text("Mine, not committed: my sandbox URL is local.test.\n")
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "ok"}]}]})
    await collect(make_engine(server), "hi")
    body = server.requests[0].body
    context = _user_context(body)
    texts = ("Claude user: no", "User: answer", "Parent: prefer", "Project: run", "Project (Claude)", "Mine, not")
    order = [context.index(text) for text in texts]
    assert order == sorted(order)
    assert f'<memory path="{project.resolve() / "AGENTS.md"}">' in context
    assert context.startswith(f"<system-reminder>\n{HEAD}") and f"Working directory: {project}" in context
    system = "".join(block["text"] for block in body["system"])
    assert not any(text in system for text in texts) and str(project) not in system


async def test_system_prompt_is_the_same_in_every_project(fake_api, make_engine, project: Path, tmp_path: Path):
    (project / "AGENTS.md").write_text("Always say please.\n")
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "CLAUDE.md").write_text("Never say please.\n")
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "ok"}]}] * 2})
    await collect(make_engine(server), "hi")
    elsewhere = build_engine(SessionOptions(cwd=other), Credentials(api_key="test-key", base_url=server.base_url))
    try:
        await collect(elsewhere, "hi")
    finally:
        await elsewhere.aclose()
    first, second = (request.body for request in server.requests)
    assert first["system"] == second["system"] and first["tools"] == second["tools"]
    assert "Always say please." in _user_context(first) and "Never say please." in _user_context(second)


async def test_system_prompt_override_keeps_memory_and_drops_the_environment(fake_api, make_engine, project: Path):
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "ok"}]}] * 3})
    await collect(make_engine(server, system_prompt="You are terse."), "hi")
    assert server.requests[0].body["system"][0]["text"] == "You are terse."
    assert server.requests[0].body["messages"][0]["content"] == [
        {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
    ]  # no memory files and no environment: nothing to add
    (project / "AGENTS.md").write_text("Always say please.\n")
    await collect(make_engine(server, system_prompt="You are terse."), "hi")
    body = server.requests[1].body
    assert body["system"][0]["text"] == "You are terse."
    assert "Always say please." in _user_context(body) and "Working directory" not in _user_context(body)
    await collect(make_engine(server, append_system_prompt="Speak like a pirate."), "hi")
    system = server.requests[2].body["system"][0]["text"]
    assert system.startswith("You are agentcli") and system.endswith("Speak like a pirate.")


def test_imports_nest_four_levels_relative_to_the_importing_file(project: Path):
    (project / "docs").mkdir()
    (project / "AGENTS.md").write_text("Top. See @docs/level1.md for more.\n")
    for level in range(1, MAX_IMPORT_DEPTH + 2):
        following = f"@level{level + 1}.md" if level <= MAX_IMPORT_DEPTH else ""
        (project / "docs" / f"level{level}.md").write_text(f"Level {level}. {following}\n")
    files = [f for f in memory_files(project) if f.path.resolve().is_relative_to(project.resolve())]
    names = [f.path.name for f in files]
    assert names == ["AGENTS.md", *[f"level{n}.md" for n in range(1, MAX_IMPORT_DEPTH + 1)]]
    assert files[2].imported_by == project / "docs" / "level1.md"


def test_import_cycles_are_cut_and_missing_files_skipped(project: Path, hermetic_home: Path):
    (project / "AGENTS.md").write_text("@a.md @missing.md @a.md\n")
    (project / "a.md").write_text("A imports @b.md\n")
    (project / "b.md").write_text("B imports @a.md and @AGENTS.md again, and @~/home-notes.md\n")
    (hermetic_home / "home-notes.md").write_text("From home.\n")
    files = memory_files(project, trusted=True)
    names = [f.path.name for f in files if f.path.name != "CLAUDE.md"]
    assert names == ["AGENTS.md", "a.md", "b.md", "home-notes.md"]


def test_imports_in_code_and_addresses_are_not_imports(tmp_path: Path):
    text = (
        "Write to me@example.com.\n"
        "Run `ls @notes.md` first.\n"
        "```\n@inside-fence.md\n```\n"
        "~~~python\n@decorator\n~~~\n"
        "Real: @real.md, and @./other\\ name.md\n"
    )
    assert import_targets(text, tmp_path) == [tmp_path / "real.md", tmp_path / "other name.md"]


def test_untrusted_project_imports_stay_inside_its_folder(project: Path, tmp_path: Path):
    secret = tmp_path / "outside.md"
    secret.write_text("Outside the project.\n")
    (project / "AGENTS.md").write_text(f"@{secret}\n@inside.md\n")
    (project / "inside.md").write_text("Inside.\n")
    untrusted = [f.path.name for f in memory_files(project)]
    assert "inside.md" in untrusted and "outside.md" not in untrusted
    assert "outside.md" in [f.path.name for f in memory_files(project, trusted=True)]


def test_long_and_unreadable_files(project: Path):
    from agentcli.context.memory import MAX_CHARS_PER_FILE

    (project / "AGENTS.md").write_text("x" * (MAX_CHARS_PER_FILE + 10))
    (project / "CLAUDE.md").mkdir()  # a folder by that name is not a memory file
    files = [f for f in memory_files(project) if f.path.parent == project.resolve()]
    assert len(files) == 1 and files[0].truncated and len(files[0].text) == MAX_CHARS_PER_FILE


async def test_a_read_deny_rule_keeps_an_imported_file_from_the_model(fake_api, make_engine, project: Path):
    (project / "AGENTS.md").write_text("Rules. Also @secrets.md and @notes.md\n")
    (project / "secrets.md").write_text("TOKEN=hunter2\n")
    (project / "notes.md").write_text("Public note.\n")
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "ok"}]}]})
    await collect(make_engine(server, disallowed_tools=["Read(./secrets.md)"]), "hi")
    context = _user_context(server.requests[0].body)
    assert "Public note." in context and "hunter2" not in context
