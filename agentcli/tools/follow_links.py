"""Options that make a reader follow symbolic links while it walks a folder tree.

The read-only judgement checks the paths a command names, with symlinks resolved; a recursive reader told to
follow links (``grep -R``, ``rg -L``, ``find -L``) also enters every link it meets on the way down, and a
repository can ship a link to ``~/.ssh``. Such a command is never approved as only reading the project: it asks.
"""

from __future__ import annotations

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


def follows_links(command: SimpleCommand) -> bool:
    """Whether ``command`` walks folders following the symbolic links it meets."""
    if not command.argv:
        return False
    following = FOLLOWING.get(command.argv[0].value)
    if following is None:
        return False
    for word in command.argv[1:]:
        value = word.value
        if value == "--":
            return False
        if value.split("=", 1)[0] in following.words:
            return True
        short = value.startswith("-") and not value.startswith("--")
        if short and any(letter in value[1:] for letter in following.short):
            return True
    return False
