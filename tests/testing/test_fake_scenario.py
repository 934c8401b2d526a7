"""Scenario loading and defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from agentcli.testing import Scenario, load_scenario
from agentcli.testing.scenario import DropFault, HttpFault, TextSpec, ToolUseSpec, bundled_scenario_path


def test_load_from_dict_path_and_bundled_name(tmp_path: Path) -> None:
    data = {"turns": [{"content": [{"type": "text", "text": "hi"}]}]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    from_dict = load_scenario(data)
    assert load_scenario(path) == from_dict
    assert load_scenario(str(path)) == from_dict
    assert load_scenario(from_dict) is from_dict
    assert isinstance(from_dict.turns[0].content[0], TextSpec)
    demo = load_scenario("demo")
    # the demo leaves tool ids out, so every load draws fresh ones (a resumed demo never repeats an id)
    again = load_scenario(bundled_scenario_path("demo"))
    assert demo.model_dump(exclude={"turns": {"__all__": {"content": {"__all__": {"id"}}}}}) == again.model_dump(
        exclude={"turns": {"__all__": {"content": {"__all__": {"id"}}}}}
    )
    ids = [block.id for turn in demo.turns for block in turn.content if getattr(block, "type", "") == "tool_use"]
    ids_again = [block.id for turn in again.turns for block in turn.content if getattr(block, "type", "") == "tool_use"]
    assert ids and not set(ids) & set(ids_again)


def test_demo_scenario_reads_readme_then_answers() -> None:
    demo = load_scenario("demo")
    first, *_, last = demo.turns
    assert "```" in first.content[0].text
    tool = first.content[1]
    assert isinstance(tool, ToolUseSpec)
    assert (tool.name, tool.input) == ("Read", {"file_path": "README.md"})
    assert first.resolved_stop_reason() == "tool_use"
    assert last.resolved_stop_reason() == "end_turn"


def test_unknown_keys_are_rejected() -> None:
    with pytest.raises(ValidationError):
        load_scenario({"turns": [{"contents": []}]})
    with pytest.raises(ValidationError):
        load_scenario({"turns": [{"content": [{"type": "text", "txt": "x"}]}]})
    with pytest.raises(ValidationError):
        load_scenario({"turns": [{"fault": {"kind": "explode"}}]})


def test_defaults() -> None:
    scenario = Scenario.model_validate(
        {
            "turns": [
                {"content": [{"type": "tool_use", "name": "Read"}]},
                {"fault": {"kind": "http", "status": 529}},
                {"fault": {"kind": "drop"}},
            ]
        }
    )
    assert scenario.on_exhausted == "error"
    tool = scenario.turns[0].content[0]
    assert isinstance(tool, ToolUseSpec)
    assert tool.id.startswith("toolu_") and tool.input == {}
    assert scenario.turns[0].resolved_stop_reason() == "tool_use"
    assert scenario.turns[1].resolved_stop_reason() == "end_turn"
    assert isinstance(scenario.turns[1].fault, HttpFault)
    assert isinstance(scenario.turns[2].fault, DropFault) and scenario.turns[2].fault.after_events == 0
