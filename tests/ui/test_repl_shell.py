"""``!cmd`` in the inline REPL (``--plain``): the output is printed like a Bash call, told to the model with the next
prompt, and Esc or ctrl+c stops the command and gives the prompt back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.ui.repl.render import SHELL_OUTPUT_LINES
from tests.messages import sent_text
from tests.ui.conftest import text_turn
from tests.ui.repl_driver import CTRL_C, ENTER, ESCAPE
from tests.ui.test_shell_command import processes_naming, waiting_script


async def test_bang_prints_the_output_and_the_next_prompt_carries_it(start_repl, tmp_path: Path):
    repl = start_repl([text_turn("It printed hi.")])
    await repl.idle()
    repl.type("!echo hi; echo there" + ENTER)
    await repl.wait_for("● Bash(echo hi; echo there)\n  ⎿  hi\n     there\n")
    await repl.idle()
    assert repl.server.requests == []  # the command went to the shell, not to the model
    assert json.loads((tmp_path / "history.jsonl").read_text().splitlines()[-1])["text"] == "!echo hi; echo there"
    await repl.send("what did it print?")
    sent = sent_text(repl.server.requests[-1].body["messages"][-1])
    assert sent == (
        "<bash-input>echo hi; echo there</bash-input>\n<bash-stdout>hi\nthere\n</bash-stdout>\n"
        "<bash-exit-code>0</bash-exit-code>\nwhat did it print?"
    )
    await repl.send("and now?")
    assert sent_text(repl.server.requests[-1].body["messages"][-1]) == "and now?"  # told once


async def test_clear_drops_shell_output_waiting_for_the_next_prompt(start_repl):
    repl = start_repl([text_turn("fresh")])
    await repl.idle()
    repl.type("!echo before-clear" + ENTER)
    await repl.wait_for("before-clear\n")
    await repl.idle()
    repl.type("/clear" + ENTER)
    await repl.wait_for("Started a new session")
    await repl.send("hello")
    assert sent_text(repl.server.requests[-1].body["messages"][-1]) == "hello"


async def test_a_failing_command_shows_its_exit_code(start_repl):
    repl = start_repl([])
    await repl.idle()
    repl.type("!echo broken >&2; exit 4" + ENTER)
    await repl.wait_for("● Bash(echo broken >&2; exit 4)\n  ⎿  broken\n     Exit code 4\n")
    await repl.idle()
    repl.type("!" + ENTER)  # a lone ! is a prompt like any other
    await repl.until(lambda: repl.server.requests)
    assert sent_text(repl.server.requests[-1].body["messages"][-1]).endswith("<bash-exit-code>4</bash-exit-code>\n!")


async def test_a_long_output_is_printed_up_to_a_cap(start_repl):
    repl = start_repl([])
    await repl.idle()
    repl.type(f"!seq 1 {SHELL_OUTPUT_LINES + 100}" + ENTER)
    await repl.wait_for(f"     {SHELL_OUTPUT_LINES}\n     … 100 more lines\n")
    assert "  ⎿  1\n     2\n" in repl.output and f"     {SHELL_OUTPUT_LINES + 1}\n" not in repl.output


@pytest.mark.parametrize("key", [ESCAPE, CTRL_C], ids=["esc", "ctrl+c"])
async def test_esc_or_ctrl_c_stops_the_command_and_the_prompt_comes_back(start_repl, project: Path, key: str):
    script = waiting_script(project)
    repl = start_repl([text_turn("fine")])
    await repl.idle()
    repl.type(f"!sh ./{script}" + ENTER)
    await repl.until(lambda: any("started" in tool.output for tool in repl.repl.view.tools.values()))
    assert processes_naming(script)
    repl.type(key)
    await repl.wait_for("  ⎿  started\n     Interrupted by user\n")
    await repl.idle()
    await repl.until(lambda: not processes_naming(script))
    await repl.send("next")
    assert sent_text(repl.server.requests[-1].body["messages"][-1]) == "next"
