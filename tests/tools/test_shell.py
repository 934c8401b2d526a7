"""The shell command splitter and the read-only list behind Bash permissions and concurrency."""

from __future__ import annotations

import pytest

from agentcli.tools.commands import deny_variants, inner_scripts
from agentcli.tools.read_only import is_read_only
from agentcli.tools.shell import parse_command


def _texts(command: str) -> list[str]:
    return [sub.text for sub in parse_command(command).commands]


@pytest.mark.parametrize(
    ("command", "parts"),
    [
        ("git status; rm -rf ~", ["git status", "rm -rf ~"]),
        ("a && b || c | d |& e & f", ["a", "b", "c", "d", "e", "f"]),
        ("(cd src && ls) || true", ["cd src", "ls", "true"]),
        ("echo $(whoami) `id -u`", ["echo $(whoami) `id -u`", "whoami", "id -u"]),
        ('echo "$(rm -rf x)"', ['echo "$(rm -rf x)"', "rm -rf x"]),
        ("echo $(echo $(nested))", ["echo $(echo $(nested))", "echo $(nested)", "nested"]),
        ("diff <(ls a) >(cat)", ["diff <(ls a) >(cat)", "ls a", "cat"]),
        ("ls # rm -rf /", ["ls"]),
        ("echo 'a; b' \"c && d\"", ["echo 'a; b' \"c && d\""]),
        ("echo a\\;b", ["echo a\\;b"]),
        ("cat <<'EOF'\nrm -rf /\nEOF\nls", ["cat <<'EOF'", "ls"]),
        ("ls 2>&1 >/dev/null", ["ls 2>&1 >/dev/null"]),
        ("{ ls; pwd; }", ["ls", "pwd"]),
        ("FOO=1 BAR='x y' env", ["FOO=1 BAR='x y' env"]),
    ],
)
def test_splitting(command, parts):
    assert _texts(command) == parts


def test_quotes_are_removed_in_values_but_kept_in_the_text():
    sub = parse_command("'rm' -rf \"my dir\" $'a\\tb'").commands[0]
    assert [w.value for w in sub.words][:3] == ["rm", "-rf", "my dir"]
    assert sub.plain.startswith("rm -rf my dir")
    assert sub.text.startswith("'rm' -rf \"my dir\"")


@pytest.mark.parametrize(
    "command",
    [
        "if true; then rm x; fi",
        "for f in *; do echo $f; done",
        "while read l; do :; done",
        "f() { ls; }",
        "case $x in a) ls;; esac",
        "a=(1 2 3)",
        "cat <<EOF\n$(rm -rf /)\nEOF\n",
    ],
)
def test_control_flow_is_complex(command):
    assert parse_command(command).complex


@pytest.mark.parametrize("command", ["echo 'open", 'echo "open', "echo $(open", "echo `open", "ls )", "cat <<EOF\nx"])
def test_syntax_errors_are_reported(command):
    parsed = parse_command(command)
    assert parsed.error and not parsed.analysable


def test_commands_inside_control_flow_are_still_listed_for_deny_rules():
    assert "rm x" in _texts("if true; then rm x; fi")


@pytest.mark.parametrize(
    ("command", "read_only"),
    [
        ("ls -la", True),
        ("cat a b | grep -n x | wc -l", True),
        ("git log --oneline -5", True),
        ("git --no-pager diff", True),
        ("git branch", True),
        ("git branch -a --list 'feat*'", True),
        ("git branch new-feature", False),
        ("git stash list", True),
        ("git stash", False),
        ("git config --get x", True),
        ("git config user.name x", False),
        ("git diff --output=x", False),
        ("git push", False),
        ("find . -name '*.py'", True),
        ("find . -delete", False),
        ("sort -u x", True),
        ("sort -uo x y", False),
        ("rg foo", True),
        ("rg --pre ./evil foo", False),
        ("date +%s", True),
        ("date -s 2020-01-01", False),
        ("uniq a", True),
        ("uniq a b", False),
        ("env", False),
        ("env rm -rf x", False),
        ("echo hi > x", False),
        ("echo hi >> /dev/null", True),
        ("cat < in.txt", True),
        ("A=1 ls", False),
        ("$CMD", False),
        ("npm test", False),
        ("sleep 1", True),
        ("tree -o out", False),
        ("xargs rm", False),
        ("cd src", True),
        ("echo $(rm x)", False),
        ("ls; echo `whoami`", False),
    ],
)
def test_read_only_list(command, read_only, project):
    assert is_read_only(parse_command(command), project) is read_only


def test_deny_variants_peel_off_wrappers():
    sub = parse_command("sudo -u root timeout 5 env A=1 nice -n 5 /usr/bin/rm -rf /").commands[0]
    assert "rm -rf /" in deny_variants(sub)
    assert inner_scripts(parse_command("bash -lc 'rm -rf /'").commands[0]) == ["rm -rf /"]
    assert inner_scripts(parse_command("eval rm -rf /").commands[0]) == ["rm -rf /"]
