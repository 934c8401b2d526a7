from __future__ import annotations

import json
from pathlib import Path

from agentcli.context.nested_memory import NestedMemory
from tests.conftest import collect


def test_sub_folder_memory_comes_once_outermost_first(project: Path, tmp_path: Path):
    (project / "AGENTS.md").write_text("Root rules.\n")
    (project / "src" / "AGENTS.md").write_text("Src rules. See @notes.md\n")
    (project / "src" / "notes.md").write_text("Imported note.\n")
    (project / "src" / "deep").mkdir()
    (project / "src" / "deep" / "CLAUDE.md").write_text("Deep rules.\n")
    (project / "src" / "deep" / "x.py").write_text("x = 1\n")
    memory = NestedMemory({(project / "AGENTS.md").resolve()})

    first = memory.reminder_for({"file_path": str(project / "src" / "deep" / "x.py")}, project)
    assert first is not None and first.startswith("<system-reminder>\n")
    order = [first.index(text) for text in ("Src rules.", "Imported note.", "Deep rules.")]
    assert order == sorted(order) and "Root rules." not in first
    assert memory.reminder_for({"file_path": str(project / "src" / "app.py")}, project) is None
    assert memory.reminder_for({"file_path": "src/deep/x.py"}, project) is None
    assert memory.reminder_for({"file_path": str(project / "README.md")}, project) is None
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "AGENTS.md").write_text("Not ours.\n")
    assert memory.reminder_for({"file_path": str(tmp_path / "elsewhere" / "f.py")}, project) is None
    assert memory.reminder_for({"pattern": "*.py"}, project) is None
    assert memory.fresh().loaded == memory.loaded and memory.fresh() is not memory


async def test_first_read_below_a_folder_brings_its_memory_once(fake_api, make_engine, project: Path):
    (project / "src" / "AGENTS.md").write_text("In src: keep functions pure.\n")
    read = {"file_path": str(project / "src" / "app.py")}
    turns = [
        {"content": [{"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": read}]} for n in range(2)
    ] + [{"content": [{"type": "text", "text": "done"}]}]
    server = fake_api({"turns": turns})
    engine = make_engine(server)
    assert (await collect(engine, "read it twice"))[-1]["subtype"] == "success"
    first, second = (m["content"][0] for m in engine.messages if m["role"] == "user" and m is not engine.messages[0])
    assert first["tool_use_id"] == "toolu_0" and isinstance(first["content"], list)
    assert "def add" in first["content"][0]["text"]
    assert "In src: keep functions pure." in first["content"][-1]["text"]
    assert "In src" not in json.dumps(second)
    # the system prompt never carried it, and the user context did not either
    assert "In src" not in json.dumps(server.requests[-1].body["system"])
    assert "In src" not in json.dumps(engine.messages[0])
