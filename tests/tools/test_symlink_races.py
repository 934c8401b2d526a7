"""Write and Edit against a folder swapped for a symlink between the permission check and the write: the real
permission policy and tool executor, and a separate process that flips a folder of the project between a real
folder and a symlink to a folder outside it, for a bounded number of rounds, while the tools run many times.
Nothing ever lands outside; every write that succeeded is inside; a swap at the worst moment is refused by name."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentcli.tools.base import Tool, ToolCall, ToolEnv, ToolRegistry
from agentcli.tools.executor import StreamingToolExecutor
from agentcli.tools.permissions import PermissionDecision, PermissionPolicy
from agentcli.tools.registry import builtin_tools
from tests.waiting import DEADLINE_S

ROUNDS = 150
"""Tool calls per race test."""
REFUSALS = ("symbolic link", "was swapped", "outside the project folder", "Could not create the folder")
"""Why a Write in the race may fail: the swap met on the way, the check itself saw the link, or the folder it was
making was taken away under it."""
MAX_FLIPS = 200_000
"""The flipper's bound: it stops after this many swaps even if nobody tells it to."""

FLIPPER = r"""
import os, sys

flip, aside, outside, stop, limit = sys.argv[1:6]
strays = 0


def move_aside(path):
    # a Write made the folder while it was missing: keep it, inside the project, out of the way
    global strays
    strays += 1
    os.rename(path, f"{aside}-stray-{strays}")


def put(source, target):
    while True:
        try:
            os.rename(source, target)
            return
        except FileNotFoundError:
            return
        except OSError:
            move_aside(target)


def link():
    while True:
        try:
            os.symlink(outside, flip)
            return
        except FileExistsError:
            move_aside(flip)


flips = 0
for flips in range(1, int(limit) + 1):
    put(flip, aside)
    link()
    if flips == 1:
        print("flipping", flush=True)
    os.unlink(flip)
    put(aside, flip)
    if flips % 32 == 0 and os.path.exists(stop):
        break
print(flips, flush=True)
"""


@dataclass
class Flipper:
    """The separate process swapping ``folder`` between the real folder and a symlink to ``outside``."""

    process: subprocess.Popen[str]
    stop_file: Path

    def finish(self) -> int:
        """Stop it; the number of swaps it made (the folder is a real folder again)."""
        self.stop_file.touch()
        out, err = self.process.communicate(timeout=DEADLINE_S)
        assert self.process.returncode == 0, err
        return int(out.split()[-1])


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    place = tmp_path / "outside"
    place.mkdir()
    return place


