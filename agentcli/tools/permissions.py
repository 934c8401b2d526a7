"""Permissions: whether a tool call may run, asked of the user only when the rules and the mode leave it open.

The order is fixed so that the safest answer wins: a deny rule beats everything; a write to a protected path
(:mod:`agentcli.tools.protected`) and a command that asks to leave the sandbox always ask, in every mode, unless an
allow rule names exactly that; then ask rules; plan mode refuses anything that changes something;
bypassPermissions allows the rest; then allow rules, reads inside the project, and (acceptEdits) edits inside
the project are allowed. Writing outside the project asks unless a rule names that place explicitly. What a tool
says about itself (an MCP tool's ``readOnlyHint``) never allows anything: only agentcli's own tools are judged
read-only.
A PreToolUse hook's decision comes in as Claude Code defines it: ``allow`` lifts only the asks a person would
answer (never a deny rule, an ask rule or a protected path), ``ask`` turns an allow into a question.
What is left asks the face's callback, or is denied with a message that names the rule, the protected path or
the setting, and the line the user can paste to allow it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from agentcli.config.modes import PERMISSION_MODES
from agentcli.tools.base import Tool, ToolCall, ToolEnv
from agentcli.tools.command_words import command_pieces, inside, read_words, real, word_places
from agentcli.tools.globs import has_magic, static_prefix
from agentcli.tools.grants import exact_grant, session_grant
from agentcli.tools.paths import resolve
from agentcli.tools.permission_types import (
    ALLOW,
    AskUser,
    CanUseTool,
    HookDecision,
    PermissionAnswer,
    PermissionDecision,
    PermissionRequest,
    Verdict,
    allow_all,
    with_hook_decision,
)
from agentcli.tools.protected_writes import allow_line, protected_reason
from agentcli.tools.reaches_outside import reaches_outside
from agentcli.tools.read_only import is_read_only, read_only_paths
from agentcli.tools.rules import Behavior, PermissionRule, RuleRoots, parse_rule, path_pattern_matches, pattern_base
from agentcli.tools.sandbox import Sandbox
from agentcli.tools.shell import ParsedCommand, SimpleCommand, Word, parse_command

__all__ = [
    "ALLOW",
    "AskUser",
    "CanUseTool",
    "HookDecision",
    "PermissionAnswer",
    "PermissionDecision",
    "PermissionPolicy",
    "PermissionRequest",
    "Verdict",
    "allow_all",
    "with_hook_decision",
]


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
        self._root = real(self._root_literal)
        self._home = real(self.home)
        self._roots = RuleRoots(self._root, self._root, self._home)
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
            return PermissionDecision(verdict.behavior, verdict.reason, checked_path=verdict.path)
        if self.mode == "dontAsk":
            return PermissionDecision(
                "deny",
                f"Permission to use {tool.name} was denied: {verdict.reason}, and agentcli is in dontAsk mode, where "
                f"only calls the rules allow run.{_to_allow(verdict)}",
            )
        if self.ask is None:
            return PermissionDecision("deny", self._headless_message(tool.name, verdict))
        async with self._ask_lock:  # one question at a time; an earlier answer may already cover this call
            verdict = self.evaluate(tool, tool_input, call.env, hook)
            if verdict.behavior != "ask":
                return PermissionDecision(verdict.behavior, verdict.reason, checked_path=verdict.path)
            answer = await self.ask(
                PermissionRequest(
                    tool.name, tool_input, call.tool_use_id, verdict.reason, verdict.suggestions, verdict.grants
                )
            )
        if answer.choice == "deny":
            why = f" The user said: {answer.reason}" if answer.reason else ""
            return PermissionDecision("deny", f"The user denied permission to use {tool.name}.{why}")
        checked = verdict.path
        if answer.updated_input is not None:
            # What runs is the changed input, so the rules judge it again: an answer cannot lift a deny rule.
            changed = self.evaluate(tool, answer.updated_input, call.env)
            if changed.behavior == "deny":
                return PermissionDecision("deny", changed.reason)
            checked = changed.path
        if answer.choice == "allow_session":
            self.rules.extend(verdict.grants)  # exactly what the question showed
        if self.sandbox is not None and tool.name == "Bash":
            self.sandbox.network_approved.add(call.tool_use_id)  # approved in person: network is part of the yes
        return PermissionDecision("allow", updated_input=answer.updated_input, checked_path=checked)

    def add_rules(self, rules: Iterable[str], behavior: Behavior, source: str) -> None:
        """Add rules (rules a driving program sends, or rules changed while the session runs)."""
        self.rules.extend(parse_rule(text, behavior, source) for text in rules)

    @staticmethod
    def _headless_message(name: str, verdict: Verdict) -> str:
        return (
            f"Permission to use {name} was denied: {verdict.reason}. agentcli is running non-interactively, so a call "
            f"that needs approval cannot be approved.{_to_allow(verdict)} Do not retry this call; continue without "
            "it or explain what you would need."
        )

    # -- deciding -------------------------------------------------------------------------------------------

    def evaluate(
        self, tool: Tool, tool_input: dict[str, Any], env: ToolEnv | None = None, hook: HookDecision | None = None
    ) -> Verdict:
        """Decide a call from the mode, the rules and a hook's decision (``ask`` means a person must decide)."""
        verdict = self._evaluate(tool, tool_input, env)
        return dataclasses.replace(with_hook_decision(verdict, hook), path=verdict.path)

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
            leaves = bool(getattr(parsed, "dangerouslyDisableSandbox", False))
            return self._bash(command, Path(cwd), contained=contained and not leaves, leaves_sandbox=leaves)
        domain = getattr(tool, "domain", None)
        if domain is not None:
            return self._domain(tool.name, domain(parsed))
        read_only = tool.is_read_only(parsed)
        target = tool.target_path(parsed)
        if target is not None:
            literal = resolve(target, self._root_literal)
            resolved = real(literal)  # resolved once: the tool writes where this verdict looked
            return dataclasses.replace(self._file(tool.name, literal, resolved, read_only), path=resolved)
        claim = " (its server says it only reads, but a tool's word about itself allows nothing)"
        return self._plain(tool.name, read_only, claim if getattr(tool, "claims_read_only", False) else "")

    def _rules(self, behavior: str, tool: str) -> list[PermissionRule]:
        return [rule for rule in self.rules if rule.behavior == behavior and rule.covers_tool(tool)]

    def _plain(self, name: str, read_only: bool, note: str = "") -> Verdict:
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
        return Verdict("ask", f"{name} needs approval{note}", (parse_rule(name, "allow"),))

    def _by_rule(self, name: str, rule: PermissionRule) -> Verdict:
        if rule.behavior == "deny":
            return Verdict("deny", _denial(f"to use {name}", rule))
        return Verdict(
            "ask",
            f"the rule {rule} ({rule.where}) asks for approval",
            (),
            firm=True,
            allow_hint=f'an ask rule is answered in person; to stop asking, remove "{rule}" from {_rule_home(rule)}',
        )

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
        return Verdict("ask", f"{name} reaches {host}", (parse_rule(f"{name}(domain:{host})", "allow"),))

    # -- files ----------------------------------------------------------------------------------------------

    def _file(self, name: str, literal: Path, resolved: Path, read_only: bool) -> Verdict:  # noqa: C901
        def matches(rule: PermissionRule, *, literal_too: bool) -> bool:
            if rule.whole_tool:
                return True
            assert rule.specifier is not None
            if path_pattern_matches(rule.specifier, resolved, self._roots):
                return True
            return literal_too and path_pattern_matches(rule.specifier, literal, self._roots_literal)

        for rule in self._rules("deny", name):
            if matches(rule, literal_too=True) or (read_only and _names_folder(rule, resolved, self._roots)):
                return self._by_rule(name, rule)
        specific_allow = [r for r in self._rules("allow", name) if not r.whole_tool and matches(r, literal_too=False)]
        if self.mode == "plan" and not read_only:
            return Verdict("deny", self._plan_message())
        if not read_only and (protected := self._protected(resolved, literal)) is not None:
            if any(self._targets_protected(rule) for rule in specific_allow):
                return Verdict("allow")
            exact = () if has_magic(str(resolved)) else (parse_rule(f"Edit(/{resolved})", "allow"),)
            return Verdict("ask", f"{name} writes a protected path: {protected}", exact, firm=True)
        for rule in self._rules("ask", name):
            if matches(rule, literal_too=True):
                return self._by_rule(name, rule)
        if self.mode == "bypassPermissions" or specific_allow:
            return Verdict("allow")
        family = "Read" if read_only else "Edit"
        if not inside(resolved, self._root):
            action = "reads" if read_only else "writes"
            where = "//" + str(resolved.parent).lstrip("/") + "/**"
            grant = parse_rule(f"{family}({where})", "allow")
            return Verdict("ask", f"{name} {action} {resolved}, outside the project folder", (grant,))
        if any(rule.whole_tool for rule in self._rules("allow", name)):
            return Verdict("allow")
        if read_only or self.mode == "acceptEdits":
            return Verdict("allow")
        relative = resolved.parent.relative_to(self._root).as_posix()
        suggestion = "Edit" if relative == "." else f"Edit(/{relative}/**)"
        return Verdict("ask", f"{name} changes {resolved}", (parse_rule(suggestion, "allow"),))

    def _protected(self, resolved: Path, literal: Path) -> str | None:
        """Why writing this file is protected (as resolved, or as written), or None."""
        return protected_reason(resolved, self._root, self._home) or protected_reason(
            literal, self._root_literal, self.home
        )

    def _targets_protected(self, rule: PermissionRule) -> bool:
        """Whether an allow rule names a protected path itself (``Edit(/.git/info/exclude)``,
        ``Edit(/.claude/skills/**)``): only such a rule opens one; ``Edit(**)`` does not."""
        base, rest = pattern_base(rule.specifier or "", self._roots)
        fixed = rest.lstrip("/") if not has_magic(rest) else static_prefix(rest.lstrip("/"))[0]
        return bool(fixed) and self._protected(base / fixed, base / fixed) is not None

    # -- shell commands -------------------------------------------------------------------------------------

    def _bash(self, command: str, cwd: Path, *, contained: bool, leaves_sandbox: bool) -> Verdict:  # noqa: C901
        parsed = parse_command(command)
        pieces = command_pieces(parsed, command)
        for behavior in ("deny", "ask"):
            for rule in self._rules(behavior, "Bash"):
                if rule.whole_tool or any(rule.matches_command(piece) for piece in pieces):
                    return self._by_rule("Bash", rule)
        if (denied := self._denied_read(parsed, real(cwd))) is not None:
            return denied
        if self.mode == "plan" and not is_read_only(parsed, real(cwd)):
            return Verdict("deny", self._plan_message())
        if (protected := self._protected_write(parsed, real(cwd))) is not None:
            return protected
        if leaves_sandbox and self.sandbox is not None and self.sandbox.config.enabled:
            return self._outside_sandbox(parsed, command)
        if self.mode == "bypassPermissions" or any(r.whole_tool for r in self._rules("allow", "Bash")):
            return Verdict("allow")
        sandbox = self.sandbox
        if sandbox is not None and sandbox.config.auto_allow and contained and sandbox.active:
            return Verdict("allow")
        if not parsed.analysable:
            if any(_names_exactly(rule, command) for rule in self._rules("allow", "Bash")):
                return Verdict("allow", network=True)
            why = parsed.error or "it uses shell constructs that cannot be checked part by part"
            # Only this exact text can be allowed for the session: no prefix of it can be checked either.
            return Verdict("ask", f"the command cannot be checked ({why})", (exact_grant(command),))
        cwds = [real(cwd)]
        unapproved: list[SimpleCommand] = []
        named = False
        for sub in parsed.commands:
            how = self._approved(sub, cwds)
            named |= how == "rule"
            if how is None:
                unapproved.append(sub)
            if sub.argv and sub.argv[0].value == "cd" and len(sub.argv) > 1 and not sub.argv[1].expands:
                cwds.append(real(Path(os.path.normpath(cwds[-1] / os.path.expanduser(sub.argv[1].value)))))
        if not unapproved:
            return Verdict("allow", network=named)
        grants = tuple(dict.fromkeys(self._grant(sub, cwds) for sub in unapproved))
        shown = "; ".join(sub.text for sub in unapproved)
        return Verdict("ask", f"the command `{shown}` needs approval", grants)

    def _grant(self, sub: SimpleCommand, cwds: list[Path]) -> PermissionRule:
        """The session grant for one part: widened only where every file it writes is an ordinary one in the
        project (a prefix rule could not approve anything else)."""
        ordinary = all(self._inside_project(target, cwds) for target in sub.writes_files())
        return session_grant(sub, widen=ordinary)

    def _outside_sandbox(self, parsed: ParsedCommand, command: str) -> Verdict:
        """``dangerouslyDisableSandbox``: allowed only by an allow rule someone wrote that names the command (never a
        session grant, a bare ``Bash`` or the mode); otherwise a person decides, whatever the mode."""
        written = [r for r in self._rules("allow", "Bash") if r.source != "session" and not r.whole_tool]
        if parsed.analysable and parsed.commands:
            if all(any(rule.matches_command(sub.text) for rule in written) for sub in parsed.commands):
                return Verdict("allow", network=True)
            texts = [sub.text for sub in parsed.commands]
        else:
            if any(_names_exactly(rule, command) for rule in written):
                return Verdict("allow", network=True)
            texts = [command.strip()]
        return Verdict(
            "ask",
            "the command asks to run with the sandbox off (dangerouslyDisableSandbox): it could write anywhere "
            "and reach the network",
            (),
            firm=True,
            allow_hint="to allow exactly this command with the sandbox off, add "
            + allow_line([f"Bash({text})" for text in texts]),
        )

    def _protected_write(self, parsed: ParsedCommand, cwd: Path) -> Verdict | None:
        """A redirection into a protected path (``echo … > .git/config``) asks, in every mode."""
        for sub in parsed.commands:
            for target in sub.writes_files():
                for place in (word_places(target, [cwd]) or []) if target is not None else []:
                    if (why := protected_reason(place, self._root, self._home)) is not None:
                        return Verdict(
                            "ask",
                            f"the command writes a protected path: {why}",
                            (),
                            firm=True,
                            allow_hint="write it with the Write or Edit tool, which a rule "
                            f'"Edit(/{place})" allows ({allow_line(f"Edit(/{place})")})',
                        )
        return None

    def _approved(self, sub: SimpleCommand, cwds: list[Path]) -> Literal["rule", "read"] | None:
        """How one simple command is approved without asking: an allow rule names it, or it only reads inside the
        project; None: it needs a person."""
        ordinary = all(self._inside_project(target, cwds) for target in sub.writes_files())
        for rule in self._rules("allow", "Bash"):
            # an exact grant is what the user saw, redirections included; a pattern covers only ordinary writes
            if rule.specifier and (ordinary or rule.literal) and rule.matches_command(sub.text):
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
        places = word_places(word, cwds)
        return places is not None and all(
            inside(place, self._root) and protected_reason(place, self._root, self._home) is None for place in places
        )

    def read_denied(self, path: Path) -> bool:
        """Whether a ``Read(…)`` deny rule covers ``path`` (for searches to leave it out of their results)."""
        resolved = real(path)
        return any(
            path_pattern_matches(rule.specifier or "", resolved, self._roots)
            for rule in self._rules("deny", "Read")
            if not rule.whole_tool
        )

    def _denied_read(self, parsed: ParsedCommand, cwd: Path) -> Verdict | None:
        """A ``Read(…)`` deny rule covers what a command reads too: any word naming a denied file denies it."""
        rules = [rule for rule in self._rules("deny", "Read") if not rule.whole_tool]
        if not rules:
            return None
        for words in read_words(parsed):
            for word in words:
                for place in word_places(word, [cwd]) or []:
                    for rule in rules:
                        assert rule.specifier is not None
                        if path_pattern_matches(rule.specifier, place, self._roots):
                            return Verdict("deny", _denial(f"to read {place}", rule))
        return None


