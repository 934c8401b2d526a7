"""After a compaction the model goes on with what it was working with, through the real CLI: the skill it loaded,
plan mode, the nested memory file of the folder it worked in and the todo list are put back — once each, after an
automatic compaction, and again after ``--continue`` and ``/compact`` in a new process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcli.context.compact_messages import SUMMARY_HEADER, is_summary_request
from agentcli.context.reattach import PLAN_MODE
from tests.context.sessions import answer_turn, own, read_turn, setup_project, summary_turn

SKILL_BODY = "SKILL-BODY: count the lines with wc -l, never by hand."
NESTED_RULE = "NESTED-RULE: the data files are read-only fixtures."
TODO = "Count the lines of every data file"


def _project(project: Path) -> None:
    setup_project(project)
    (project / "data" / "AGENTS.md").write_text(f"# Data\n\n{NESTED_RULE}\n", encoding="utf-8")
    skill = project / ".agentcli" / "skills" / "counting" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(f"---\nname: counting\ndescription: Count lines\n---\n\n{SKILL_BODY}\n", encoding="utf-8")


def _tool(tool_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return own({"content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]})


def _script(project: Path) -> dict[str, Any]:
    todo = {"content": TODO, "status": "in_progress", "activeForm": "Counting the lines"}
    turns = [
        _tool("toolu_skill", "Skill", {"skill": "counting"}),
        _tool("toolu_todo", "TodoWrite", {"todos": [todo]}),
        *(read_turn(project, n) for n in range(1, 9)),
        answer_turn("Counted: 150 lines each. PINEAPPLE"),
        answer_turn("Still 150 each. PINEAPPLE"),
    ]
    summaries = [summary_turn(f"SUMMARY-{k}: the user counts lines in the data files.") for k in range(1, 10)]
    return {"turns": turns + summaries}


def _run(run_cli, server, *args: str) -> None:
    proc = run_cli("-p", "--permission-mode", "plan", *args, "--output-format", "json", server=server)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])


def _first_after_summaries(server) -> list[list[dict[str, Any]]]:
    """The history each request right after a summary request started from."""
    requests = [r for r in server.requests if r.status == 200]
    return [
        requests[n + 1].body["messages"]
        for n, r in enumerate(requests[:-1])
        if is_summary_request(r.body) and not is_summary_request(requests[n + 1].body)
    ]


def _continuation_text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(block.get("text", "")) for block in messages[0]["content"])


def test_what_the_model_worked_with_comes_back_after_each_compaction(run_cli, fake_api, project: Path):
    _project(project)
    server = fake_api(_script(project))
    _run(run_cli, server, "P1: count the lines of the data files")
    automatic = _first_after_summaries(server)
    assert automatic, "the reads compacted the conversation"
    _run(run_cli, server, "--continue", "/compact")
    _run(run_cli, server, "--continue", "P2: and again?")
    histories = _first_after_summaries(server)
    assert len(histories) > len(automatic), "the /compact after --continue"
    for messages in histories:
        first = _continuation_text(messages)
        assert first.count(SUMMARY_HEADER) == 1
        sent = json.dumps(messages, ensure_ascii=False)
        assert sent.count(SKILL_BODY) == 1, "the skill is put back, once"
        assert PLAN_MODE in first
        assert f"[in_progress] {TODO}" in first
    assert NESTED_RULE in json.dumps(automatic[0], ensure_ascii=False), "the folder's memory file, in the process"
