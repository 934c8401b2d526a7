"""Which simple shell commands only read: the program and every option must be known to be harmless.

A command judged read-only runs without asking (and in plan mode), so the judgement is an allow-list: each
program lists the options it may have, and anything not listed (an option that writes a file, runs a program,
evaluates code or prints the environment) takes the command off. Words the shell fills in at run time
(``$VAR``, ``$(…)``, ``$((…))``, ``<(…)``) are never read-only, since they can evaluate code or leak secrets.
What is left are the paths the command reads; the permission policy checks those against the project folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from agentcli.tools.shell import ParsedCommand, SimpleCommand, Word


@dataclass(frozen=True, slots=True)
class Spec:
    """The harmless options of one program. Short options may be grouped (``-la``); a valued one takes the rest of
    its group or the next word."""

    flags: str = ""
    valued: str = ""
    long: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    paths: bool = True
    """Positional words are files (checked against the project); False: they are plain strings."""
    pattern_first: bool = False
    """The first positional word is a pattern, not a file (grep), unless a ``pattern_options`` option gave one."""
    pattern_options: str = ""
    path_values: str = ""
    """Valued short options whose value is a file."""
    max_positional: int | None = None
    numeric_option: bool = False
    """Accepts ``-5`` (head, tail)."""


def _long(*names: str) -> frozenset[str]:
    return frozenset(names)


READ_ONLY: dict[str, Spec] = {
    "ls": Spec(
        "1aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ",
        "IwT",
        _long(
            "--all",
            "--almost-all",
            "--human-readable",
            "--long",
            "--recursive",
            "--reverse",
            "--directory",
            "--classify",
            "--inode",
            "--size",
            "--numeric-uid-gid",
            "--group-directories-first",
        ),
        _long(
            "--color",
            "--sort",
            "--format",
            "--time-style",
            "--ignore",
            "--width",
            "--time",
            "--indicator-style",
            "--block-size",
            "--hide",
        ),
    ),
    "cat": Spec("AbeEnsStTuv", long=_long("--number", "--show-all", "--number-nonblank", "--squeeze-blank")),
    "head": Spec("qvz", "nc", _long("--quiet", "--verbose"), _long("--lines", "--bytes"), numeric_option=True),
    "tail": Spec("qvz", "nc", _long("--quiet", "--verbose"), _long("--lines", "--bytes"), numeric_option=True),
    "wc": Spec("clmwL", long=_long("--bytes", "--chars", "--lines", "--words", "--max-line-length")),
    "pwd": Spec("LP", max_positional=0),
    "echo": Spec("neE", paths=False),
    "printf": Spec(paths=False),
    "true": Spec(paths=False),
    "false": Spec(paths=False),
    "sleep": Spec(paths=False),
    "which": Spec("a", paths=False),
    "type": Spec("afptP", paths=False),
    "whoami": Spec(max_positional=0),
    "id": Spec("gGnruz", paths=False),
    "uname": Spec("asnrvmpio", long=_long("--all"), max_positional=0),
    "hostname": Spec("fsi", max_positional=0),
    "basename": Spec("az", "s", paths=False),
    "dirname": Spec("z", paths=False),
    "realpath": Spec("eLmPqsz", long_valued=_long("--relative-to", "--relative-base")),
    "readlink": Spec("efmnqsvz"),
    "file": Spec("bhiLkNprsz", long=_long("--mime", "--mime-type", "--brief")),
    "stat": Spec("LftZ", "c", _long("--dereference", "--terse"), _long("--format", "--printf")),
    "du": Spec(
        "abcDhHklLmsSxP0",
        "d",
        _long("--summarize", "--human-readable", "--apparent-size", "--total"),
        _long("--max-depth", "--block-size", "--exclude"),
    ),
    "df": Spec("ahHiklPTx", long=_long("--human-readable", "--inodes", "--print-type")),
    "cut": Spec(
        "nsz",
        "bcdf",
        _long("--complement", "--only-delimited"),
        _long("--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter"),
    ),
    "tr": Spec("cdsCt", paths=False),
    "nl": Spec("p", "bhfvisnw"),
    "od": Spec("bcdfilosxv", "AjNtw"),
    "hexdump": Spec("bcCdovx", "ns"),
    "strings": Spec("afw", "ent"),
    "md5sum": Spec("bctwz", long=_long("--check", "--tag", "--quiet", "--status")),
    "sha1sum": Spec("bctwz", long=_long("--check", "--tag", "--quiet", "--status")),
    "sha256sum": Spec("bctwz", long=_long("--check", "--tag", "--quiet", "--status")),
    "sha512sum": Spec("bctwz", long=_long("--check", "--tag", "--quiet", "--status")),
    "cksum": Spec(),
    "comm": Spec("123iz", long_valued=_long("--output-delimiter")),
    "cmp": Spec("blsz", "in"),
    "diff": Spec(
        "abBdEiNqrsTtuwyZ",
        "UCx",
        _long(
            "--brief",
            "--recursive",
            "--unified",
            "--ignore-all-space",
            "--ignore-case",
            "--side-by-side",
            "--ignore-blank-lines",
            "--new-file",
            "--text",
            "--report-identical-files",
            "--stat",
        ),
        _long("--color", "--unified", "--context", "--exclude"),
    ),
    "column": Spec("tnex", "csoNOR"),
    "seq": Spec("w", "fs", paths=False),
    "test": Spec(paths=False),
    "[": Spec(paths=False),
    "cd": Spec("LP", max_positional=1),
    "grep": Spec(
        "EFGPiyvwxclLoqsbHhnTZzrRaIUu",
        "efmABCdD",
        _long(
            "--extended-regexp",
            "--fixed-strings",
            "--ignore-case",
            "--invert-match",
            "--word-regexp",
            "--line-regexp",
            "--count",
            "--files-with-matches",
            "--files-without-match",
            "--only-matching",
            "--quiet",
            "--silent",
            "--no-messages",
            "--line-number",
            "--with-filename",
            "--no-filename",
            "--recursive",
            "--dereference-recursive",
            "--text",
            "--null",
            "--perl-regexp",
        ),
        _long(
            "--include",
            "--exclude",
            "--exclude-dir",
            "--color",
            "--colour",
            "--max-count",
            "--after-context",
            "--before-context",
            "--context",
            "--binary-files",
            "--regexp",
            "--file",
        ),
        pattern_first=True,
        pattern_options="ef",
        path_values="f",
    ),
    "rg": Spec(
        "iSsFwxvcloqnNHhuUL.abP0",
        "egtTmABCjMr",
        _long(
            "--ignore-case",
            "--smart-case",
            "--fixed-strings",
            "--word-regexp",
            "--count",
            "--files",
            "--files-with-matches",
            "--files-without-match",
            "--only-matching",
            "--line-number",
            "--hidden",
            "--no-ignore",
            "--follow",
            "--json",
            "--no-heading",
            "--heading",
            "--multiline",
            "--vimgrep",
            "--invert-match",
            "--stats",
            "--no-messages",
            "--with-filename",
            "--no-filename",
        ),
        _long(
            "--glob",
            "--iglob",
            "--type",
            "--type-not",
            "--max-count",
            "--max-depth",
            "--regexp",
            "--context",
            "--after-context",
            "--before-context",
            "--color",
            "--colors",
            "--sort",
            "--sortr",
            "--replace",
            "--max-columns",
            "--threads",
        ),
        pattern_first=True,
        pattern_options="e",
    ),
    "fd": Spec(
        "HIsLpaFgiu0l1",
        "edtE",
        _long(
            "--hidden",
            "--no-ignore",
            "--follow",
            "--full-path",
            "--absolute-path",
            "--glob",
            "--ignore-case",
            "--case-sensitive",
            "--list-details",
            "--fixed-strings",
        ),
        _long(
            "--extension",
            "--max-depth",
            "--type",
            "--exclude",
            "--size",
            "--changed-within",
            "--changed-before",
            "--color",
            "--max-results",
        ),
        pattern_first=True,
    ),
    "tree": Spec(
        "adfiqNQpugshDFvtcUrxCAS",
        "LIP",
        _long("--dirsfirst", "--noreport"),
        _long("--charset", "--filelimit", "--sort"),
    ),
    "sort": Spec(
        "bdfgiMhnRrsuVcCz",
        "ktS",
        _long(
            "--numeric-sort",
            "--reverse",
            "--unique",
            "--human-numeric-sort",
            "--version-sort",
            "--ignore-case",
            "--stable",
            "--check",
            "--general-numeric-sort",
            "--month-sort",
        ),
        _long("--key", "--field-separator", "--buffer-size"),
    ),
    "uniq": Spec(
        "cdDiuz",
        "fsw",
        _long("--count", "--repeated", "--unique", "--ignore-case"),
        _long("--skip-fields", "--skip-chars", "--check-chars"),
        max_positional=1,
    ),
    "jq": Spec(
        "rjacnsSeCM",
        long=_long(
            "--raw-output",
            "--join-output",
            "--ascii-output",
            "--compact-output",
            "--null-input",
            "--slurp",
            "--sort-keys",
            "--exit-status",
            "--tab",
        ),
        pattern_first=True,
    ),
    "date": Spec("uR", "d", _long("--utc", "--rfc-email"), _long("--date", "--iso-8601", "--rfc-3339"), paths=False),
    "git": Spec(paths=True),
    "find": Spec(paths=True),
}
"""Programs that only read, with the options each may have (``git`` and ``find`` have checks of their own)."""

_FIND_VALUED = frozenset(
    {
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-type",
        "-xtype",
        "-maxdepth",
        "-mindepth",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-size",
        "-regex",
        "-iregex",
        "-perm",
        "-user",
        "-group",
        "-links",
        "-lname",
        "-ilname",
        "-uid",
        "-gid",
        "-printf",
        "-regextype",
        "-newer",
        "-samefile",
    }
)
_FIND_FLAGS = frozenset(
    {
        "-print",
        "-print0",
        "-prune",
        "-o",
        "-a",
        "-or",
        "-and",
        "-not",
        "!",
        "(",
        ")",
        "-empty",
        "-L",
        "-H",
        "-P",
        "-follow",
        "-xdev",
        "-mount",
        "-depth",
        "-readable",
        "-writable",
        "-executable",
        "-true",
        "-false",
        "-quit",
        "-nouser",
        "-nogroup",
        "-ls",
    }
)
"""``find`` expressions that only look (no -exec, -ok, -delete, -fprint…)."""

_TEST_OPTIONS = frozenset(
    {
        "-e",
        "-f",
        "-d",
        "-r",
        "-w",
        "-x",
        "-s",
        "-L",
        "-h",
        "-n",
        "-z",
        "-b",
        "-c",
        "-p",
        "-S",
        "-g",
        "-u",
        "-k",
        "-O",
        "-G",
        "-N",
        "-t",
        "-nt",
        "-ot",
        "-ef",
        "-eq",
        "-ne",
        "-lt",
        "-le",
        "-gt",
        "-ge",
        "-a",
        "-o",
        "!",
        "=",
        "!=",
        "==",
        "(",
        ")",
        "]",
    }
)
"""``test`` operators that only look (``-v`` and ``-R`` evaluate array subscripts, so they are not here)."""
_JQ_ENVIRONMENT = re.compile(r"\benv\b|\$ENV|\$__prog|input_filename|\$__loc__")


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
        if any(arg.startswith("-") and arg not in _TEST_OPTIONS for arg in args):
            return None
        return []
    if name == "jq" and any(_JQ_ENVIRONMENT.search(arg) for arg in args):
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
        if arg in _FIND_VALUED and index + 1 < len(args):
            if arg in ("-newer", "-samefile"):
                paths.append(args[index + 1])
            index += 2
        elif arg in _FIND_FLAGS:
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
