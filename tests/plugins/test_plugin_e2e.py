"""A plugin folder in the shape of Anthropic's published examples, loaded with --plugin-dir and from settings:
its bash and python hooks (through ${CLAUDE_PLUGIN_ROOT}), agent, skill and MCP server each work."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import collect
from tests.messages import sent_text
from tests.waiting import DEADLINE_S

PLUGIN = Path(__file__).with_name("example-plugin")


def use(tool_id: str, name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]


@pytest.fixture(autouse=True)
def plugin_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_PYTHON", sys.executable)


async def test_each_part_of_the_plugin_works(fake_api, make_engine, project: Path):
    server = fake_api(
        {
            "turns": [
                {
                    "when": {"first_user_text_contains": "go"},
                    "content": [
                        use("toolu_w", "Write", file_path=str(project / "keys.secret"), content="x"),
                        use("toolu_ok", "Write", file_path=str(project / "notes.txt"), content="fine"),
                        use("toolu_skill", "Skill", skill="plugin-style"),
                        use(
                            "toolu_agent",
                            "Task",
                            description="Review",
                            prompt="review: notes",
                            subagent_type="plugin-reviewer",
                        ),
                        use("toolu_mcp", "mcp__plugin-demo__add", a=4, b=5),
                    ],
                },
                {"when": {"first_user_text_contains": "review:"}, "content": [{"type": "text", "text": "Looks fine."}]},
                {"when": {"first_user_text_contains": "go"}, "content": [{"type": "text", "text": "All done."}]},
            ]
        }
    )
    engine = make_engine(server, plugin_dirs=[str(PLUGIN)], permission_mode="bypassPermissions")
    engine.start_services()
    await engine.config.extensions["mcp"].wait_started(timeout=DEADLINE_S)
    messages = await collect(engine, "go")

    first = server.requests[0].body
    prompt = json.dumps(first["messages"][0]["content"])
    assert "House rule from the plugin: answer in haiku." in prompt  # the bash SessionStart hook ran
    blocked, written, skill, agent, mcp = results(server.requests[2].body)
    assert blocked["is_error"] and "refusing to write" in blocked["content"]  # the python PreToolUse hook
    assert not (project / "keys.secret").exists()
    assert not written.get("is_error") and (project / "notes.txt").read_text() == "fine"
    assert "PLUGIN-STYLE-BODY" in skill["content"]
    assert agent["content"] == "Looks fine."
    assert sorted(t["name"] for t in server.requests[1].body["tools"]) == ["Grep", "Read"]
    assert mcp["content"] == "4 + 5 = 9"
    assert messages[-1]["result"] == "All done."


async def test_plugins_enabled_in_settings_and_broken_ones_reported(fake_api, make_engine, tmp_path: Path):
    broken = tmp_path / "not-a-plugin"
    broken.mkdir()
    settings = json.dumps({"enabledPlugins": {str(PLUGIN): True, str(broken): True, "x@market": True}})
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "hi"}]}]})
    notices: list[str] = []
    engine = make_engine(server, settings_flag=settings, notices=notices)
    await collect(engine, "hi")
    assert "Skill" in [t["name"] for t in server.requests[0].body["tools"]]
    assert any("not a plugin folder" in n for n in notices)
    assert any("only local plugin folders are supported" in n for n in notices)


async def test_the_plugins_command_runs_as_a_slash_command(fake_api, make_engine, project: Path):
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "Hello, Ada!"}]}]})
    engine = make_engine(server, plugin_dirs=[str(PLUGIN)])
    messages = await collect(engine, "/greet Ada")
    assert "greet" in messages[0]["slash_commands"]
    assert "Greet Ada warmly, in the example plugin's style." in sent_text(server.requests[0].body["messages"][-1])
    assert messages[-1]["result"] == "Hello, Ada!"
