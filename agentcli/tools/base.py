"""The tool interface: what a tool declares, what it receives, what it returns.

Inputs are pydantic models (they produce the JSON Schema the model reads and validate what it sends); results
carry both the content for the model and a structured record for faces and hooks (``tool_use_result``).
"""

from __future__ import annotations

import asyncio
import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

if TYPE_CHECKING:
    from agentcli.context.nested_memory import NestedMemory
    from agentcli.tools.sandbox import Sandbox


class ToolInput(BaseModel):
    """Base for tool inputs: strict types and no unknown keys, as the model is told in the schema."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _encodable(cls, data: Any) -> Any:
        """Refuse text no file or command can hold (a lone surrogate is legal JSON), before anything is touched."""
        problem = unencodable_field(data)
        if problem:
            raise ValueError(problem)
        return data


def unencodable_field(data: Any, where: str = "") -> str | None:
    """Where ``data`` holds a string that is not valid Unicode text (a lone surrogate), or None."""
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError as exc:
            name = f"`{where}` " if where else ""
            return (
                f"the parameter {name}holds U+{ord(data[exc.start]):04X} at character {exc.start}, a lone surrogate "
                "that no file or command can hold; send valid Unicode text"
            )
        return None
    if isinstance(data, dict):
        items: Any = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        return None
    for key, value in items:
        found = unencodable_field(value, f"{where}.{key}" if where else str(key))
        if found:
            return found
    return None


@dataclass(slots=True)
class FileSnapshot:
    """What a file looked like when the model last read or wrote it (Edit/Write refuse stale files)."""

    mtime_ns: int
    size: int
    content: str | None = None


@dataclass
class SessionToolState:
    """State that tools share across one session: files read, the task list, the shell's directory."""

    read_files: dict[str, FileSnapshot] = field(default_factory=dict)
    todos: list[dict[str, Any]] = field(default_factory=list)
    shell_cwd: Path | None = None
    shells: Any = None
    """The session's :class:`agentcli.tools.background.BackgroundShells` (shared with its sub-agents)."""
    memory: NestedMemory | None = None
    """Memory files sent so far; a file a tool reads or edits brings its sub-folders' memory files along."""

    def for_subagent(self) -> SessionToolState:
        """A sub-agent's own state: it reads files and keeps a task list for itself and starts in the project
        folder, but its background shells are the session's (listed, and stopped when the session ends)."""
        return SessionToolState(shells=self.shells, memory=self.memory.fresh() if self.memory is not None else None)


@dataclass
class ToolEnv:
    """Session-wide context every tool call gets.

    The session builds one; everything else that runs tools (sub-agents) derives theirs with :meth:`for_subagent`,
    so what confines and records the session's tools cannot be left out of a child's."""

    project_dir: Path
    state: SessionToolState = field(default_factory=SessionToolState)
    env: dict[str, str] = field(default_factory=dict)
    """Extra environment variables (from settings) for commands tools run."""
    scratch_dir: Path | None = None
    """Where oversized results are written; None keeps them inline (truncated)."""
    sandbox: Sandbox | None = None
    """The session's sandbox for shell commands; None runs them unconfined."""
    read_denied: Callable[[Path], bool] | None = None
    """Whether a ``Read(…)`` deny rule covers a file: searches (Grep, Glob) leave such files out of their results."""
    before_write: Callable[[Path, Path], None] | None = None
    """Called (in a thread) with a file's path as given and the file it is (symlinks resolved, as the permission
    check judged it) just before a tool that changes it runs (checkpoints keep what it was)."""

    def for_subagent(self) -> ToolEnv:
        """The environment a sub-agent's tools get: the same sandbox, ``Read(…)`` deny filter, checkpoints,
        settings environment and scratch folder as this one (every field is carried over, including ones added
        later), with a state of its own. Derive it when the sub-agent starts, so checkpoints attached after the
        session was built are the child's too."""
        return dataclasses.replace(self, state=self.state.for_subagent())


@dataclass
class ToolCall:
    """One invocation: the session context plus what belongs to this call alone."""

    env: ToolEnv
    tool_use_id: str
    report: Callable[[str], None] = lambda _text: None
    """Report progress (for example the output so far); faces show it live."""
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    nest: Callable[[Any], None] = lambda _event: None
    """Hand the session an :class:`agentcli.events.NestedMessage` (a sub-agent's turns, shown under this call)."""
    checked_path: Path | None = None
    """The file the permission check judged for this call, symlinks resolved: file tools change that file and no
    other, so a symlink swapped in after the check cannot redirect them (None: no check named a file)."""


@dataclass(slots=True)
class ToolOutput:
    """A tool's answer: ``content`` goes to the model, ``structured`` to faces, hooks and the transcript."""

    content: str | list[dict[str, Any]]
    is_error: bool = False
    structured: dict[str, Any] | None = None


class ToolFailure(Exception):
    """Raised inside a tool for an expected failure; becomes an is_error tool_result with this message."""


