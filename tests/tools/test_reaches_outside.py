"""Readers that reach outside the project without naming the path: following links, jq modules, rg --files."""

from __future__ import annotations

import pytest

from agentcli.tools.reaches_outside import reaches_outside
from agentcli.tools.shell import parse_command


@pytest.mark.parametrize(
    ("command", "follows"),
    [
        ("grep -R x .", True),
        ("grep -nRi x .", True),
        ("grep -rn x .", False),
        ("grep --dereference-recursive x .", True),
        ("grep -- -R .", False),
        ("rg --follow x", True),
        ("rg -L x", True),
        ("rg -l x", False),
        ("find . -follow", True),
        ("find -L .", True),
        ("find . -name L", False),
        ("ls -la", False),
        ("ls -RL", True),
        ("cat -L", False),
        ("""jq -n 'import "../.docker/config" as $d; $d'""", True),
        ("""jq 'include "x"; .' a.json""", True),
        ("jq .important a.json", False),
        ("rg --files ..", True),
        ("rg --files", False),
        ("rg -n files src", False),
    ],
)
def test_reaches_outside(command: str, follows: bool):
    assert reaches_outside(parse_command(command).commands[0]) is follows
