"""Agent definitions: Markdown files with front matter (``name``, ``description``, ``tools``, ``model``) whose body is
the agent's system prompt, in Claude Code's format and folders, plus the built-in general-purpose agent.

Later sources override earlier ones by name: built-in, the user's folders (``~/.claude/agents``,
``<config>/agents``), plugins, the project's (``.claude/agents``, ``.agentcli/agents``), then agents passed by
an SDK client.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.config.frontmatter import FrontMatterError, name_list, read_markdown
from agentcli.config.paths import extension_folders

MODEL_ALIASES = {"sonnet": "claude-sonnet-5-5", "opus": "claude-opus-5-5", "haiku": "claude-haiku-5-5"}
GENERAL_PURPOSE = "general-purpose"
_GENERAL_PROMPT = (
    "You are an agent for agentcli, a terminal coding agent. Given the user's message, use the tools available to "
    "complete the task. Do what has been asked; nothing more, nothing less. When you complete the task, respond "
    "with a concise report of what was done and what you found: the caller sees only your final message, so put "
    "everything it needs there (file paths as absolute paths, relevant code snippets, conclusions).\n"
    "- Search broadly when you do not know where something lives; use Read when you know the path.\n"
    "- Never create files unless the task requires it; prefer editing existing ones."
)


@dataclass(frozen=True)
class AgentDefinition:
    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    """Tool names the agent may use; None means every tool of the session (except Task)."""
    model: str | None = None
    """A model id, an alias (sonnet, opus, haiku), or None / ``inherit`` for the session's model."""
    source: str = "built-in"

    def resolved_model(self, session_model: str) -> str:
        if not self.model or self.model == "inherit":
            return session_model
        return MODEL_ALIASES.get(self.model, self.model)


BUILT_IN = AgentDefinition(
    GENERAL_PURPOSE,
    "General-purpose agent for researching complex questions, searching for code, and executing multi-step "
    "tasks. When you are searching for a keyword or file and are not confident you will find the right match "
    "in the first few tries, use this agent to perform the search for you.",
    _GENERAL_PROMPT,
)


def read_agent(path: Path, source: str) -> AgentDefinition:
    document = read_markdown(path)
    meta = document.meta
    name = str(meta.get("name") or path.stem).strip()
    description = str(meta.get("description") or "").strip()
    if not description:
        raise FrontMatterError(f'{path}: an agent needs a description (front matter key "description")')
    tools = name_list(meta.get("tools"))
    model = meta.get("model")
    return AgentDefinition(
        name,
        description,
        document.body.strip() or _GENERAL_PROMPT,
        tuple(tools) if tools is not None else None,
        str(model) if model else None,
        f"{source}: {path}",
    )


def agents_in(folder: Path, source: str, problems: list[str]) -> list[AgentDefinition]:
    found: list[AgentDefinition] = []
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*.md")):
        try:
            found.append(read_agent(path, source))
        except (OSError, UnicodeDecodeError, FrontMatterError) as exc:
            problems.append(str(exc) if isinstance(exc, FrontMatterError) else f"{path}: {exc}")
    return found


def from_sdk(agents: dict[str, Any]) -> list[AgentDefinition]:
    """``initialize.agents`` of the SDK protocol: ``{name: {description, prompt, tools?, model?}}``."""
    out = []
    for name, spec in agents.items():
        tools = name_list(spec.get("tools"))
        out.append(
            AgentDefinition(
                name,
                str(spec.get("description", "")),
                str(spec.get("prompt", "")),
                tuple(tools) if tools is not None else None,
                spec.get("model"),
                "sdk",
            )
        )
    return out


@dataclass
class AgentCatalog:
    """The session's agents by name."""

    agents: dict[str, AgentDefinition]
    problems: list[str]

    def get(self, name: str) -> AgentDefinition | None:
        return self.agents.get(name)

    def add(self, definitions: list[AgentDefinition]) -> None:
        for definition in definitions:
            self.agents[definition.name] = definition


def discover_agents(project_dir: Path, plugin_folders: list[tuple[str, Path]] | None = None) -> AgentCatalog:
    catalog = AgentCatalog({BUILT_IN.name: BUILT_IN}, [])
    folders = extension_folders(project_dir, "agents")
    for source, folder in [*folders[:2], *(plugin_folders or []), *folders[2:]]:
        catalog.add(agents_in(folder, source, catalog.problems))
    return catalog