@pytest.fixture
def flipper(project: Path, outside: Path, tmp_path: Path) -> Iterator[Callable[[Path], Flipper]]:
    started: list[Flipper] = []

    def start(folder: Path) -> Flipper:
        stop = tmp_path / "stop-flipping"
        args = [str(folder), str(project / "aside"), str(outside), str(stop), str(MAX_FLIPS)]
        process = subprocess.Popen(
            [sys.executable, "-c", FLIPPER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "flipping"  # blocks until the first swap is done
        started.append(Flipper(process, stop))
        return started[-1]

    yield start
    for running in started:
        if running.process.poll() is None:
            running.process.kill()
            running.process.communicate()


def policy_env(project: Path) -> tuple[PermissionPolicy, ToolEnv]:
    """acceptEdits: a change inside the project runs without a question, one outside is refused (no one to ask)."""
    return PermissionPolicy(project, mode="acceptEdits"), ToolEnv(project_dir=project)


async def run_call(
    env: ToolEnv, can_use_tool: Any, name: str, tool_input: dict[str, Any], tool_id: str = "toolu_1"
) -> tuple[bool, str]:
    """One tool call through the real executor: whether it succeeded, and what the model was told."""
    executor = StreamingToolExecutor(ToolRegistry(builtin_tools()), env, can_use_tool)
    executor.add({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
    async for _event in executor.drain():
        pass
    block = executor.results()[0].block
    content = block["content"]
    text = content if isinstance(content, str) else "".join(part.get("text", "") for part in content)
    return not block.get("is_error", False), text


def everything_under(folder: Path) -> list[Path]:
    """Every file and folder below ``folder``, without following symlinks."""
    found = []
    for root, dirs, files in os.walk(folder):
        found += [Path(root, name) for name in dirs + files]
    return found


def files_named(folder: Path, name: str) -> list[Path]:
    return [path for path in everything_under(folder) if path.name == name and path.is_file()]


# -- a flipper while the tools run ---------------------------------------------------------------------------------


async def test_writes_under_a_flipping_folder_never_land_outside(project: Path, outside: Path, flipper):
    folder = project / "flip"
    (folder / "sub").mkdir(parents=True)
    policy, env = policy_env(project)
    race = flipper(folder)
    written: list[int] = []
    for n in range(ROUNDS):
        ok, said = await run_call(
            env, policy, "Write", {"file_path": f"{folder}/sub/note-{n}.txt", "content": f"{n}\n"}
        )
        assert everything_under(outside) == [], f"round {n} wrote outside: {said}"
        assert ok or any(why in said for why in REFUSALS), said
        written += [n] if ok else []
    flips = race.finish()
    assert everything_under(outside) == [] and flips >= 1
    for n in written:  # the project holds still now: each write that succeeded is in it, once
        assert [p.read_text() for p in files_named(project, f"note-{n}.txt")] == [f"{n}\n"]
    print(f"{len(written)} written, {ROUNDS - len(written)} refused, {flips} swaps")


async def test_edits_under_a_flipping_folder_change_only_the_real_file(project: Path, outside: Path, flipper):
    """A decoy with the same name and text waits outside: an Edit that followed the link would change it."""
    folder = project / "flip"
    folder.mkdir()
    (folder / "notes.txt").write_text("value: 0\n")
    (outside / "notes.txt").write_text("value: 0\n")
    policy, env = policy_env(project)
    assert (await run_call(env, policy, "Read", {"file_path": str(folder / "notes.txt")}))[0]
    race = flipper(folder)
    edits = 0
    for n in range(ROUNDS):
        ok, said = await run_call(
            env,
            policy,
            "Edit",
            {"file_path": str(folder / "notes.txt"), "old_string": "value: ", "new_string": "value: +"},
        )
        assert (outside / "notes.txt").read_text() == "value: 0\n", f"round {n} edited the decoy: {said}"
        edits += ok
    race.finish()
    assert (outside / "notes.txt").read_text() == "value: 0\n" and os.listdir(outside) == ["notes.txt"]
    assert (folder / "notes.txt").read_text() == f"value: {'+' * edits}0\n"


# -- the worst moment, exactly: swapped after the check, before the write -------------------------------------------


def swapping_after_the_check(policy: PermissionPolicy, swap: Callable[[], None]) -> Any:
    """The session's permission check, then the swap a sandboxed command could make in that instant."""

    async def check(tool: Tool, tool_input: dict[str, Any], call: ToolCall) -> PermissionDecision:
        decision = await policy(tool, tool_input, call)
        swap()
        return decision

    return check


def swap_for_link(folder: Path, to: Path) -> Callable[[], None]:
    def swap() -> None:
        folder.rename(folder.with_name(folder.name + ".real"))
        folder.symlink_to(to, target_is_directory=True)

    return swap


async def test_a_folder_swapped_after_the_check_is_refused_by_name(project: Path, outside: Path):
    folder = project / "docs"
    folder.mkdir()
    policy, env = policy_env(project)
    check = swapping_after_the_check(policy, swap_for_link(folder, outside))
    ok, said = await run_call(env, check, "Write", {"file_path": str(folder / "guide.md"), "content": "# Guide\n"})
    assert not ok and everything_under(outside) == []
    assert f"{project.resolve() / 'docs'} is a symbolic link to {outside}" in said
    assert "nothing was written" in said


async def test_an_edit_whose_folder_is_swapped_mid_flight_leaves_the_decoy(project: Path, outside: Path):
    folder = project / "src"
    (outside / "app.py").write_text("def add(a, b):\n    return a + b\n")
    policy, env = policy_env(project)
    app = str(folder / "app.py")
    assert (await run_call(env, policy, "Read", {"file_path": app}))[0]
    check = swapping_after_the_check(policy, swap_for_link(folder, outside))
    edit = {"file_path": app, "old_string": "a + b", "new_string": "a - b"}
    ok, said = await run_call(env, check, "Edit", edit)
    assert not ok and "is a symbolic link to" in said
    assert (outside / "app.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (project / "src.real" / "app.py").read_text() == "def add(a, b):\n    return a + b\n"


async def test_a_file_swapped_for_a_link_to_a_secret_is_neither_read_nor_replaced(project: Path, outside: Path):
    """The tracked file itself becomes a link to a secret after the check: Edit reads nothing through it (the
    secret never reaches the model or the project), Write does not replace it."""
    secret = outside / "id_rsa"
    secret.write_text("PRIVATE KEY value: 1\n")
    notes = project / "notes.txt"
    notes.write_text("value: 1\n")
    policy, env = policy_env(project)
    assert (await run_call(env, policy, "Read", {"file_path": str(notes)}))[0]

    def plant() -> None:
        notes.unlink()
        notes.symlink_to(secret)

    edit = {"file_path": str(notes), "old_string": "value: 1", "new_string": "value: 2"}
    ok, said = await run_call(env, swapping_after_the_check(policy, plant), "Edit", edit)
    assert not ok and f"is a symbolic link to {secret}" in said and "PRIVATE" not in said
    ok, said = await run_call(env, policy, "Write", {"file_path": str(notes), "content": "x\n"})
    assert not ok  # the check itself now sees the secret outside the project
    assert secret.read_text() == "PRIVATE KEY value: 1\n" and notes.is_symlink()


async def test_a_link_to_a_file_inside_is_still_written_through(project: Path):
    """The user's own symlink whose file is in the project: written through, the link stays a link."""
    real = project / "config" / "real.toml"
    real.parent.mkdir()
    real.write_text("a = 1\n")
    link = project / "app.toml"
    link.symlink_to(real)
    policy, env = policy_env(project)
    assert (await run_call(env, policy, "Read", {"file_path": str(link)}))[0]
    ok, said = await run_call(env, policy, "Edit", {"file_path": str(link), "old_string": "1", "new_string": "2"})
    assert ok, said
    assert link.is_symlink() and real.read_text() == "a = 2\n"
