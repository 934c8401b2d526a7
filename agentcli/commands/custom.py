"""Custom slash commands: Markdown files in ``.claude/commands/`` and ``.agentcli/commands/`` (and the user's own
folders, and plugins'), Claude Code's format read the same way.

Face-neutral: this module finds the files and turns ``/name args`` into the prompt text (``$ARGUMENTS``,
``$1``…); :mod:`agentcli.commands.runtime` runs their ``!`` commands and reads their ``@file`` mentions under the
session's permissions.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.config.frontmatter import FrontMatterError, name_list, read_markdown
from agentcli.config.paths import extension_folders


@dataclass(frozen=True)
class CustomCommand:
    name: str
    body: str
    path: Path
    scope: str
    """``user``, ``project`` or ``plugin <name>``."""
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    """Permission rules the command's ``!`` commands run under (``Bash(git status:*)``)."""
    model: str | None = None


@dataclass
class CommandCatalog:
    commands: list[CustomCommand] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def commands_in(folder: Path, scope: str, problems: list[str]) -> list[CustomCommand]:
    """The ``*.md`` files under ``folder`` (sub-folders too: ``frontend/test.md`` is ``/test``, described as
    ``(project:frontend)`` as in Claude Code)."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob("*.md")):
        try:
            document = read_markdown(path)
        except (FrontMatterError, OSError, UnicodeDecodeError) as exc:
            problems.append(str(exc) if isinstance(exc, FrontMatterError) else f"{path}: {exc}")
            continue
        meta = document.meta
        where = "/".join(path.parent.relative_to(folder).parts)
        label = f"({scope}:{where})" if where else f"({scope})"
        first_line = next((line.strip() for line in document.body.splitlines() if line.strip()), "")
        description = str(meta.get("description") or first_line[:80] or "Custom command")
        found.append(
            CustomCommand(
                name=path.stem,
                body=document.body,
                path=path,
                scope=scope,
                description=f"{description} {label}",
                argument_hint=str(meta.get("argument-hint") or ""),
                allowed_tools=tuple(name_list(meta.get("allowed-tools")) or ()),
                model=str(meta["model"]) if meta.get("model") else None,
            )
        )
    return found


def load_commands(project_dir: Path, plugin_folders: list[tuple[str, Path]] | None = None) -> CommandCatalog:
    """Every custom command; for one name, the later folder wins (agentcli's over Claude Code's, project over
    user)."""
    catalog = CommandCatalog()
    by_name: dict[str, CustomCommand] = {}
    for scope, folder in [*(plugin_folders or []), *extension_folders(project_dir, "commands")]:
        for command in commands_in(folder, scope, catalog.problems):
            by_name[command.name] = command
    catalog.commands = list(by_name.values())
    return catalog


def match_command(commands: list[CustomCommand], text: str) -> tuple[CustomCommand, str] | None:
    """The command a submitted ``/name args`` names, with its arguments; None for anything else."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, arguments = stripped[1:].partition(" ")
    command = next((c for c in commands if c.name == name), None)
    return (command, arguments.strip()) if command is not None else None


_POSITIONAL = re.compile(r"\$(\d+)")


def substitute(body: str, arguments: str) -> str:
    """``$ARGUMENTS`` is everything after the name, ``$1``… the words (shell quoting respected). A command that
    takes no placeholder gets the arguments appended, as Claude Code does."""
    try:
        words = shlex.split(arguments)
    except ValueError:
        words = arguments.split()
    has_placeholder = "$ARGUMENTS" in body or _POSITIONAL.search(body) is not None
    text = body.replace("$ARGUMENTS", arguments)
    text = _POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1] if 0 < int(m.group(1)) <= len(words) else "", text)
    if arguments and not has_placeholder:
        text = f"{text}\n\nARGUMENTS: {arguments}"
    return text
