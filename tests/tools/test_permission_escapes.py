"""Permission escapes: commands and paths that a parser treating arguments as data would wave through.

Each class holds at least five members; every case is judged in default, acceptEdits and plan mode and with
unrelated allow rules in place. Read-only judgement is an allow-list, so every case here must ask (or, in plan
mode, be refused) unless it is in the harmless baseline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.tools.base import ToolEnv
from agentcli.tools.permissions import PermissionPolicy
from agentcli.tools.rules import parse_rule
from tests.tools.conftest import tool_named

ALLOW_RULES = ["Bash(npm test)", "Read(//etc/**)", "Edit(/src/**)"]

EVALUATES_CODE = [
    "printf -v 'a[$(id)]' x",
    "test -v 'a[$(id)]'",
    "[ -v 'a[$(id)]' ]",
    "[ -R x ]",
    "declare -p PATH",
    "eval ls",
    "echo $((1+2))",
    "cat <(id)",
    "let x=1",
    "[[ a -eq 1 ]]",
    "unset 'a[$(id)]'",
    "source ./x.sh",
    ". ./x.sh",
    "echo $(id)",
    "echo `id`",
    "cat $HOME/x",
    "mapfile -t a < README.md",
]
FLAGS_THAT_WRITE_OR_RUN = [
    "sort -o out README.md",
    "sort --compress-program=sh README.md",
    "sort -T /tmp README.md",
    "find . -exec id ';'",
    "find . -fprint out",
    "find . -delete",
    "find . -okdir id ';'",
    "tree -o out",
    "tree -R",
    "rg --pre ./evil foo",
    "rg --hostname-bin=./evil foo",
    "fd -x id",
    "git diff --output=x",
    "git log --ext-diff",
    "git grep -O evil x",
    "git diff --textconv",
    "git log --show-signature",
    "file -C -m x",
    "date -s 2020-01-01",
    "date 0101",
    "hostname evil",
    "git -c core.pager=id log",
    "uniq README.md out",
    "tail -f README.md",
    "grep --include-dir=x y",
    "ls --dired=x",
    "git remote show origin",
    "git log --format=%GS",
    "git show --pretty=format:%GK",
]
LEAVES_THE_PROJECT = [
    "cat {/etc/passwd,README.md}",
    "cat /{etc,tmp}/passwd",
    "ls */../..",
    "cat src/../../outside/secret.txt",
    "ls ~",
    "cat {/..0}etc/passwd",
    "cat link_out/secret.txt",
    "grep -f /etc/passwd x README.md",
    "grep -r x ../",
    "head -n1 < /etc/passwd",
    "cd .. && ls",
    "ls link_o*/",
    "wc -l l{ink_out,x}/secret.txt",
    "cat ~root/.bashrc",
    "cat .[.]/outside/secret.txt",
    "ls .?",
    "grep -r s3cret .*",
    "git blame --ignore-revs-file=../outside/secret.txt README.md",
    "git diff --relative=../",
    "git ls-files --exclude-from=../outside/secret.txt -o -i",
    "git grep --file=../outside/secret.txt",
    """jq -n 'import "config" as $d {search: "/root/.docker"}; $d'""",
    """jq -n 'import "../.docker/config" as $d; $d'""",
    """jq 'include "x" {search: "/etc"}; .' README.md""",
    "rg --files ..",
    "rg --files ../outside",
]
FOLLOWS_LINKS_OUT = [  # link_out is a symlink the repository ships, pointing outside it
    "grep -R s3cret .",
    "grep --dereference-recursive s3cret .",
    "grep -rnR s3cret src",
    "rg -L s3cret",
    "rg --follow s3cret",
    "rg -nL s3cret",
    "find . -follow -name secret.txt",
    "du -L",
    "ls -RL",
]
BARE_REPOSITORY_IN_THE_PROJECT = [  # vendor/evil looks like a repository to git, with diff.external set
    "cd vendor/evil && git diff HEAD~1 HEAD",
    "cd vendor/evil && git log -p",
    "cd vendor/evil && git show",
    "cd vendor/evil/refs && git diff",
    "cd vendor && cd evil && git status",
    "cd vendor; cd evil; git diff HEAD~1 HEAD",
    "git -C vendor/evil log",
]
PRINTS_THE_ENVIRONMENT = [
    "env",
    "printenv",
    "printenv HOME",
    "set",
    "export -p",
    "declare -x",
    "jq -n env",
    "jq -n '$ENV'",
    "echo $ANTHROPIC_API_KEY",
    "cat /proc/self/environ",
    "compgen -v",
]
HARMLESS = [
    "ls -la",
    "cat README.md",
    "grep -rn add src",
    "git log --oneline -3",
    "wc -l src/app.py",
    "head -5 README.md",
    "find src -name '*.py'",
    "sort README.md",
    "echo hi",
    "pwd",
    "git status",
    "rg -n add src",
    "cd src && ls",
]
GIT_CONFIGS_THAT_RUN_PROGRAMS = [
    "[core]\n\tfsmonitor = ./evil.sh\n",
    "[diff]\n\texternal = ./evil.sh\n",
    '[diff "x"]\n\ttextconv = ./evil.sh\n',
    "[include]\n\tpath = ../other.config\n",
    '[filter "lfs"]\n\tclean = ./evil.sh %f\n',
    "[core]\n\tpager = ./evil.sh\n",
    '[includeIf "gitdir:~/"]\n\tpath = x\n',
    "[log]\n\tshowSignature = true\n",
]
SUBMODULE_CONFIGS = [  # git status and git diff look into submodules, with the submodule's own config
    "git status",
    "git status -s",
    "git diff",
    "git diff --stat",
    "git log",
    "cd src && git status",
]
DENIED_READS = [  # with Read(./secrets/**) denied, every tool that reads is refused there
    ("Bash", {"command": "cat secrets/key.pem"}),
    ("Bash", {"command": "grep KEY secrets/key.pem"}),
    ("Bash", {"command": "head -1 < secrets/key.pem"}),
    ("Bash", {"command": "python3 secrets/key.pem"}),
    ("Bash", {"command": "cat secrets/*.pem"}),
    ("Bash", {"command": "cat link_secrets/key.pem"}),
    ("Grep", {"pattern": "KEY", "path": "{P}/secrets"}),
    ("Glob", {"pattern": "*", "path": "{P}/secrets"}),
    ("Read", {"file_path": "{P}/secrets/key.pem"}),
]
PROTECTED_WRITES = [
    "{P}/.git/hooks/pre-commit",
    "{P}/.GIT/hooks/pre-commit",
    "{P}/.AgentCli/settings.json",
    "{P}/.Claude/settings.local.json",
    "{P}/hooks_link/post-checkout",
    "{P}/.agentcli/settings.local.json",
]

MODES = ["default", "acceptEdits", "plan", "allow-rules"]


def _expected_for_risky(mode: str, reads: bool = False) -> str:
    """Plan mode refuses what may change something; a read outside the project asks there too."""
    return "deny" if mode == "plan" and not reads else "ask"


CASES: list[tuple[str, str, str, dict, str | None, str]] = []
for cls, commands in (
    ("evaluates-code", EVALUATES_CODE),
    ("flag-writes-or-runs", FLAGS_THAT_WRITE_OR_RUN),
    ("leaves-project", LEAVES_THE_PROJECT),
    ("prints-env", PRINTS_THE_ENVIRONMENT),
    ("follows-links-out", FOLLOWS_LINKS_OUT),
):
    for command in commands:
        for mode in MODES:
            reads = cls in ("leaves-project", "follows-links-out") or command == "cat /proc/self/environ"
            CASES.append((cls, mode, "Bash", {"command": command}, None, _expected_for_risky(mode, reads)))
for command in HARMLESS:
    for mode in MODES:
        CASES.append(("harmless", mode, "Bash", {"command": command}, None, "allow"))
for config in GIT_CONFIGS_THAT_RUN_PROGRAMS:
    for mode in MODES:
        CASES.append(
            ("git-config-runs-programs", mode, "Bash", {"command": "git status"}, config, _expected_for_risky(mode))
        )
for command in BARE_REPOSITORY_IN_THE_PROJECT:
    for mode in MODES:
        # Plan mode judges each part from the project folder, where git only reads; the cd then makes it ask.
        expected = "deny" if mode == "plan" and command.startswith("git -C") else "ask"
        CASES.append(("bare-repo-in-project", mode, "Bash", {"command": command}, None, expected))
for command in SUBMODULE_CONFIGS:
    for layout in ("modules", "in-place"):
        for mode in MODES:
            CASES.append(
                (f"submodule-config-{layout}", mode, "Bash", {"command": command}, None, _expected_for_risky(mode))
            )
for tool, tool_input in DENIED_READS:
    for mode in MODES:
        CASES.append(("read-deny-covers-all-readers", mode, tool, tool_input, None, "deny"))
for path in PROTECTED_WRITES:
    for mode in MODES:
        CASES.append(
            ("protected-paths", mode, "Write", {"file_path": path, "content": "x"}, None, _expected_for_risky(mode))
        )


def _fill(value: dict, places: dict[str, Path]) -> dict:
    return {
        key: item.replace("{P}", str(places["P"])) if isinstance(item, str) else item for key, item in value.items()
    }


def test_every_class_has_at_least_five_members_and_the_table_at_least_eighty_cases():
    per_class: dict[str, set[str]] = {}
    for cls, _mode, tool, tool_input, config, _expected in CASES:
        per_class.setdefault(cls, set()).add(f"{tool}{tool_input}{config}")
    assert all(len(members) >= 5 for members in per_class.values()), per_class
    assert sum(len(members) for members in per_class.values()) >= 80
    assert len(CASES) >= 320


@pytest.mark.parametrize(
    ("cls", "mode", "tool", "tool_input", "git_config", "expected"),
    CASES,
    ids=[f"{c[0]}-{c[1]}-{n}" for n, c in enumerate(CASES)],
)
def test_permission_table(places, cls, mode, tool, tool_input, git_config, expected):
    if git_config is not None:
        (places["P"] / ".git" / "config").write_text(git_config)
    if cls.startswith("submodule-config"):
        evil = "[core]\n\tfsmonitor = ../../evil.sh\n"
        (places["P"] / ".gitmodules").write_text('[submodule "sub"]\n\tpath = vendor/sub\n')
        inner = places["P"] / ("vendor/sub/.git" if cls.endswith("in-place") else ".git/modules/sub")
        inner.mkdir(parents=True)
        (inner / "config").write_text(evil)
    if cls == "bare-repo-in-project":
        bare = places["P"] / "vendor" / "evil"
        for folder in ("objects", "refs/heads"):
            (bare / folder).mkdir(parents=True)
        (bare / "HEAD").write_text("ref: refs/heads/main\n")
        (bare / "config").write_text("[core]\n\tbare = true\n[diff]\n\texternal = ../../evil.sh\n")
    rules = [parse_rule("Read(./secrets/**)", "deny", "projectSettings")]
    if mode == "allow-rules":
        rules += [parse_rule(text, "allow", "userSettings") for text in ALLOW_RULES]
    policy = PermissionPolicy(places["P"], mode="default" if mode == "allow-rules" else mode, rules=rules)
    verdict = policy.evaluate(tool_named(tool), _fill(tool_input, places), ToolEnv(places["P"]))
    assert verdict.behavior == expected, verdict


async def test_searches_leave_out_files_a_read_deny_rule_covers(places, run_tool):
    policy = PermissionPolicy(places["P"], rules=[parse_rule("Read(./secrets/**)", "deny", "projectSettings")])
    env = ToolEnv(places["P"], read_denied=policy.read_denied)
    (places["P"] / "notes.txt").write_text("KEY here too\n")
    grep = await run_tool("Grep", {"pattern": "KEY", "output_mode": "content"}, tool_env=env)
    assert "notes.txt" in grep.text and "key.pem" not in grep.text
    found = await run_tool("Glob", {"pattern": "**/*.pem"}, tool_env=env)
    assert "key.pem" not in found.text


@pytest.mark.parametrize(
    "command", ["(cd vendor/clean); git status", "(cd vendor/clean) && git log", "cd vendor/clean & git status"]
)
def test_git_is_judged_in_every_place_a_cd_may_leave_the_shell(places, command):
    """A subshell's cd does not last: git then runs in the project, whose own config names a program."""
    (places["P"] / ".git" / "config").write_text("[core]\n\tfsmonitor = ./evil.sh\n")
    (places["P"] / "vendor" / "clean" / ".git").mkdir(parents=True)
    (places["P"] / "vendor" / "clean" / ".git" / "config").write_text("[core]\n")
    verdict = PermissionPolicy(places["P"]).evaluate(tool_named("Bash"), {"command": command}, ToolEnv(places["P"]))
    assert verdict.behavior == "ask", verdict
