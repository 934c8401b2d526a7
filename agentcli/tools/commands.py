"""Judging simple shell commands: which only read, and what a command really runs once wrappers are peeled off.

The read-only list is deliberately short and conservative: a command on it may run without asking and in
parallel with other reads, so any option that writes a file or runs another program takes it off the list.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agentcli.tools.shell import ASSIGNMENT, ParsedCommand, SimpleCommand

_Check = Callable[[list[str]], bool]


def _no_args(args: list[str]) -> bool:
    return not args


def _rejects(*bad: str, prefixes: tuple[str, ...] = (), short: str = "") -> _Check:
    """A check that refuses the listed options, long-option prefixes and short flags (also inside -abc groups)."""

    def check(args: list[str]) -> bool:
        for arg in args:
            if arg == "--":
                return True
            if arg in bad or any(arg.startswith(p) for p in prefixes):
                return False
            if short and arg.startswith("-") and not arg.startswith("--") and any(c in short for c in arg[1:]):
                return False
        return True

    return check


def _max_positional(limit: int) -> _Check:
    def check(args: list[str]) -> bool:
        return sum(1 for arg in args if not arg.startswith("-") or arg == "-") <= limit

    return check

_GIT_READ_ONLY = {
    "status", "log", "show", "diff", "blame", "ls-files", "ls-tree", "rev-parse", "describe", "shortlog",
    "grep", "show-ref", "merge-base", "count-objects", "cat-file", "rev-list", "whatchanged", "annotate",
    "name-rev", "check-ignore", "version", "help",
}
_GIT_BAD_OPTIONS = ("--output", "--ext-diff", "--open-files-in-pager", "--exec", "--upload-pack", "--receive-pack")


def _git(args: list[str]) -> bool:
    while args and args[0] in ("--no-pager", "--no-optional-locks", "-P"):
        args = args[1:]
    if not args or args[0].startswith("-"):
        return False  # other global options (-c, -C, --git-dir…) can run programs or move the repository
    sub, rest = args[0], args[1:]
    if any(arg.startswith(_GIT_BAD_OPTIONS) or arg == "-O" or (arg.startswith("-O") and sub == "grep")
           for arg in rest):
        return False
    if sub in _GIT_READ_ONLY:
        return True
    listing = {"-l", "--list", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--show-current",
               "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--column", "--no-column"}
    if sub == "branch":
        flags = [a for a in rest if a.startswith("-")]
        if not all(a in listing or a.startswith(("--sort=", "--format=", "--color")) for a in flags):
            return False
        positional = [a for a in rest if not a.startswith("-")]
        return not positional or any(f in rest for f in ("-l", "--list", "--contains", "--merged", "--no-merged",
                                                          "--points-at", "--no-contains"))
    if sub == "tag":
        return not rest or rest[0] in ("-l", "--list")
    if sub == "remote":
        return not rest or rest[0] in ("-v", "--verbose") or (rest[0] in ("show", "get-url") and len(rest) >= 2)
    if sub == "stash":
        return bool(rest) and rest[0] in ("list", "show")
    if sub == "config":
        return bool(rest) and rest[0] in ("--get", "--get-all", "--get-regexp", "--list", "-l")
    if sub == "reflog":
        return not rest or rest[0] == "show" or rest[0].startswith("-")
    return False


READ_ONLY_COMMANDS: dict[str, _Check | None] = {
    "ls": None, "cat": None, "head": None, "tail": None, "wc": None, "pwd": None, "echo": None, "printf": None,
    "true": None, "false": None, "sleep": None, "which": None, "type": None, "whoami": None, "id": None,
    "uname": None, "basename": None, "dirname": None, "realpath": None, "readlink": None, "file": None,
    "stat": None, "du": None, "df": None, "cut": None, "tr": None, "nl": None, "od": None, "hexdump": None,
    "strings": None, "md5sum": None, "sha1sum": None, "sha256sum": None, "sha512sum": None, "cksum": None,
    "comm": None, "cmp": None, "diff": None, "column": None, "seq": None, "test": None, "[": None, "[[": None,
    "printenv": None, "jq": None, "grep": None, "egrep": None, "fgrep": None, "cd": None,
    "env": _no_args, "hostname": _no_args,
    "date": _rejects("--set", prefixes=("--set=",), short="s"),
    "tree": _rejects("-o", prefixes=("-o",)),
    "rg": _rejects("--pre", prefixes=("--pre=",)),
    "fd": _rejects("-x", "-X", "--exec", "--exec-batch"),
    "sort": _rejects("--output", prefixes=("--output=", "--compress-program"), short="o"),
    "uniq": _max_positional(1),
    "find": _rejects("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"),
    "git": _git,
}
"""Commands that only read. A value is a check on the arguments (options that write or run programs fail it)."""

NON_PATH_COMMANDS = frozenset({"echo", "printf", "true", "false", "sleep", "which", "type", "whoami", "id", "uname",
                               "seq", "date", "printenv", "hostname", "env"})
"""Read-only commands whose arguments are never files, so they need no check against the project folder."""


def is_read_only_command(command: SimpleCommand) -> bool:
    """True when this simple command only reads (no prefix assignments, no output files, a listed command)."""
    if command.assignments or not command.argv:
        return False
    if command.writes_files():
        return False
    name_word = command.argv[0]
    if name_word.expands or name_word.globby:
        return False
    name = name_word.value
    if name not in READ_ONLY_COMMANDS:
        return False
    check = READ_ONLY_COMMANDS[name]
    return check is None or check([w.value for w in command.argv[1:]])


def is_read_only(parsed: ParsedCommand) -> bool:
    return parsed.analysable and bool(parsed.commands) and all(is_read_only_command(c) for c in parsed.commands)


def changes_directory(parsed: ParsedCommand) -> bool:
    return any(c.argv and c.argv[0].value in ("cd", "pushd", "popd") for c in parsed.commands)


_WRAPPERS = {"sudo", "env", "command", "builtin", "exec", "nohup", "time", "nice", "timeout", "xargs", "stdbuf",
             "doas", "ionice", "chronic", "unbuffer"}
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
            while words and (words[0].startswith("-") or ASSIGNMENT.match(words[0])
                             or re.fullmatch(r"\d+(\.\d+)?[smhd]?", words[0])):
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