def _rule_home(rule: PermissionRule) -> str:
    """Where a rule is written, for "remove it from …"."""
    if rule.source == "cliArg":
        return "--disallowedTools" if rule.behavior == "deny" else "--allowedTools"
    if rule.source == "session":
        return "this session's rules (start a new session)"
    return f"permissions.{rule.behavior} in {rule.origin or rule.source}"


def _denial(what: str, rule: PermissionRule) -> str:
    return (
        f"Permission {what} has been denied by the rule {rule} ({rule.where}). Only removing "
        f'"{rule}" from {_rule_home(rule)} allows it.'
    )


def _to_allow(verdict: Verdict) -> str:
    """The sentence that says what would allow a call: the verdict's own hint, or its grants as settings lines."""
    if verdict.allow_hint:
        return f" To allow it: {verdict.allow_hint}."
    if verdict.grants:
        return f" To allow it, add {allow_line([str(rule) for rule in verdict.grants])}."
    return ""


def _names_folder(rule: PermissionRule, path: Path, roots: RuleRoots) -> bool:
    """``Read(./secrets/**)`` also denies searching ``secrets`` itself."""
    specifier = rule.specifier or ""
    return specifier.endswith("/**") and path_pattern_matches(specifier[:-3] or "/", path, roots)


def _names_exactly(rule: PermissionRule, command: str) -> bool:
    """An allow rule that spells out a command agentcli cannot check part by part, word for word (a ``*`` in it
    is compared as the character, not matched as a wildcard)."""
    spec = rule.specifier
    if spec is None:
        return False
    return rule.matches_command(command) if rule.literal else " ".join(spec.split()) == " ".join(command.split())
