"""The checkpoint index keeps the prompts for the rewind menu: a secret typed in one is redacted on disk, as in
the transcript."""

from __future__ import annotations

from pathlib import Path

from agentcli.session.checkpoints import INDEX, CheckpointStore
from agentcli.session.redact import REDACTED

SECRET = "sk-ant-api03-" + "Q" * 20 + "7" * 20 + "z" * 20


def test_a_secret_typed_in_a_prompt_is_not_written_to_the_index(tmp_path: Path):
    folder = tmp_path / "cp"
    store = CheckpointStore(folder)
    store.begin(f"deploy with the key {SECRET} please", None)
    store.begin("and then tidy up", "uuid-1")
    written = (folder / INDEX).read_text(encoding="utf-8")
    assert SECRET not in written and SECRET[:20] not in written
    reloaded = [c.prompt for c in CheckpointStore(folder).checkpoints()]
    assert reloaded == [f"deploy with the key {REDACTED} please", "and then tidy up"]
