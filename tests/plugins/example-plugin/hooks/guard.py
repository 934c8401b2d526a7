"""Refuses writes to files whose name ends in .secret (exit status 2 blocks the call; stderr tells the model)."""

import json
import sys

call = json.load(sys.stdin)
path = call.get("tool_input", {}).get("file_path", "")
if path.endswith(".secret"):
    print(f"example-plugin: refusing to write {path}: secrets stay out of the project", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
