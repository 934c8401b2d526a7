"""Permissions: whether a tool call may run, asked of the user only when the rules and the mode leave it open.

The order is fixed so that the safest answer wins: a deny rule beats everything; writes into protected folders
(``.git/``, ``.agentcli/``) always ask; then ask rules; plan mode refuses anything that changes something;
bypassPermissions allows the rest; then allow rules, reads inside the project, and (acceptEdits) edits inside
the project are allowed. Writing outside the project asks unless a rule names that place explicitly.
A PreToolUse hook's decision comes in as Claude Code defines it: ``allow`` lifts only the asks a person would
answer (never a deny rule, an ask rule or a protected folder), ``ask`` turns an allow into a question.
What is left asks the face's callback, or is denied with a clear message when there is nobody to ask.
"""

from __future__ import annotations

import asyncio
import glob
import os
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from agentcli.config.modes import PERMISSION_MODES
from agentcli.tools.base import Tool, ToolCall, ToolEnv
from agentcli.tools.commands import deny_variants, inner_scripts
from agentcli.tools.globs import expand_braces, has_magic, may_climb, static_prefix
from agentcli.tools.paths import resolve
from agentcli.tools.reaches_outside import reaches_outside
from agentcli.tools.read_only import is_read_only, read_only_paths
from agentcli.tools.rules import (
    Behavior,
    PermissionRule,
    RuleRoots,
    command_pattern_matches,
    parse_rule,
    path_pattern_matches,
)
from agentcli.tools.sandbox import Sandbox
from agentcli.tools.shell import ParsedCommand, SimpleCommand, Word, parse_command

PROTECTED_DIRS = frozenset({".git", ".agentcli", ".claude"})
"""Compared without case (macOS and Windows folders ignore it), after resolving symlinks."""
_MAX_GLOB_MATCHES = 2_000


@dataclass(frozen=True, slots=True)
class PermissionDecision:
    behavior: Literal["allow", "deny", "ask"]
    message: str = ""
    """For a denial: why, in words the model can act on."""
    updated_input: dict[str, Any] | None = None


ALLOW = PermissionDecision("allow")

CanUseTool = Callable[[Tool, dict[str, Any], ToolCall], Awaitable[PermissionDecision]]


async def allow_all(_tool: Tool, _input: dict[str, Any], _call: ToolCall) -> PermissionDecision:
    return ALLOW


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """What a face shows when it asks: the call, why it needs approval, and the rules "allow for this session" adds."""

    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str
    reason: str
    suggestions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PermissionAnswer:
    choice: Literal["allow_once", "allow_session", "deny"]
    reason: str = ""
    """For a denial: passed on to the model so it can change course."""
    updated_input: dict[str, Any] | None = None


AskUser = Callable[[PermissionRequest], Awaitable[PermissionAnswer]]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The policy's answer before anyone is asked."""

    behavior: Literal["allow", "deny", "ask"]
    reason: str = ""
    suggestions: tuple[str, ...] = ()
    firm: bool = False
    """An ask that a hook's ``allow`` cannot lift (an ask rule, a protected folder, the hook's own ``ask``)."""
    network: bool = False
    """An allow the user gave by naming the command in an allow rule: in the sandbox it may use the network, like a
    command approved in person (a bare ``Bash`` rule or bypassPermissions names nothing)."""


HookDecision = tuple[Literal["allow", "ask"], str]
"""A PreToolUse hook's ``permissionDecision`` (``deny`` never reaches the policy) and its reason."""


def with_hook_decision(verdict: Verdict, hook: HookDecision | None) -> Verdict:
    """Claude Code's precedence: deny rules beat a hook's allow, which lifts only ordinary asks; a hook's ask asks."""
    if hook is None or verdict.behavior == "deny":
        return verdict
    decision, reason = hook
    if decision == "allow":
        return Verdict("allow") if verdict.behavior == "ask" and not verdict.firm else verdict
    if verdict.behavior == "ask":
        return verdict
    return Verdict("ask", f"a PreToolUse hook asks for approval: {reason or 'no reason given'}", (), firm=True)


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


