"""The plugin's MCP server: the tests' demo server, started from inside the plugin folder."""

import runpy
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[2].parent / "mcp" / "demo_server.py"), run_name="__main__")
