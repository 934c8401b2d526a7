"""Running a custom command: ``/name args`` becomes the prompt its file describes.

``!`command``` and a fenced block opened with ```` ```! ```` run through the Bash tool and are replaced by their
output; ``@path`` mentions a file whose content goes along as context. Both go through the session's permission
policy, with the command's ``allowed-tools`` as extra allow rules (ignored for an untrusted folder's commands), so
a command file can't run what the user wouldn't allow; the commands run in the session's tool environment, so in
its sandbox, like the model's.
"""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agentcli.commands.custom import CustomCommand, match_command, substitute
from agentcli.tools.base import ToolCall, ToolEnv, ToolFailure, ToolRegistry
from agentcli.tools.permissions import CanUseTool, PermissionDecision, PermissionPolicy
from agentcli.tools.rules import InvalidRule, parse_rule_args

Expand = Callable[[str], Awaitable[tuple[str, list[str]]]]
_BANG = re.compile(r"!`(?P<inline>[^`\n]+)`|^```!\s*\n(?P<block>.*?)\n```[ \t]*$", re.MULTILINE | re.DOTALL)
_MENTION = re.compile(r"(?<![\w`@])@([^\s`'\"]+)")


class CommandRunner:
    """The engine's ``expand_prompt`` for a session with custom commands (the next expander, MCP's, runs after)."""

    def __init__(
        self,
        commands: list[CustomCommand],
        *,
        registry: ToolRegistry,
        tool_env: ToolEnv,
        policy: PermissionPolicy | None,
        can_use_tool: CanUseTool,
        trusted: bool,
        then: Expand | None = None,
    ) -> None:
        self.commands = commands
        self.registry = registry
        self.tool_env = tool_env
        self.policy = policy
        self.can_use_tool = can_use_tool
        self.trusted = trusted
        self.then = then
        self.turn_model: str | None = None
        """The ``model`` of the command this turn runs (None: the session's)."""

    async def __call__(self, text: str) -> tuple[str, list[str]]:
        matched = match_command(self.commands, text)
        context: list[str] = []
        self.turn_model = matched[0].model if matched is not None else None
        if matched is not None:
            command, arguments = matched
            text = await self._run_bangs(command, substitute(command.body, arguments))
            context = await self._mentions(command, text)
        if self.then is not None:
            text, more = await self.then(text)
            context += more
        return text, context

    def _permission(self, command: CustomCommand) -> CanUseTool:
        """The session's check, plus the command's ``allowed-tools`` (only from a trusted folder or the user's)."""
        if not command.allowed_tools or self.policy is None or (command.scope == "project" and not self.trusted):
            return self.can_use_tool
        try:
            extra = parse_rule_args(command.allowed_tools, "allow", "command")
        except InvalidRule:
            return self.can_use_tool
        # Judges only; the session's policy keeps the sandbox (and what its Read deny rules hide there).
        widened = dataclasses.replace(self.policy, rules=[*self.policy.rules, *extra], sandbox=None, ask=None)
        gate = self.can_use_tool

        async def check(tool: Any, tool_input: dict[str, Any], call: ToolCall) -> PermissionDecision:
            verdict = widened.evaluate(tool, tool_input, call.env)
            if verdict.behavior == "allow":
                return PermissionDecision("allow", checked_path=verdict.path)
            return await gate(tool, tool_input, call)

        return check

    async def _use(self, command: CustomCommand, name: str, tool_input: dict[str, Any]) -> str:
        """Run one tool for the command, under permissions; the text it gives (a refusal in words)."""
        tool = self.registry.get(name)
        if tool is None:
            return f"[{name} is not available in this session]"
        call = ToolCall(self.tool_env, f"toolu_cmd_{uuid.uuid4().hex[:16]}")
        decision = await self._permission(command)(tool, tool_input, call)
        if decision.behavior != "allow":
            return f"[not run: {decision.message or 'permission denied'}]"
        call.checked_path = decision.checked_path
        try:
            parsed = tool.input_model.model_validate(decision.updated_input or tool_input)
            output = await tool.call(parsed, call)
        except ToolFailure as exc:
            return f"[failed: {exc}]"
        content = output.content
        if isinstance(content, list):
            return "\n".join(str(block.get("text", "")) for block in content if isinstance(block, dict))
        return content

    async def _run_bangs(self, command: CustomCommand, text: str) -> str:
        parts: list[str] = []
        last = 0
        for match in _BANG.finditer(text):
            script = match.group("inline") or match.group("block")
            parts += [text[last : match.start()], await self._use(command, "Bash", {"command": script})]
            last = match.end()
        return "".join([*parts, text[last:]])

    async def _mentions(self, command: CustomCommand, text: str) -> list[str]:
        blocks = []
        for mention in dict.fromkeys(_MENTION.findall(text)):
            path = Path(mention).expanduser()
            path = path if path.is_absolute() else self.tool_env.project_dir / path
            if not path.is_file():
                continue
            content = await self._use(command, "Read", {"file_path": str(path)})
            blocks.append(f'<file path="{path}">\n{content}\n</file>')
        return blocks
