"""What a compaction puts back: skills found in the history (and in an earlier continuation), bounded; nested
memory files that do not fit are sent again later."""

from __future__ import annotations

from pathlib import Path

from agentcli.context.compact_messages import continuation_message
from agentcli.context.memory import MemoryFile
from agentcli.context.nested_memory import NestedMemory
from agentcli.context.reattach import invoked_skills


def _skill_call(tool_id: str, name: str, body: str, *, error: bool = False) -> list[dict]:
    text = f"<command-name>{name}</command-name>\nBase directory for this skill: /s/{name}\n\n{body}"
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": tool_id, "name": "Skill", "input": {}}]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": error}],
        },
    ]


def test_skills_are_found_once_each_and_survive_the_next_compaction():
    history = [
        {"role": "user", "content": "go"},
        *_skill_call("t1", "alpha", "ALPHA v1"),
        *_skill_call("t2", "beta", "BETA"),
        *_skill_call("t3", "alpha", "ALPHA v2"),
        *_skill_call("t4", "gamma", "Unknown skill", error=True),
    ]
    found = invoked_skills(history)
    assert [s.splitlines()[0] for s in found] == [
        "<command-name>beta</command-name>",
        "<command-name>alpha</command-name>",
    ]
    assert "ALPHA v2" in found[1]
    first = continuation_message("S", ["go"], todos=[], read_files=[], tail=[], budget_tokens=4_000, skills=found)
    assert invoked_skills([first, {"role": "user", "content": "next"}]) == found


def test_skills_are_bounded_and_the_latest_kept():
    skills = [f"<command-name>s{n}</command-name>\n" + "w" * 6_000 for n in range(10)]
    first = continuation_message("S", [], todos=[], read_files=[], tail=[], budget_tokens=4_000, skills=skills)
    kept = invoked_skills([first])
    assert kept and len(kept) < len(skills) and kept[-1] == skills[-1]


def test_memory_files_left_out_of_a_continuation_are_sent_again(tmp_path: Path):
    small, large = tmp_path / "a" / "AGENTS.md", tmp_path / "b" / "AGENTS.md"
    memory = NestedMemory()
    memory.sent = [MemoryFile(small, "short rule", False), MemoryFile(large, "long rule " * 2_000, False)]
    memory.loaded = {small.resolve(), large.resolve()}
    first = continuation_message("S", [], todos=[], read_files=[], tail=[], budget_tokens=2_000, memory=memory.sent)
    held = "".join(block["text"] for block in first["content"])
    assert "short rule" in held and "long rule" not in held
    memory.keep_only(lambda item: f'<memory path="{item.path}"' in held)
    assert memory.loaded == {small.resolve()} and [item.path for item in memory.sent] == [small]
