from __future__ import annotations

from pathlib import Path

from tests.conftest import collect


async def test_memory_files_reach_the_system_prompt_outermost_first(
    fake_api, make_engine, project: Path, hermetic_home: Path
):
    (hermetic_home / "config" / "agentcli").mkdir(parents=True, exist_ok=True)
    (hermetic_home / "config" / "agentcli" / "AGENTS.md").write_text("User: answer in English.\n")
    (project.parent / "CLAUDE.md").write_text("Parent: prefer small commits.\n")
    (project / "AGENTS.md").write_text("Project: run `make test` before you finish.\n")
    (project / "CLAUDE.md").write_text("Project (Claude): tabs, not spaces.\n")
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "ok"}]}]})
    await collect(make_engine(server), "hi")
    system = server.requests[0].body["system"]
    order = [system.index(text) for text in ("User: answer", "Parent: prefer", "Project: run", "Project (Claude)")]
    assert order == sorted(order)
    assert f'<memory path="{project / "AGENTS.md"}">' in system


async def test_no_memory_files_no_section_and_system_prompt_override_keeps_memory(fake_api, make_engine, project: Path):
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "ok"}]}] * 2})
    await collect(make_engine(server), "hi")
    assert "<memory" not in server.requests[0].body["system"]
    (project / "AGENTS.md").write_text("Always say please.\n")
    await collect(make_engine(server, system_prompt="You are terse."), "hi")
    system = server.requests[1].body["system"]
    assert system.startswith("You are terse.") and "Always say please." in system


def test_long_and_unreadable_files(project: Path):
    from agentcli.context.memory import MAX_CHARS_PER_FILE, memory_files

    (project / "AGENTS.md").write_text("x" * (MAX_CHARS_PER_FILE + 10))
    (project / "CLAUDE.md").mkdir()  # a folder by that name is not a memory file
    files = [f for f in memory_files(project) if f.path.parent == project.resolve()]
    assert len(files) == 1 and files[0].truncated and len(files[0].text) == MAX_CHARS_PER_FILE
