"""What a shell command really runs once wrappers (``sudo``, ``env X=1``, ``timeout 5``…) are peeled off, so that
deny rules see through them. Which commands only read is :mod:`agentcli.tools.read_only`'s job.
"""

from __future__ import annotations

import re

from agentcli.tools.shell import ASSIGNMENT, ParsedCommand, SimpleCommand


def changes_directory(parsed: ParsedCommand) -> bool:
    return any(c.argv and c.argv[0].value in ("cd", "pushd", "popd") for c in parsed.commands)


_WRAPPERS = {
    "sudo",
    "env",
    "command",
    "builtin",
    "exec",
    "nohup",
    "time",
    "nice",
    "timeout",
    "xargs",
    "stdbuf",
    "doas",
    "ionice",
    "chronic",
    "unbuffer",
}
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh"}
_SUDO_VALUE_OPTIONS = {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}


def deny_variants(command: SimpleCommand) -> list[str]:
    """Ways to read ``command`` that a deny rule should catch: as written, unquoted, without wrappers
    (``sudo``, ``env X=1``, ``timeout 5``…) and prefix assignments, and with ``/bin/rm`` read as ``rm``."""
    variants = [command.text, command.plain]
    words = [w.value for w in command.argv]
    seen = 0
    while words and seen < 8:
        seen += 1
        head = words[0].rsplit("/", 1)[-1]
        if head != words[0]:
            words = [head, *words[1:]]
            continue
        if head in _WRAPPERS:
            words = words[1:]
            while words and (
                words[0].startswith("-") or ASSIGNMENT.match(words[0]) or re.fullmatch(r"\d+(\.\d+)?[smhd]?", words[0])
            ):
                takes_value = head in ("sudo", "doas") and words[0] in _SUDO_VALUE_OPTIONS
                words = words[2:] if takes_value else words[1:]
            continue
        break
    variants.append(" ".join(words))
    return list(dict.fromkeys(v for v in variants if v))


def inner_scripts(command: SimpleCommand) -> list[str]:
    """Command text that this command runs itself: ``bash -c '…'``, ``eval …`` (deny rules look inside)."""
    words = [w.value for w in command.argv]
    while words and words[0].rsplit("/", 1)[-1] in _WRAPPERS:
        words = words[1:]
        while words and words[0].startswith("-"):
            words = words[1:]
    if not words:
        return []
    name = words[0].rsplit("/", 1)[-1]
    if name == "eval":
        return [" ".join(words[1:])]
    if name in _SHELLS:
        for index, arg in enumerate(words[1:], 1):
            if arg.startswith("-") and "c" in arg and not arg.startswith("--") and index + 1 < len(words):
                return [words[index + 1]]
    return []
