"""One sandbox for everything the model runs: a session whose commands come from every place a command can come
from (Bash in the foreground and the background, a sub-agent's Bash in both, a custom command's ``!`cmd``` and
```` ```! ```` block) — each says whether it ran in the sandbox, and every one did. Besides, the places that build a
tool environment are enumerated, so a new one cannot quietly start without the session's sandbox and checks."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

from agentcli.tools.base import FileSnapshot, ToolEnv
from tests.agents.test_subagent_sandbox import bash
from tests.agents.test_task_e2e import main_turn, sub_turn, task, text
from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "agentcli"


def _logged(label: str) -> str:
    return f"echo {label}=${{AGENTCLI_SANDBOX:+inside}} >> ran.log"


def _wait_for(label: str) -> str:
    return f"until grep -q '^{label}=' ran.log 2>/dev/null; do sleep 0.01; done"


def test_every_command_of_a_session_runs_in_the_session_sandbox(run_cli, fake_api, project: Path, hermetic_home):
    commands = hermetic_home / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "everything.md").write_text(
        f"---\nallowed-tools: Bash\n---\nInline: !`{_logged('inline')}`\n```!\n{_logged('block')}\n```\n"
        "Now delegate the rest.\n"
    )
    labels = ["inline", "block", "main", "main-bg", "sub", "sub-bg"]
    server = fake_api(
        {
            "turns": [
                main_turn(
                    [bash("toolu_m", _logged("main")), bash("toolu_mb", _logged("main-bg"), run_in_background=True)]
                ),
                main_turn([task("toolu_t", "inner: run yours")]),
                sub_turn(
                    "inner:",
                    [bash("toolu_s", _logged("sub")), bash("toolu_sb", _logged("sub-bg"), run_in_background=True)],
                ),
                sub_turn("inner:", [bash("toolu_sw", _wait_for("sub-bg"))]),
                sub_turn("inner:", [text("ran mine")]),
                main_turn([bash("toolu_mw", _wait_for("main-bg"))]),
                main_turn([text("all ran")]),
            ]
        }
    )
    settings = json.dumps({"sandbox": {"mode": "auto-allow"}})
    proc = run_cli("-p", "/everything", "--output-format", "json", "--settings", settings, server=server)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "all ran"
    ran = dict(line.split("=", 1) for line in (project / "ran.log").read_text().splitlines())
    assert ran == dict.fromkeys(labels, "inside")


def _calls(tree: ast.AST, names: set[str]) -> list[tuple[ast.Call, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func).rpartition(".")[2]
            if name in names:
                found.append((node, name))
    return found


def _enclosing(tree: ast.AST, target: ast.AST) -> str:
    """The dotted name of the class and function ``target`` is in."""
    path: list[str] = []

    def visit(node: ast.AST, trail: list[str]) -> bool:
        if node is target:
            path.extend(trail)
            return True
        here = [*trail, node.name] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else trail
        return any(visit(child, here) for child in ast.iter_child_nodes(node))

    visit(tree, [])
    return ".".join(path)


def _sites(names: set[str]) -> list[tuple[str, str, str, ast.Call]]:
    sites = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = path.relative_to(REPO_ROOT).as_posix()
        sites += [(module, _enclosing(tree, call), name, call) for call, name in _calls(tree, names)]
    return sites


def test_the_session_builds_the_only_tool_environment_and_children_derive_theirs():
    """A tool environment made from scratch would start without the sandbox, the Read deny filter and the
    checkpoints: only the session builds one; a sub-agent's is ``ToolEnv.for_subagent`` of it."""
    built = {(module, where, name) for module, where, name, _ in _sites({"ToolEnv", "SessionToolState"})}
    assert built == {
        ("agentcli/bootstrap.py", "build_engine", "ToolEnv"),
        ("agentcli/tools/base.py", "SessionToolState.for_subagent", "SessionToolState"),
    }, "a new place builds a tool environment: derive it from the session's (ToolEnv.for_subagent) instead"


def test_a_child_environment_keeps_every_field_of_its_parent_but_the_state(tmp_path: Path):
    """Every field, including ones added later, is carried over; the state is the child's own but for the
    session's background shells."""
    parent = ToolEnv(tmp_path)
    for spec in dataclasses.fields(ToolEnv):
        if spec.name != "state":
            setattr(parent, spec.name, object())
    parent.state.shells = object()
    parent.state.read_files["seen"] = FileSnapshot(1, 1)
    parent.state.shell_cwd = tmp_path / "elsewhere"
    child = parent.for_subagent()
    for spec in dataclasses.fields(ToolEnv):
        if spec.name != "state":
            assert getattr(child, spec.name) is getattr(parent, spec.name), spec.name
    assert child.state is not parent.state and child.state.shells is parent.state.shells
    assert child.state.read_files == {} and child.state.shell_cwd is None


def test_every_place_that_runs_tools_is_given_a_session_environment():
    """Where tools are run (a call, the executor, a loop), the environment handed over is the session's or one
    derived from it: never a literal one."""
    handed: list[str] = []
    for module, where, name, call in _sites({"ToolCall", "StreamingToolExecutor", "QueryParams"}):
        given = [kw.value for kw in call.keywords if kw.arg in ("env", "tool_env")]
        if name != "QueryParams":
            given += call.args[1:2] if name == "StreamingToolExecutor" else call.args[:1]
        assert len(given) == 1, f"{module} {where}: {name} without a tool environment"
        source = ast.unparse(given[0])
        handed.append(source)
        derived = source.endswith(("tool_env", "_env", ".env")) or source.endswith(".for_subagent()")
        assert derived, f"{module} {where}: {name} is given {source}, not the session's environment"
    assert "context.tool_env.for_subagent()" in handed  # the sub-agents' loop
