"""The official SDK, kept for what it does well (its Bedrock and Vertex clients, token counting, the models list) and
loaded off the critical path.

Importing it costs about a second of CPU. Requests never need it (:mod:`agentcli.api.transport` sends them), so a
thread started at launch imports it only once the first response is over: neither the first request nor the first
answer's stream shares the interpreter with that import. :func:`loaded_sdk` is for code that needs the SDK itself.
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType

_first_response_over = threading.Event()
_imported = threading.Event()
_starting = threading.Lock()
_thread: threading.Thread | None = None
_module: ModuleType | None = None
_failure: BaseException | None = None


def start_background_import() -> None:
    """Start the thread that imports the SDK after the first response (once per process; faces call it at launch)."""
    global _thread
    with _starting:
        if _thread is None:
            _thread = threading.Thread(target=_import_when_idle, name="sdk-import", daemon=True)
            _thread.start()


def first_response_over() -> None:
    """The model client calls this when a response has ended, however it ended."""
    _first_response_over.set()


def loaded_sdk(timeout: float | None = None) -> ModuleType:
    """The ``anthropic`` module: the background import's, waited for (and begun at once if it had not begun yet)."""
    if _thread is None:
        return importlib.import_module("anthropic")
    _first_response_over.set()
    if not _imported.wait(timeout):
        raise TimeoutError("the SDK is still being imported")
    if _module is None:
        raise ImportError("the SDK could not be imported") from _failure
    return _module


def _import_when_idle() -> None:
    global _module, _failure
    _first_response_over.wait()
    try:
        _module = importlib.import_module("anthropic")
    except Exception as exc:  # an SDK that cannot load fails only the code that asks for it
        _failure = exc
    finally:
        _imported.set()
