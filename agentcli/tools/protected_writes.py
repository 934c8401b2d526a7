"""Which writes the permission policy treats as protected: the sandbox's list (:mod:`agentcli.tools.protected`),
applied by name to every path a file tool or a redirection writes.

The sandbox protects entries at the top of each writable folder; a file tool names its target, so the policy can
be stricter at no cost: a ``.git`` (folder or file), ``.agentcli``, ``.claude`` or ``.mcp.json`` at any depth of
the project (a nested repository or a sub-project is as dangerous), compared without case (macOS and Windows
folders ignore it), plus the editors' and commit tools' folders that run tasks (``.vscode``, ``.idea``,
``.husky``), ``.gitmodules`` and direnv's ``.envrc``. In the home folder (whether or not it is the project) the
start-up files and login, git and ``PATH`` folders of the sandbox's list are protected, and so are agentcli's own
config and data folders and Claude Code's, wherever the environment moves them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from agentcli.config.paths import claude_dir, config_dir, data_dir
from agentcli.tools.command_words import real
from agentcli.tools.protected import HOME_ENTRIES, ROOT_ENTRIES

ANY_DEPTH_NAMES = frozenset(
    {".git", *(entry.name for entry in ROOT_ENTRIES), ".vscode", ".idea", ".husky", ".gitmodules", ".envrc"}
)
"""Entry names protected wherever they appear in a path (lower case)."""


def agentcli_dirs() -> list[Path]:
    """agentcli's own config and data folders and Claude Code's (each where the environment puts it)."""
    return [config_dir(), data_dir(), claude_dir()]


def protected_reason(path: Path, project_dir: Path, home: Path) -> str | None:
    """Why writing ``path`` (absolute) is protected, naming the protected entry; None when it is not.

    Callers pass the path as written and again with symlinks resolved: either being protected protects it."""
    for folder in agentcli_dirs():
        if path.is_relative_to(folder) or path.is_relative_to(real(folder)):
            return f"{path} is in {folder}, a settings folder of agentcli or Claude Code"
    if path.is_relative_to(home) and path != home:
        below_home = path.relative_to(home)
        for entry in HOME_ENTRIES:
            if below_home == Path(entry.name) or below_home.is_relative_to(entry.name):
                return f"{path} is ~/{entry.name}, where the shell, logins, git or the programs on PATH are set up"
    for part in _below(path, project_dir, home):
        if part.lower() in ANY_DEPTH_NAMES:
            kind = "the git folder" if part.lower() == ".git" else "a file or folder that makes programs run"
            return f"{path} is in {part}, {kind}"
    return None


def _below(path: Path, project_dir: Path, home: Path) -> tuple[str, ...]:
    """The entries of ``path`` below the project (or the home folder) that holds it: a project that itself lives
    in a folder named ``.idea`` is not protected as a whole."""
    for root in sorted((project_dir, home), key=lambda folder: len(folder.parts), reverse=True):
        if path.is_relative_to(root):
            return path.relative_to(root).parts
    return path.parts


def allow_line(rules: str | Sequence[str]) -> str:
    """The settings line (and the command-line form) that allows ``rules``, for a message the user can paste."""
    texts = [rules] if isinstance(rules, str) else list(rules)
    listed = ", ".join(json.dumps(text) for text in texts)
    return f'"permissions": {{"allow": [{listed}]}} to a settings file, or run with --allowedTools "{",".join(texts)}"'
