"""The SDK's background import: begun at launch, it waits for the first response, and code that needs the SDK
gets the module it imported. Run in a fresh interpreter, where nothing has imported the SDK yet."""

from __future__ import annotations

import subprocess
import sys

from tests.waiting import DEADLINE_S

SCRIPT = f"""
import sys, threading
from agentcli.api import sdk

sdk.start_background_import()
sdk.start_background_import()
importers = [t for t in threading.enumerate() if t.name == "sdk-import"]
print(len(importers), "anthropic" in sys.modules)
sdk.first_response_over()
module = sdk.loaded_sdk(timeout={DEADLINE_S})
print(module.__name__, module is sys.modules["anthropic"], hasattr(module, "AsyncAnthropic"))
"""


def test_the_import_waits_for_the_first_response_then_serves_whoever_needs_the_sdk():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=DEADLINE_S)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["1 False", "anthropic True True"]


def test_without_the_background_thread_the_sdk_is_imported_on_demand():
    script = "from agentcli.api import sdk; import sys; print(sdk.loaded_sdk() is sys.modules['anthropic'])"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=DEADLINE_S)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True"]
