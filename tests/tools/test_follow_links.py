"""Recursive readers told to follow symbolic links."""

from __future__ import annotations

import pytest

from agentcli.tools.follow_links import follows_links
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
    ],
)
def test_follows_links(command: str, follows: bool):
    assert follows_links(parse_command(command).commands[0]) is follows
