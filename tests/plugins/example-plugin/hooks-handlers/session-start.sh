#!/usr/bin/env bash
# Adds the plugin's house rules to the session, read from a file that ships with the plugin.
set -euo pipefail
rules=$(cat "$CLAUDE_PLUGIN_ROOT/hooks-handlers/house-rules.txt")
printf '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "%s"}}\n' "$rules"
