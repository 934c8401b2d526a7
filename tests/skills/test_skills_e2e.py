"""Skills end to end: discovered at start, listed to the model by name and description only, loaded in full when
the model invokes the Skill tool."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import collect


def write_skill(folder: Path, name: str, description: str, body: str) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n", encoding="utf-8")
    return path


async def test_skills_are_listed_briefly_and_loaded_on_demand(
    fake_api, make_engine, project: Path, hermetic_home: Path
):
    write_skill(
        project / ".claude" / "skills",
        "release-notes",
        "Write release notes from the git log",
        "SECRET-BODY: group changes by Added, Changed, Fixed.",
    )
    write_skill(project / ".agentcli" / "skills", "api-review", "Review an HTTP API design", "Check the verbs.")
    write_skill(hermetic_home / ".claude" / "skills", "personal", "The user's own habits", "Prefer tabs.")
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        {"type": "tool_use", "id": "toolu_skill", "name": "Skill", "input": {"skill": "release-notes"}}
                    ]
                },
                {"content": [{"type": "tool_use", "id": "toolu_none", "name": "Skill", "input": {"skill": "nope"}}]},
                {"content": [{"type": "text", "text": "Notes written."}]},
            ]
        }
    )
    engine = make_engine(server)
    messages = await collect(engine, "write the release notes")

    skill_tool = next(t for t in server.requests[0].body["tools"] if t["name"] == "Skill")
    for name, description in (
        ("release-notes", "Write release notes from the git log"),
        ("api-review", "Review an HTTP API design"),
        ("personal", "The user's own habits"),
    ):
        assert f"<name>{name}</name>\n<description>{description}</description>" in skill_tool["description"]
    assert "SECRET-BODY" not in str(server.requests[0].body)
    [loaded] = [b for b in server.requests[1].body["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert "SECRET-BODY: group changes by Added, Changed, Fixed." in loaded["content"]
    assert f"Base directory for this skill: {project / '.claude' / 'skills' / 'release-notes'}" in loaded["content"]
    [unknown] = [b for b in server.requests[2].body["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert unknown["is_error"] and "Unknown skill: nope" in unknown["content"]
    assert messages[-1]["result"] == "Notes written."


async def test_no_skill_tool_without_skills_and_broken_skills_are_reported(fake_api, make_engine, project: Path):
    broken = project / ".claude" / "skills" / "broken" / "SKILL.md"
    broken.parent.mkdir(parents=True)
    broken.write_text("---\nname: broken\n---\nno description\n", encoding="utf-8")
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "hi"}]}]})
    options_notices: list[str] = []
    engine = make_engine(server, notices=options_notices)
    await collect(engine, "hi")
    assert "Skill" not in [t["name"] for t in server.requests[0].body["tools"]]
    assert any("a skill needs a description" in notice for notice in options_notices)
