"""Session grants: what "allow for this session" adds, exactly as wide as what the user saw.

Each part of a command the user approves is granted on its own. A part is widened to its prefix
(``Bash(make build:*)``, ``Bash(pytest:*)``) only where the prefix names a task rather than a target: a build or
test tool, or a sub-command of a package manager, git or a container tool that only runs the project's own work.
Anything whose arguments decide what it touches or runs (``rm``, ``mv``, ``cp``, ``chmod``, ``dd``, ``curl``,
``sudo``, interpreters, ``find … -exec``, ``git push``, package installs…), a part with variable assignments, and
a command that cannot be split are granted as the exact text, which then matches that text and nothing else.
"""

from __future__ import annotations

from agentcli.tools.rules import PermissionRule
from agentcli.tools.shell import SimpleCommand


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


WIDENED_PROGRAMS = _names(
    "pytest tox nox mypy ruff black isort flake8 pylint pyright eslint prettier tsc jest vitest mocha mkdir touch "
    "echo printf sleep which cmake ninja meson gofmt rustfmt clang-format shellcheck hadolint"
)
"""Programs whose arguments only refine the same job: granted as ``Bash(program:*)``."""

SUBCOMMAND_PROGRAMS = _names(
    "git npm pnpm yarn bun cargo go make docker kubectl pip pip3 uv poetry dotnet mvn gradle terraform helm just task"
)
"""Programs whose first word names the job: granted as ``Bash(program sub:*)``."""

RISKY_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "git": _names(
        "push reset clean checkout restore rebase rm mv branch tag config remote submodule worktree update-ref "
        "filter-branch filter-repo gc prune reflog stash am send-email credential daemon"
    ),
    "npm": _names(
        "publish unpublish exec x install i add ci uninstall remove rm un link login logout token owner access "
        "config set adduser deprecate dist-tag pkg"
    ),
    "cargo": _names("install uninstall publish login logout owner yank"),
    "go": _names("run install get"),
    "docker": _names("run exec rm rmi system volume network kill push login cp compose buildx"),
    "kubectl": _names(
        "delete exec apply replace patch edit cp run scale drain cordon port-forward proxy create set rollout "
        "label annotate taint config debug attach"
    ),
    "pip": _names("install uninstall download wheel config"),
    "uv": _names("add remove run pip tool publish"),
    "poetry": _names("add remove run install publish self source config"),
    "dotnet": _names("nuget tool add remove"),
    "terraform": _names("apply destroy import state taint untaint workspace force-unlock"),
    "helm": _names("install uninstall upgrade delete rollback push registry plugin"),
}
for _manager in ("pnpm", "yarn", "bun"):
    RISKY_SUBCOMMANDS[_manager] = RISKY_SUBCOMMANDS["npm"] | {"dlx", "x", "create"}
RISKY_SUBCOMMANDS["pip3"] = RISKY_SUBCOMMANDS["pip"]
SCRIPT_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun"})
"""``npm run build`` names the script: granted as ``Bash(npm run build:*)``, never every script."""
INTERPRETER_MODULES = frozenset({"pytest", "mypy", "ruff", "unittest", "black", "isort", "flake8", "pylint"})
"""``python -m pytest`` is a test run, not a program of the model's choosing: granted as its three words."""
INTERPRETERS = frozenset({"python", "python3"})


def session_grant(sub: SimpleCommand, *, widen: bool = True) -> PermissionRule:
    """The rule "allow for this session" adds for one part of a command (``widen`` False: the exact part)."""
    prefix = widened_prefix(sub) if widen else None
    if prefix is None:
        return exact_grant(sub.text)
    return PermissionRule("Bash", " ".join(prefix) + ":*", "allow", "session")


def exact_grant(command: str) -> PermissionRule:
    """A grant for this command text and nothing else (``*`` in it is a character, not a wildcard)."""
    return PermissionRule("Bash", command.strip(), "allow", "session", literal=True)


def widened_prefix(sub: SimpleCommand) -> list[str] | None:
    """The words a grant may widen to, or None where only the exact part is safe."""
    argv = sub.argv
    if sub.assignments or not argv or any(word.expands or word.globby or word.braces for word in argv[:3]):
        return None
    words = [word.value for word in argv]
    if any(word != raw.raw for word, raw in zip(words[:3], argv[:3], strict=False)):
        return None  # quoted words: the rule would have to spell the quotes, so keep the exact text
    name = words[0]
    if name in WIDENED_PROGRAMS:
        return [name]
    if name in INTERPRETERS:
        modular = len(words) >= 3 and words[1] == "-m" and words[2] in INTERPRETER_MODULES
        return words[:3] if modular else None
    if name not in SUBCOMMAND_PROGRAMS or len(words) < 2 or words[1].startswith("-"):
        return None
    if words[1] in RISKY_SUBCOMMANDS.get(name, frozenset()):
        return None
    if name in SCRIPT_RUNNERS and words[1] in ("run", "run-script"):
        return words[:3] if len(words) >= 3 and not words[2].startswith("-") else None
    return words[:2]


def describe_grants(grants: tuple[PermissionRule, ...]) -> str:
    """What a session grant adds, in full (an exact command is called so: its ``*`` is no wildcard)."""
    return ", ".join(f"exactly `{rule.specifier}`" if rule.literal else str(rule) for rule in grants)
