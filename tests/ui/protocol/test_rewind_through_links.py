"""The SDK's ``rewind_files`` after a sandboxed command replaced a file the agent changed with a symlink to
``~/.bashrc``: the real CLI, a real bubblewrap sandbox running the command, the fake Messages API scripting the
model. The restore is refused, the start-up file keeps its text, and the agent's earlier file stays a link."""

from __future__ import annotations

import json
from pathlib import Path

from tests.ui.protocol.conftest import text_turn, tool_turn

AUTO_ALLOW = json.dumps({"sandbox": {"mode": "auto-allow"}})


async def test_rewind_files_does_not_restore_through_a_link_the_sandbox_planted(sdk_options, project: Path):
    from claude_agent_sdk import ClaudeSDKClient, UserMessage

    bashrc = Path.home() / ".bashrc"
    bashrc.write_text("export SAFE=1\n")
    readme = project / "README.md"
    plant = f"rm README.md && ln -s {bashrc} README.md && echo planted"
    options, server = sdk_options(
        [
            tool_turn("Read", {"file_path": str(readme)}, "toolu_r"),
            tool_turn("Write", {"file_path": str(readme), "content": "# Rewritten\n"}, "toolu_w"),
            text_turn("Rewritten."),
            tool_turn("Bash", {"command": plant}, "toolu_b"),
            text_turn("Tidied."),
        ],
        permission_mode="acceptEdits",
        enable_file_checkpointing=True,
        extra_args={"replay-user-messages": None, "settings": AUTO_ALLOW},
    )
    async with ClaudeSDKClient(options=options) as client:
        await client.query("rewrite the readme")
        first = [m async for m in client.receive_response()]
        prompt_ids = [m.uuid for m in first if isinstance(m, UserMessage) and m.uuid and isinstance(m.content, str)]
        await client.query("tidy up")
        _ = [m async for m in client.receive_response()]
        assert readme.is_symlink(), "the sandboxed command did not plant its link"
        await client.rewind_files(prompt_ids[0])
    assert bashrc.read_text() == "export SAFE=1\n"
    assert readme.is_symlink() and readme.readlink() == bashrc
    said = json.dumps([r.body for r in server.requests])
    assert "planted" in said
