"""Ways a command the allow-list takes for read-only reads outside the project without naming the path.

The read-only judgement checks the paths a command names, with symlinks resolved. Some readers go further on
their own: a recursive reader told to follow links (``grep -R``, ``rg -L``, ``find -L``) enters every link it meets
on the way down, and a repository can ship a link to ``~/.ssh``; a jq program's ``import``/``include`` loads
modules and JSON data files (``import "../.docker/config" as $d``) from jq's search path in the home folder; and
``rg --files`` takes no pattern, so its first word is a path the table would read as one. Such a command asks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentcli.tools.shell import SimpleCommand


@dataclass(frozen=True, slots=True)
class Following:
    short: str = ""
    """Single-letter options (alone or in a cluster such as ``-nR``)."""
    words: frozenset[str] = frozenset()
    """Whole words (long options, and find's single-dash ones)."""


_GREP = Following("R", frozenset({"--dereference-recursive"}))
FOLLOWING = {
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": Following("L", frozenset({"--follow"})),
    "fd": Following("L", frozenset({"--follow"})),
    "ag": Following("f", frozenset({"--follow"})),
    "du": Following("L", frozenset({"--dereference"})),
    "ls": Following("L", frozenset({"--dereference"})),
    "tree": Following("l", frozenset({"--follow"})),
    "find": Following("", frozenset({"-L", "-follow"})),
}


_JQ_MODULES = re.compile(r"\b(import|include)\b")


def reaches_outside(command: SimpleCommand) -> bool:
    """Whether ``command`` reads beyond the paths it names (see the module's docstring)."""
    if not command.argv:
        return False
    name = command.argv[0].value
    words = [word.value for word in command.argv[1:]]
    if name == "jq":
        return any(_JQ_MODULES.search(word) for word in words)
    if name == "rg" and "--files" in words:
        return any(not word.startswith("-") for word in words)
    return _follows_links(name, words)


def _follows_links(name: str, words: list[str]) -> bool:
    following = FOLLOWING.get(name)
    if following is None:
        return False
    for value in words:
        if value == "--":
            return False
        if value.split("=", 1)[0] in following.words:
            return True
        short = value.startswith("-") and not value.startswith("--")
        if short and any(letter in value[1:] for letter in following.short):
            return True
    return False