class Tool(ABC):
    """A capability the model can call. Subclasses set the class attributes and implement :meth:`call`."""

    name: ClassVar[str]
    description: ClassVar[str]
    input_model: ClassVar[type[ToolInput]]

    def is_read_only(self, tool_input: Any) -> bool:
        return False

    def is_concurrency_safe(self, tool_input: Any) -> bool:
        """True when this call may run alongside others (read-only work, usually)."""
        return self.is_read_only(tool_input)

    def target_path(self, tool_input: Any) -> str | None:
        """The file or folder this call touches, for permission rules; None when it touches none."""
        return None

    @abstractmethod
    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput: ...

    def api_schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": json_schema(self.input_model)}


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema in the plain shape models know from Claude Code: no titles, ``$ref``s inlined, and
    an optional field shown as its type (not ``anyOf [type, null]`` with ``default: null``)."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})
    simplified: dict[str, Any] = _simplify(_strip_titles(schema), _strip_titles(definitions))
    return simplified


def _simplify(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_simplify(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        merged = {**definitions[ref.removeprefix("#/$defs/")], **{k: v for k, v in node.items() if k != "$ref"}}
        return _simplify(merged, definitions)
    options = node.get("anyOf")
    if isinstance(options, list) and "default" in node and node["default"] is None:
        kept = [option for option in options if option != {"type": "null"}]
        if len(kept) == 1:
            rest = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
            return _simplify({**kept[0], **rest}, definitions)
    return {key: _simplify(value, definitions) for key, value in node.items()}


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_titles(v) for k, v in node.items() if k != "title" or not isinstance(v, str)}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


_EXPECTED = {
    "string_type": "string",
    "int_type": "number",
    "int_from_float": "number",
    "float_type": "number",
    "bool_type": "boolean",
    "list_type": "array",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def format_validation_error(tool_name: str, error: ValidationError) -> str:
    """Say what is wrong with a tool input the way the model best understands it (one line per issue)."""
    missing: list[str] = []
    unexpected: list[str] = []
    mismatched: list[str] = []
    other: list[str] = []
    for issue in error.errors():
        loc = _path(tuple(issue["loc"]))
        kind = issue["type"]
        if kind == "missing":
            missing.append(f"The required parameter `{loc}` is missing")
        elif kind == "extra_forbidden":
            unexpected.append(f"An unexpected parameter `{loc}` was provided")
        elif kind in _EXPECTED:
            mismatched.append(
                f"The parameter `{loc}` type is expected as `{_EXPECTED[kind]}` "
                f"but provided as `{_json_type(issue.get('input'))}`"
            )
        elif not loc:
            text = str(issue["msg"]).removeprefix("Value error, ")
            other.append(text[:1].upper() + text[1:])
        else:
            other.append(f"The parameter `{loc}` is invalid: {issue['msg']}")
    parts = missing + unexpected + mismatched + other
    noun = "issues" if len(parts) > 1 else "issue"
    return f"{tool_name} failed due to the following {noun}:\n" + "\n".join(parts)


def parse_input(tool: Tool, raw: dict[str, Any]) -> ToolInput | str:
    """Validate ``raw`` against the tool's input model: the parsed input, or the message for the model."""
    try:
        return tool.input_model.model_validate(raw)
    except ValidationError as exc:
        return format_validation_error(tool.name, exc)


class ToolSource(Protocol):
    """Tools that arrive while the session runs (MCP servers connecting); ``version`` changes when they do."""

    version: int

    def tools(self) -> list[Tool]: ...


class ToolRegistry:
    """The tools of one session, and their API schemas (computed once per set of tools, so every request repeats
    them byte for byte until a source adds tools)."""

    def __init__(
        self, tools: list[Tool], sources: list[ToolSource] | None = None, allow: Callable[[str], bool] | None = None
    ) -> None:
        self._allow = allow or (lambda _name: True)
        self._builtin = {tool.name: tool for tool in tools if self._allow(tool.name)}
        self._tools = dict(self._builtin)
        self._sources = list(sources or [])
        self._seen: tuple[int, ...] = ()
        self._schemas: list[dict[str, Any]] | None = None

    def restricted(self, allow: Callable[[str], bool]) -> ToolRegistry:
        """The tools ``allow`` accepts, including those sources add later (a sub-agent's tools)."""
        return ToolRegistry(list(self._builtin.values()), self._sources, lambda name: self._allow(name) and allow(name))

    def add_source(self, source: ToolSource) -> None:
        self._sources.append(source)
        self._seen = ()

    def _refresh(self) -> None:
        if not self._sources:
            return
        versions = tuple(source.version for source in self._sources)
        if versions == self._seen:
            return
        self._seen = versions
        tools = dict(self._builtin)
        for source in self._sources:
            for tool in source.tools():
                if self._allow(tool.name):
                    tools.setdefault(tool.name, tool)
        self._tools = tools
        self._schemas = None

    def get(self, name: str) -> Tool | None:
        self._refresh()
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        self._refresh()
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        self._refresh()
        if self._schemas is None:
            self._schemas = [tool.api_schema() for tool in self._tools.values()]
        return self._schemas
