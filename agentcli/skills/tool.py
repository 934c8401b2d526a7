"""The ``Skill`` tool: the model sees each skill's name and description here and loads one in full by name."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agentcli.skills.catalog import SkillCatalog
from agentcli.tools.base import Tool, ToolCall, ToolFailure, ToolInput, ToolOutput


class SkillInput(ToolInput):
    skill: str = Field(description='The skill name, e.g. "pdf" or "release-notes"')


class SkillTool(Tool):
    name = "Skill"
    input_model = SkillInput

    def __init__(self, catalog: SkillCatalog) -> None:
        self.catalog = catalog

    @property
    def description(self) -> str:  # type: ignore[override]
        listed = "\n".join(
            f"<skill>\n<name>{skill.name}</name>\n<description>{skill.description}</description>\n</skill>"
            for skill in self.catalog.skills.values()
        )
        return (
            "Load a skill: specialised instructions (and the files beside them) for a kind of task. When a task "
            "matches a skill's description, invoke it by name before starting; its instructions then apply. Do "
            "not invoke a skill that is already loaded in this conversation.\n\n"
            f"<available_skills>\n{listed}\n</available_skills>"
        )

    def is_read_only(self, tool_input: Any) -> bool:
        return True

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        skill = self.catalog.skills.get(tool_input.skill.strip().lstrip("/"))
        if skill is None:
            names = ", ".join(self.catalog.skills) or "none"
            raise ToolFailure(f"Unknown skill: {tool_input.skill}. Available skills: {names}")
        try:
            body = skill.body()
        except OSError as exc:
            raise ToolFailure(f"Could not read {skill.path}: {exc.strerror or exc}") from None
        text = (
            f"<command-name>{skill.name}</command-name>\nBase directory for this skill: {skill.path.parent}\n\n{body}"
        )
        return ToolOutput(text, structured={"success": True, "commandName": skill.name, "path": str(skill.path)})