@dataclass
class PermissionPolicy:
    """A :data:`CanUseTool` built from a mode, rules and an optional way to ask the user."""

    project_dir: Path
    mode: str = "default"
    rules: list[PermissionRule] = field(default_factory=list)
    ask: AskUser | None = None
    home: Path = field(default_factory=Path.home)
    sandbox: Sandbox | None = None
    """With the sandbox on in auto-allow mode, a Bash command it contains runs without asking."""

    def __post_init__(self) -> None:
        if self.mode not in PERMISSION_MODES:
            raise ValueError(f"unknown permission mode {self.mode!r}; expected one of {', '.join(PERMISSION_MODES)}")
        self._root_literal = Path(os.path.normpath(self.project_dir.absolute()))
        self._root = _real(self._root_literal)
        self._roots = RuleRoots(self._root, self._root, _real(self.home))
        self._roots_literal = RuleRoots(self._root_literal, self._root_literal, self.home)
        self._ask_lock = asyncio.Lock()
        if self.sandbox is not None:  # what Read deny rules name is hidden inside the sandbox as well
            self.sandbox.read_denials = (self._roots, lambda: [r.specifier or "" for r in self._rules("deny", "Read")])

    # -- the callable the executor awaits -------------------------------------------------------------------

    async def __call__(self, tool: Tool, tool_input: dict[str, Any], call: ToolCall) -> PermissionDecision:
        return await self.decide(tool, tool_input, call)

    async def decide(
        self, tool: Tool, tool_input: dict[str, Any], call: ToolCall, hook: HookDecision | None = None
    ) -> PermissionDecision:
        """Decide a call, asking the user if the rules, the mode and the hook's decision leave it open."""
        verdict = self.evaluate(tool, tool_input, call.env, hook)
        if verdict.behavior != "ask":
            if verdict.network and self.sandbox is not None:
                self.sandbox.network_approved.add(call.tool_use_id)
            return PermissionDecision(verdict.behavior, verdict.reason)
        if self.mode == "dontAsk":
            return PermissionDecision(
                "deny",
                f"Permission to use {tool.name} was denied: {verdict.reason}, and "
                "agentcli is in dontAsk mode, where only calls the rules allow run.",
            )
        if self.ask is None:
            return PermissionDecision("deny", self._headless_message(tool.name, verdict))
        async with self._ask_lock:  # one question at a time; an earlier answer may already cover this call
            verdict = self.evaluate(tool, tool_input, call.env, hook)
            if verdict.behavior != "ask":
                return PermissionDecision(verdict.behavior, verdict.reason)
            answer = await self.ask(
                PermissionRequest(tool.name, tool_input, call.tool_use_id, verdict.reason, verdict.suggestions)
            )
        if answer.choice == "deny":
            why = f" The user said: {answer.reason}" if answer.reason else ""
            return PermissionDecision("deny", f"The user denied permission to use {tool.name}.{why}")
        if answer.updated_input is not None:
            # What runs is the changed input, so the rules judge it again: an answer cannot lift a deny rule.
            changed = self.evaluate(tool, answer.updated_input, call.env)
            if changed.behavior == "deny":
                return PermissionDecision("deny", changed.reason)
        if answer.choice == "allow_session":
            self.add_rules(verdict.suggestions, "allow", "session")
        if self.sandbox is not None and tool.name == "Bash":
            self.sandbox.network_approved.add(call.tool_use_id)  # approved in person: network is part of the yes
        return PermissionDecision("allow", updated_input=answer.updated_input)

    def add_rules(self, rules: Iterable[str], behavior: Behavior, source: str) -> None:
        """Add rules (a face's "allow for this session", or rules changed while the session runs)."""
        self.rules.extend(parse_rule(text, behavior, source) for text in rules)

    @staticmethod
    def _headless_message(name: str, verdict: Verdict) -> str:
        hint = (
            f' (to allow it, run agentcli with --allowedTools "{verdict.suggestions[0]}")'
            if verdict.suggestions
            else ""
        )
        return (
            f"Permission to use {name} was denied: {verdict.reason}. agentcli is running non-interactively, so a call "
            f"that needs approval cannot be approved{hint}. Do not retry this call; continue without it or explain "
            "what you would need."
        )

    # -- deciding -------------------------------------------------------------------------------------------

    def evaluate(
        self, tool: Tool, tool_input: dict[str, Any], env: ToolEnv | None = None, hook: HookDecision | None = None
    ) -> Verdict:
        """Decide a call from the mode, the rules and a hook's decision (``ask`` means a person must decide)."""
        return with_hook_decision(self._evaluate(tool, tool_input, env), hook)

    def _evaluate(self, tool: Tool, tool_input: dict[str, Any], env: ToolEnv | None) -> Verdict:
        try:
            parsed = tool.input_model.model_validate(tool_input)
        except ValidationError:
            return Verdict("deny", "the tool input is not valid")
        if tool.name == "Bash":
            cwd = env.state.shell_cwd if env is not None and env.state.shell_cwd is not None else self._root_literal
            command = str(getattr(parsed, "command", ""))
            # Auto-allow trusts this policy's sandbox: a call whose tools would run in another (or none) is not
            # contained by it.
            contained = env is not None and env.sandbox is self.sandbox
            unsandboxed = bool(getattr(parsed, "dangerouslyDisableSandbox", False)) or not contained
            return self._bash(command, Path(cwd), unsandboxed)
        domain = getattr(tool, "domain", None)
        if domain is not None:
            return self._domain(tool.name, domain(parsed))
        read_only = tool.is_read_only(parsed)
        target = tool.target_path(parsed)
        if target is not None:
            return self._file(tool.name, target, read_only)
        return self._plain(tool.name, read_only)

    def _rules(self, behavior: str, tool: str) -> list[PermissionRule]:
        return [rule for rule in self.rules if rule.behavior == behavior and rule.covers_tool(tool)]

    def _plain(self, name: str, read_only: bool) -> Verdict:
        for behavior in ("deny", "ask"):
            for rule in self._rules(behavior, name):
                if rule.whole_tool:
                    return self._by_rule(name, rule)
        if self.mode == "plan" and not read_only:
            return Verdict("deny", self._plan_message())
        if self.mode == "bypassPermissions" or read_only:
            return Verdict("allow")
        if any(rule.whole_tool for rule in self._rules("allow", name)):
            return Verdict("allow")
        return Verdict("ask", f"{name} needs approval", (name,))

    def _by_rule(self, name: str, rule: PermissionRule) -> Verdict:
        if rule.behavior == "deny":
            return Verdict("deny", f"Permission to use {name} has been denied by the rule {rule} ({rule.source}).")
        return Verdict("ask", f"the rule {rule} ({rule.source}) asks for approval", (), firm=True)

    @staticmethod
    def _plan_message() -> str:
        return (
            "agentcli is in plan mode, where only read-only tools run. Do not change anything yet: finish "
            "investigating and present your plan."
        )

    def _domain(self, name: str, host: str) -> Verdict:
        """Network tools (WebFetch): rules name hosts, ``WebFetch(domain:example.com)``; ``*.example.com`` covers
        its subdomains."""

        def matches(rule: PermissionRule) -> bool:
            if rule.whole_tool:
                return True
            pattern = (rule.specifier or "").removeprefix("domain:").lower()
            return host == pattern or (pattern.startswith("*.") and host.endswith(pattern[1:]))

        for behavior in ("deny", "ask"):
            for rule in self._rules(behavior, name):
                if matches(rule):
                    return self._by_rule(name, rule)
        if self.mode == "plan":
            return Verdict("deny", self._plan_message())
        if self.mode == "bypassPermissions" or any(matches(rule) for rule in self._rules("allow", name)):
            return Verdict("allow")
        return Verdict("ask", f"{name} reaches {host}", (f"{name}(domain:{host})",))

    # -- files ----------------------------------------------------------------------------------------------

    def _file(self, name: str, target: str, read_only: bool) -> Verdict:  # noqa: C901
        literal = resolve(target, self._root_literal)
        real = _real(literal)

        def matches(rule: PermissionRule, *, literal_too: bool) -> bool:
            if rule.whole_tool:
                return True
            assert rule.specifier is not None
            if path_pattern_matches(rule.specifier, real, self._roots):
                return True
            return literal_too and path_pattern_matches(rule.specifier, literal, self._roots_literal)

        for rule in self._rules("deny", name):
            if matches(rule, literal_too=True) or (read_only and _names_folder(rule, real, self._roots)):
                return self._by_rule(name, rule)
        inside = _inside(real, self._root)
        specific_allow = [r for r in self._rules("allow", name) if not r.whole_tool and matches(r, literal_too=False)]
        where = "//" + str(real.parent).lstrip("/") + "/**"
        if self.mode == "plan" and not read_only:
            return Verdict("deny", self._plan_message())
        if not read_only and PROTECTED_DIRS.intersection(part.lower() for part in real.parts + literal.parts):
            if any(rule.source == "session" for rule in specific_allow):
                return Verdict("allow")
            return Verdict(
                "ask",
                f"{real} is in a protected folder (.git/, .agentcli/ or .claude/)",
                (f"Edit(//{str(real).lstrip('/')})",),
                firm=True,
            )
        for rule in self._rules("ask", name):
            if matches(rule, literal_too=True):
                return self._by_rule(name, rule)
        if self.mode == "bypassPermissions" or specific_allow:
            return Verdict("allow")
        family = "Read" if read_only else "Edit"
        if not inside:
            action = "reads" if read_only else "writes"
            return Verdict("ask", f"{name} {action} {real}, outside the project folder", (f"{family}({where})",))
        if any(rule.whole_tool for rule in self._rules("allow", name)):
            return Verdict("allow")
        if read_only or self.mode == "acceptEdits":
            return Verdict("allow")
        relative = real.parent.relative_to(self._root).as_posix()
        suggestion = "Edit" if relative == "." else f"Edit(/{relative}/**)"
        return Verdict("ask", f"{name} changes {real}", (suggestion,))

    # -- shell commands -------------------------------------------------------------------------------------

    def _bash(self, command: str, cwd: Path, unsandboxed: bool = False) -> Verdict:  # noqa: C901
        parsed = parse_command(command)
        pieces = self._pieces(parsed, command)
        for behavior in ("deny", "ask"):
            for rule in self._rules(behavior, "Bash"):
                if rule.whole_tool or any(command_pattern_matches(rule.specifier or "", p) for p in pieces):
                    return self._by_rule("Bash", rule)
        if (denied := self._denied_read(parsed, _real(cwd))) is not None:
            return denied
        if self.mode == "plan" and not is_read_only(parsed, _real(cwd)):
            return Verdict("deny", self._plan_message())
        if self.mode == "bypassPermissions" or any(r.whole_tool for r in self._rules("allow", "Bash")):
            return Verdict("allow")
        sandbox = self.sandbox
        if sandbox is not None and sandbox.config.auto_allow and not unsandboxed and sandbox.active:
            return Verdict("allow")
        if not parsed.analysable:
            if any(_names_exactly(rule, command) for rule in self._rules("allow", "Bash")):
                return Verdict("allow", network=True)
            why = parsed.error or "it uses shell constructs that cannot be checked part by part"
            # Only this exact text can be allowed for the session: no prefix of it can be checked either.
            exact = () if "*" in command else (f"Bash({' '.join(command.split())})",)
            return Verdict("ask", f"the command cannot be checked ({why})", exact)
        cwds = [_real(cwd)]
        unapproved: list[SimpleCommand] = []
        named = False
        for sub in parsed.commands:
            how = self._approved(sub, cwds)
            named |= how == "rule"
            if how is None:
                unapproved.append(sub)
            if sub.argv and sub.argv[0].value == "cd" and len(sub.argv) > 1 and not sub.argv[1].expands:
                cwds.append(_real(Path(os.path.normpath(cwds[-1] / os.path.expanduser(sub.argv[1].value)))))
        if not unapproved:
            return Verdict("allow", network=named)
        suggestions = tuple(dict.fromkeys(_suggest(sub) for sub in unapproved))
        shown = "; ".join(sub.text for sub in unapproved)
        return Verdict("ask", f"the command `{shown}` needs approval", suggestions)

    @staticmethod
    def _pieces(parsed: ParsedCommand, command: str) -> list[str]:
        """Every reading of the command a deny or ask rule should see."""
        pieces: list[str] = []
        for sub in parsed.commands:
            pieces += deny_variants(sub)
            for script in inner_scripts(sub):
                pieces += PermissionPolicy._pieces(parse_command(script), script)
        if parsed.error is not None:
            pieces.append(command)
            pieces += [part.strip() for part in re.split(r"[;&|\n`()$]+", command) if part.strip()]
        return pieces

    def _approved(self, sub: SimpleCommand, cwds: list[Path]) -> Literal["rule", "read"] | None:
        """How one simple command is approved without asking: an allow rule names it, or it only reads inside the
        project; None: it needs a person."""
        writes = sub.writes_files()
        if all(self._inside_project(target, cwds) for target in writes):
            for rule in self._rules("allow", "Bash"):
                if rule.specifier and command_pattern_matches(rule.specifier, sub.text):
                    return "rule"
        paths = read_only_paths(sub, cwds[-1])
        # Where a cd leaves the shell is a guess (a subshell's does not last): git's config is judged in each place.
        if paths is None or reaches_outside(sub) or any(read_only_paths(sub, cwd) is None for cwd in cwds[:-1]):
            return None
        words = paths + [r.target for r in sub.redirects if r.op in ("<", "<>") and r.target is not None]
        return "read" if all(self._inside_project(word, cwds) for word in words) else None

    def _inside_project(self, word: Word | None, cwds: list[Path]) -> bool:
        if word is None or word.expands:
            return False
        places = self._places(word, cwds)
        return places is not None and all(_inside(place, self._root) for place in places)

    def _places(self, word: Word, cwds: list[Path]) -> list[Path] | None:
        """Every real path ``word`` may name (braces expanded, globs matched), or None if that cannot be known."""
        if word.braces and re.search(r"\{[^}]*\.\.[^}]*\}", word.value):
            return None  # a sequence such as {/..0} produces characters nobody wrote
        values = expand_braces(word.value) if word.braces else [word.value]
        places: list[Path] = []
        for value in values:
            home = value.startswith("~")
            if home and value != "~" and not value.startswith("~/"):
                return None  # ~user/… is another user's home: not worth resolving to approve it
            bases = [Path(os.path.expanduser("~"))] if home else cwds
            if home:
                value = value[1:].lstrip("/") or "."
            for base in bases:
                if has_magic(value):
                    if may_climb(value):
                        return None  # */../.. or .[.]/ climbs out wherever the glob lands
                    matches = glob.glob(value, root_dir=base)
                    if len(matches) > _MAX_GLOB_MATCHES:
                        return None
                    places += [_real(base / match) for match in matches]
                    value = static_prefix(value)[0] or "."
                places.append(_real(Path(os.path.normpath(base / value))))
        return places

    def read_denied(self, path: Path) -> bool:
        """Whether a ``Read(…)`` deny rule covers ``path`` (for searches to leave it out of their results)."""
        real = _real(path)
        return any(
            path_pattern_matches(rule.specifier or "", real, self._roots)
            for rule in self._rules("deny", "Read")
            if not rule.whole_tool
        )

    def _denied_read(self, parsed: ParsedCommand, cwd: Path) -> Verdict | None:
        """A ``Read(…)`` deny rule covers what a command reads too: any word naming a denied file denies it."""
        rules = [rule for rule in self._rules("deny", "Read") if not rule.whole_tool]
        if not rules:
            return None
        for sub in parsed.commands:
            words = [w for w in sub.argv[1:] if not w.value.startswith("-")]
            words += [
                Word(w.value.split("=", 1)[1], w.value.split("=", 1)[1], w.expands, w.globby, w.braces)
                for w in sub.argv[1:]
                if w.value.startswith("-") and "=" in w.value
            ]
            words += [r.target for r in sub.redirects if r.target is not None]
            for word in words:
                for place in self._places(word, [cwd]) or []:
                    for rule in rules:
                        assert rule.specifier is not None
                        if path_pattern_matches(rule.specifier, place, self._roots):
                            return Verdict(
                                "deny",
                                f"Permission to read {place} has been denied by the rule {rule} ({rule.source}).",
                            )
        return None


def _names_folder(rule: PermissionRule, path: Path, roots: RuleRoots) -> bool:
    """``Read(./secrets/**)`` also denies searching ``secrets`` itself."""
    specifier = rule.specifier or ""
    return specifier.endswith("/**") and path_pattern_matches(specifier[:-3] or "/", path, roots)


def _names_exactly(rule: PermissionRule, command: str) -> bool:
    """An allow rule that spells out a command agentcli cannot check part by part, word for word (no wildcard)."""
    spec = rule.specifier
    return spec is not None and "*" not in spec and " ".join(spec.split()) == " ".join(command.split())


def _suggest(sub: SimpleCommand) -> str:
    words = [word.value for word in sub.argv]
    if not words:
        return "Bash"
    if len(words) >= 2 and not words[1].startswith("-") and words[0] in _TWO_WORD_PREFIX:
        return f"Bash({words[0]} {words[1]}:*)"
    return f"Bash({words[0]}:*)"


_TWO_WORD_PREFIX = frozenset(
    "git npm pnpm yarn bun cargo go docker kubectl make pip uv poetry gh dotnet mvn gradle python python3 npx".split()  # noqa: SIM905
)
