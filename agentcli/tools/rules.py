"""Permission rules in Claude Code's syntax: ``Tool`` or ``Tool(specifier)``, from settings and the command line.

Users' existing rules must work unchanged, so the syntax and matching follow Claude Code: Bash specifiers are
command patterns with ``*`` wildcards (``npm run test:*`` is the legacy spelling of ``npm run test *``); file
specifiers are .gitignore-style globs where ``//x`` is absolute, ``~/x`` is in the home folder, ``/x`` is
relative to the project root and ``./x`` or ``x`` to the working directory.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agentcli.tools.globs import gitignore_match

Behavior = Literal["allow", "ask", "deny"]
BEHAVIORS: tuple[Behavior, ...] = ("deny", "ask", "allow")

READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
"""Tools a ``Read(…)`` rule covers: everything that reads files."""
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
"""Tools an ``Edit(…)`` rule covers: everything that changes files."""

_RULE = re.compile(r"^([A-Za-z0-9_.\-]+\*?|\*)(?:\((.*)\))?$", re.DOTALL)


class InvalidRule(ValueError):
    """A rule string that is not ``Tool`` or ``Tool(specifier)``."""


@dataclass(frozen=True, slots=True)
class PermissionRule:
    tool: str
    specifier: str | None
    behavior: Behavior
    source: str = "session"
    """Where it came from: cliArg, userSettings, projectSettings, localSettings or session (approved by the user)."""
    literal: bool = False
    """The specifier is one exact command, ``*`` included (a session grant for what the user saw), not a pattern."""
    origin: str = ""
    """The settings file it was read from, when there is one (named in denials so the user knows where to look)."""

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    @property
    def where(self) -> str:
        """Where the rule came from, in words: ``userSettings: ~/.config/agentcli/settings.json``."""
        return f"{self.source}: {self.origin}" if self.origin else self.source

    def matches_command(self, command: str) -> bool:
        """Whether this Bash rule names ``command`` (one simple command, or a whole command that cannot be split)."""
        if self.literal:
            return self.specifier is not None and _blanks(self.specifier) == _blanks(command)
        return command_pattern_matches(self.specifier or "", command)

    def covers_tool(self, name: str) -> bool:
        """Whether this rule is about ``name`` at all (``Edit`` rules also cover Write, ``Read`` rules Grep…)."""
        if self.tool in ("*", name):
            return True
        if (self.tool == "Edit" and name in EDIT_TOOLS) or (self.tool == "Read" and name in READ_TOOLS):
            return True
        # mcp__server covers every tool of that server; mcp__server__* too
        if self.tool.startswith("mcp__") and name.startswith("mcp__"):
            prefix = self.tool.removesuffix("*").removesuffix("__")
            return name.startswith(prefix + "__")
        return False

    @property
    def whole_tool(self) -> bool:
        return self.specifier is None or (not self.literal and self.specifier in ("", "*"))


def parse_rule(text: str, behavior: Behavior, source: str = "session") -> PermissionRule:
    """Parse ``Bash(git *)`` into a rule; raise :class:`InvalidRule` with a readable reason."""
    text = text.strip()
    match = _RULE.match(text)
    if not match:
        raise InvalidRule(f"not a permission rule: {text!r} (expected Tool or Tool(specifier), e.g. Bash(git *))")
    tool, specifier = match.group(1), match.group(2)
    if specifier is not None:
        specifier = specifier.strip()
    return PermissionRule(tool, specifier, behavior, source)


def split_rule_list(text: str) -> list[str]:
    """Split ``"Read,Bash(git *) Edit"`` at commas and spaces outside parentheses."""
    out: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (char == "," or char.isspace()):
            if current.strip():
                out.append(current.strip())
            current = ""
            continue
        current += char
    if current.strip():
        out.append(current.strip())
    return out


def parse_rule_args(values: Iterable[str], behavior: Behavior, source: str = "cliArg") -> list[PermissionRule]:
    """Rules from ``--allowedTools``/``--disallowedTools`` values (each may hold several rules)."""
    return [parse_rule(text, behavior, source) for value in values for text in split_rule_list(value)]


# -- matching ---------------------------------------------------------------------------------------------------


def command_pattern_matches(pattern: str, command: str) -> bool:
    """Match a Bash specifier against one simple command.

    Without ``*`` the command must be exactly the pattern. ``*`` matches anything; a trailing `` *`` (or the
    legacy ``:*``) also matches the bare prefix, so ``git *`` matches ``git`` and ``git status`` but not ``gitk``.
    """
    pattern = " ".join(pattern.split())
    command = " ".join(command.split())
    if pattern in ("", "*"):
        return True
    if pattern.endswith(":*"):
        pattern = pattern[:-2].rstrip() + " *"
    optional_tail = pattern.endswith(" *")
    core = pattern[:-2] if optional_tail else pattern
    regex = ".*".join(re.escape(part) for part in core.split("*"))
    if optional_tail:
        regex += "(?: .*)?"
    return re.fullmatch(regex, command, re.DOTALL) is not None


def _blanks(text: str) -> str:
    """Runs of spaces and tabs as one space (a newline separates commands, so it stays what it is)."""
    return re.sub(r"[ \t]+", " ", text.strip())


@dataclass(frozen=True, slots=True)
class RuleRoots:
    """The folders file specifiers are relative to."""

    cwd: Path
    project: Path
    home: Path


def pattern_base(pattern: str, roots: RuleRoots) -> tuple[Path, str]:
    """The folder a file specifier starts from, and the .gitignore-style rest (a leading ``/`` anchors it there)."""
    anchored = True
    if pattern.startswith("//"):
        base, rest = Path("/"), pattern[2:]
    elif pattern == "~" or pattern.startswith("~/"):
        base, rest = roots.home, pattern[2:] or "**"
    elif pattern.startswith("/"):
        base, rest = roots.project, pattern[1:]
    elif pattern.startswith("./"):
        base, rest = roots.cwd, pattern[2:]
    else:
        base, rest, anchored = roots.cwd, pattern, False
    if anchored and "/" not in rest.rstrip("/"):
        rest = "/" + rest  # a bare name after //, ~/, / or ./ names that entry, not one at any depth
    return base, rest


def path_pattern_matches(pattern: str, path: Path, roots: RuleRoots) -> bool:
    """Match a file specifier against an absolute path (callers pass the symlink-resolved path and roots)."""
    if pattern in ("", "*", "**"):
        return True
    base, rest = pattern_base(pattern, roots)
    try:
        relative = path.relative_to(base)
    except ValueError:
        return False
    if str(relative) == ".":
        return rest.strip("/") in ("", "**", "*")
    return gitignore_match(rest, relative.as_posix())


# -- collecting rules ----------------------------------------------------------------------------------------


@dataclass
class RuleSources:
    """Rules gathered from every settings layer and the command line, with the entries that could not be read."""

    rules: list[PermissionRule] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def add_lists(
        self, source: str, allow: Iterable[str], ask: Iterable[str], deny: Iterable[str], origin: str = ""
    ) -> None:
        lists: tuple[tuple[Behavior, Iterable[str]], ...] = (("allow", allow), ("ask", ask), ("deny", deny))
        for behavior, entries in lists:
            for entry in entries:
                try:
                    rule = parse_rule(str(entry), behavior, source)
                    self.rules.append(dataclasses.replace(rule, origin=origin) if origin else rule)
                except InvalidRule as exc:
                    self.problems.append(f"{source}: permissions.{behavior}: {exc}")

    def removed_tools(self) -> set[str]:
        """Tools a bare deny rule switches off entirely (the model is not even told about them)."""
        return {rule.tool for rule in self.rules if rule.behavior == "deny" and rule.whole_tool}
