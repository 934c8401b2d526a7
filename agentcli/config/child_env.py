"""The environment of the programs agentcli starts for the model and for hooks: Bash commands, background shells,
``!`` commands and command hooks.

With ``CLAUDE_CODE_SUBPROCESS_ENV_SCRUB`` set (in the environment or a settings ``env`` block; Claude Code reads the
same name), the credentials agentcli itself uses are left out, so a command the model writes (``echo
$ANTHROPIC_API_KEY``, a test script that uploads its environment) cannot read them. agentcli keeps them for its own
requests. Off by default, as in Claude Code: a project whose own tests call the API needs its key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

SCRUB_SETTING = "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB"
CREDENTIALS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_FOUNDRY_API_KEY",
    "ANTHROPIC_CUSTOM_HEADERS",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AZURE_CLIENT_SECRET",
    "AZURE_CLIENT_CERTIFICATE_PATH",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_RUNTIME_TOKEN",
)
"""What the scrub removes: the model API's keys and headers, telemetry headers, cloud and CI credentials. Tokens a
project's own tools need to work (``GITHUB_TOKEN`` for ``gh``) stay."""

_ON = {"1", "true", "yes", "on"}


def scrubbing(env: Mapping[str, str]) -> bool:
    """True when ``env`` (the process environment with the settings' ``env`` over it) asks for the scrub."""
    return env.get(SCRUB_SETTING, "").strip().lower() in _ON


def child_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The process environment with ``extra`` over it, without the credentials when the scrub is on."""
    env = {**os.environ, **(extra or {})}
    if scrubbing(env):
        for name in CREDENTIALS:
            env.pop(name, None)
    return env
