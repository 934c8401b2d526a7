"""Permission modes: the one list every part reads (command line, settings, policy, faces, SDK protocol)."""

from __future__ import annotations

from typing import Literal, get_args

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
PERMISSION_MODES: tuple[str, ...] = get_args(PermissionMode)
CYCLED_MODES: tuple[str, ...] = ("default", "acceptEdits", "plan", "bypassPermissions")
"""The modes shift+tab steps through; ``dontAsk`` and ``auto`` are chosen on the command line or by a host."""

MODE_HELP = (
    "default: ask before edits and commands; acceptEdits: edit files in the project without asking; plan: "
    "read-only tools only; bypassPermissions: ask for nothing (deny rules still apply); dontAsk: refuse whatever "
    "the rules do not allow instead of asking; auto: accepted for compatibility, behaves as default"
)

STRICTNESS = {"plan": 0, "dontAsk": 1, "default": 2, "auto": 2, "acceptEdits": 3, "bypassPermissions": 4}
"""How much each mode lets run without a person: lower is stricter."""


def no_looser(mode: object, than: str | None) -> bool:
    """Whether ``mode`` lets no more run than ``than`` (None: ``default``); an unknown mode counts as loosest."""
    limit = min(STRICTNESS.get(than or "default", 2), STRICTNESS["default"])
    return isinstance(mode, str) and STRICTNESS.get(mode, len(STRICTNESS)) <= limit
