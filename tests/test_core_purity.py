"""The core never renders and never prints: only faces (agentcli/ui, cli.py) may."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "agentcli"
CORE_MODULES = [
    "agentcli.engine",
    "agentcli.loop.query",
    "agentcli.api.client",
    "agentcli.api.accumulate",
    "agentcli.tools.executor",
    "agentcli.tools.read",
    "agentcli.bootstrap",
    "agentcli.context.system_prompt",
]


def _core_files() -> list[Path]:
    return [
        path
        for path in PACKAGE.rglob("*.py")
        if "ui" not in path.relative_to(PACKAGE).parts[:1] and path.name != "cli.py" and "testing" not in path.parts
    ]


def test_core_imports_neither_textual_nor_rich():
    code = (
        "import sys\n"
        + "".join(f"import {name}\n" for name in CORE_MODULES)
        + "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == ""


def test_core_never_prints():
    offenders = []
    for path in _core_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                offenders.append(f"{path}:{node.lineno}")
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("stdout", "stderr")
                and isinstance(node.value, ast.Name)
                and node.value.id == "sys"
            ):
                offenders.append(f"{path}:{node.lineno}")
    assert offenders == []
    assert len(_core_files()) > 10


def test_cli_module_does_not_import_the_sdk_at_import_time():
    code = "import sys, agentcli.cli; print('anthropic' in sys.modules, 'pydantic' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.split() == ["False", "False"]
