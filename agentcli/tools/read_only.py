"""Which simple shell commands only read: the program and every option must be known to be harmless.

A command judged read-only runs without asking (and in plan mode), so the judgement is an allow-list: each
program lists the options it may have (``read_only_programs``), and anything not listed (an option that writes a
file, runs a program, evaluates code or prints the environment) takes the command off.
Words the shell fills in at run time (``$VAR``, ``$(…)``, ``$((…))``, ``<(…)``) are never read-only, since they
can evaluate code or leak secrets.
What is left are the paths the command reads; the permission policy checks those against the project folder.
"""

from __future__ import annotations

from pathlib import Path

from agentcli.tools.read_only_programs import FIND_FLAGS, FIND_VALUED, JQ_ENVIRONMENT, READ_ONLY, TEST_OPTIONS, Spec
from agentcli.tools.shell import ParsedCommand, SimpleCommand, Word


def _options(spec: Spec, args: list[str]) -> tuple[bool, list[str], list[str]]:  # noqa: C901
    """Check every option of ``args``; return (all harmless, positional words, option values that are files)."""
    positional: list[str] = []
    path_values: list[str] = []
    pattern_given = False
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            positional += args[index:]
            break
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            continue
        if arg.startswith("--"):
            name, has_value, _ = arg.partition("=")
            if name in spec.long and not has_value:
                continue
            if name in spec.long_valued:
                if not has_value:
                    if index >= len(args):
                        return False, [], []
                    index += 1
                pattern_given |= name in ("--regexp", "--file")
                if name == "--file":
                    path_values.append(arg.split("=", 1)[1] if has_value else args[index - 1])
                continue
            return False, [], []
        if spec.numeric_option and arg[1:].isdigit():
            continue
        for position, letter in enumerate(arg[1:], 1):
            if letter in spec.valued:
                value = arg[position + 1 :]
                if not value:
                    if index >= len(args):
                        return False, [], []
                    value = args[index]
                    index += 1
                pattern_given |= letter in spec.pattern_options
                if letter in spec.path_values:
                    path_values.append(value)
                break
            if letter not in spec.flags:
                return False, [], []
    if spec.pattern_first and positional and not pattern_given:
        positional = positional[1:]
    return True, positional, path_values


def read_only_paths(command: SimpleCommand, cwd: Path | None = None) -> list[Word] | None:  # noqa: C901
    """The paths a read-only command reads, or None when it is not read-only."""
    from agentcli.tools.git_check import git_is_read_only

    if command.assignments or not command.argv or command.writes_files():
        return None
    if any(word.expands for word in command.words) or any(
        r.target is not None and r.target.expands for r in command.redirects
    ):
        return None
    name = command.argv[0].value
    spec = READ_ONLY.get(name)
    if spec is None or command.argv[0].globby:
        return None
    args = [word.value for word in command.argv[1:]]
    by_value = {word.value: word for word in command.argv[1:]}
    if name == "git":
        return _words(git_is_read_only(args, cwd), by_value)
    if name == "find":
        return _words(_find_paths(args), by_value)
    if name in ("test", "["):
        if any(arg.startswith("-") and arg not in TEST_OPTIONS for arg in args):
            return None
        return []
    if name == "jq" and any(JQ_ENVIRONMENT.search(arg) for arg in args):
        return None
    if name == "date" and any(not arg.startswith(("-", "+")) for arg in args):
        return None  # a bare date sets the clock
    ok, positional, path_values = _options(spec, args)
    if not ok or (spec.max_positional is not None and len(positional) > spec.max_positional):
        return None
    if name == "cd" and not positional:
        positional = ["~"]
    if spec.paths and not positional:
        positional = ["."]  # ls, grep -r, du… with no file read the working directory
    paths = (positional if spec.paths else []) + path_values
    return [by_value.get(value, Word(value, value)) for value in paths]


def _find_paths(args: list[str]) -> list[str] | None:
    paths: list[str] = []
    index = 0
    while index < len(args) and not args[index].startswith(("-", "(", "!")):
        paths.append(args[index])
        index += 1
    while index < len(args):
        arg = args[index]
        if arg in FIND_VALUED and index + 1 < len(args):
            if arg in ("-newer", "-samefile"):
                paths.append(args[index + 1])
            index += 2
        elif arg in FIND_FLAGS:
            index += 1
        else:
            return None
    return paths


def _words(paths: list[str] | None, by_value: dict[str, Word]) -> list[Word] | None:
    if paths is None:
        return None
    return [by_value.get(value, Word(value, value)) for value in paths]


def is_read_only_command(command: SimpleCommand, cwd: Path | None = None) -> bool:
    return read_only_paths(command, cwd) is not None


def is_read_only(parsed: ParsedCommand, cwd: Path | None = None) -> bool:
    return parsed.analysable and bool(parsed.commands) and all(is_read_only_command(c, cwd) for c in parsed.commands)
