"""The input-file guard: every damaged, hostile or odd file becomes one named error, never a traceback; settings,
themes, transcripts and histories all go through it (or survive any bytes on their own)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.config.inputs import InputFileError, load_json, load_toml, parse_json, read_input
from agentcli.config.paths import config_dir
from agentcli.config.settings import load_settings
from agentcli.session.load import load_transcript
from agentcli.ui.history import PromptHistory
from agentcli.ui.tui.themes import load_theme_dir


def test_a_missing_file_is_none_and_a_good_one_is_its_text(tmp_path: Path):
    assert read_input(tmp_path / "nope.json") is None
    (tmp_path / "bom.json").write_bytes(b'\xef\xbb\xbf{"a": 1}')
    assert load_json(tmp_path / "bom.json") == {"a": 1}


def test_bad_bytes_name_the_file_and_line(tmp_path: Path):
    path = tmp_path / "settings.json"
    path.write_bytes(b'{\n  "model": "caf\xe9"\n}\n')
    with pytest.raises(InputFileError) as caught:
        load_json(path)
    assert str(caught.value) == f"{path}:2: is not UTF-8 text (byte 0xe9 at offset 17)"


def test_bad_json_and_toml_name_the_line(tmp_path: Path):
    with pytest.raises(InputFileError, match=r"^x.json:3:7: not valid JSON: Expecting value$"):
        parse_json('{\n "a": 1,\n "b": }', "x.json")
    path = tmp_path / "t.toml"
    path.write_text('name = "ok"\nprimary = \n')
    with pytest.raises(InputFileError) as caught:
        load_toml(path)
    assert str(caught.value) == f"{path}:2:11: not valid TOML: Invalid value"


@pytest.mark.parametrize("depth", [65, 100_000])
def test_absurd_nesting_is_refused(depth: int):
    with pytest.raises(InputFileError, match="nested too deeply"):
        parse_json("[" * depth + "]" * depth, "deep.json")
    assert parse_json("[" * 64 + "]" * 64, "ok.json") is not None


def test_huge_and_special_files_are_refused(tmp_path: Path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 5_000_000)
    with pytest.raises(InputFileError, match="is 5000000 bytes, more than the 4194304 allowed"):
        read_input(big)
    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)  # reading it would wait forever for a writer
    with pytest.raises(InputFileError, match="is not a regular file"):
        read_input(fifo)


def test_settings_with_bad_bytes_or_deep_nesting_are_reported_and_the_rest_loads(project: Path):
    user = config_dir() / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text('{"model": "claude-haiku-5-5"}')
    local = project / ".agentcli" / "settings.json"
    local.parent.mkdir()
    local.write_bytes(b'{"model": "\xff"}')
    loaded = load_settings(project, '{"env": ' + "[" * 5000 + "]" * 5000 + "}")
    assert [str(error) for error in loaded.errors] == [
        f"{local}:1: is not UTF-8 text (byte 0xff at offset 11)",
        "--settings: nested too deeply (more than 64 levels)",
    ]
    assert loaded.merged.model == "claude-haiku-5-5"


def test_cli_reports_a_broken_settings_file_without_a_traceback(run_cli, project: Path):
    (project / ".agentcli").mkdir()
    (project / ".agentcli" / "settings.json").write_bytes(b'{"env": ' + b"[" * 20000)
    proc = run_cli("-p", "hi", env={"ANTHROPIC_API_KEY": "k"})
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"settings: {project / '.agentcli' / 'settings.json'}: nested too deeply" in proc.stderr


def test_theme_files_with_bad_bytes_or_deep_arrays_are_skipped_with_a_message(tmp_path: Path):
    (tmp_path / "latin.toml").write_bytes(b'primary = "#fff"\nname = "caf\xe9"\n')
    (tmp_path / "deep.toml").write_text("primary = " + "[" * 3000 + "]" * 3000 + "\n")
    (tmp_path / "good.toml").write_text('primary = "#336699"\n')
    themes, problems = load_theme_dir(tmp_path)
    assert [theme.name for theme in themes] == ["good"]
    assert problems == [
        f"Theme file skipped: {tmp_path / 'deep.toml'}: nested too deeply (more than 64 levels)",
        f"Theme file skipped: {tmp_path / 'latin.toml'}:2: is not UTF-8 text (byte 0xe9 at offset 28)",
    ]


def test_a_history_file_with_damage_keeps_its_good_lines(tmp_path: Path):
    path = tmp_path / "history.jsonl"
    lines = [
        json.dumps({"text": "first"}).encode(),
        b"\xff\xfe garbage",
        b"[" * 50000,
        json.dumps({"text": "second"}).encode(),
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert PromptHistory(path).entries == ["first", "second"]


# -- fuzz: any bytes at all ----------------------------------------------------------------------------------------

VALID_SETTINGS = json.dumps(
    {
        "model": "m",
        "permissions": {"allow": ["Read"]},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]},
        "env": {"A": "b"},
    }
).encode()
VALID_THEME = b'name = "mine"\nprimary = "#336699"\n[variables]\nprompt-border = "#888888"\n'
VALID_TRANSCRIPT = b"".join(
    json.dumps(line).encode() + b"\n"
    for line in [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "\n\n"},
                    {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/x"}},
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
            },
        },
    ]
)


def _mutations(valid: bytes) -> st.SearchStrategy[bytes]:
    """Valid files damaged: bytes flipped, cut, spliced with junk, or wholly random."""
    cut = st.integers(0, len(valid)).map(lambda n: valid[:n])
    flip = st.tuples(st.integers(0, len(valid) - 1), st.integers(0, 255)).map(
        lambda pair: valid[: pair[0]] + bytes([pair[1]]) + valid[pair[0] + 1 :]
    )
    splice = st.tuples(st.integers(0, len(valid)), st.binary(max_size=64)).map(
        lambda pair: valid[: pair[0]] + pair[1] + valid[pair[0] :]
    )
    nest = st.sampled_from([b"[" * 3000, b'{"a":' * 3000, b"a = " + b"[" * 3000])
    return st.one_of(cut, flip, splice, nest, st.binary(max_size=512))


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(data=_mutations(VALID_SETTINGS))
def test_fuzz_settings_never_raise_and_name_the_file(data: bytes, project: Path):
    path = project / ".agentcli" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    loaded = load_settings(project)
    for error in loaded.errors:
        assert str(error).startswith(str(path))


@FUZZ
@given(data=_mutations(VALID_THEME))
def test_fuzz_themes_never_raise_and_name_the_file(data: bytes, tmp_path: Path):
    folder = tmp_path / "themes"
    folder.mkdir(exist_ok=True)
    (folder / "mine.toml").write_bytes(data)
    themes, problems = load_theme_dir(folder)
    assert len(themes) + len(problems) == 1
    for problem in problems:
        assert str(folder / "mine.toml") in problem


@FUZZ
@given(data=_mutations(VALID_TRANSCRIPT))
def test_fuzz_transcripts_always_load_into_a_sendable_history(data: bytes, tmp_path: Path):
    path = tmp_path / "session.jsonl"
    path.write_bytes(data)
    transcript = load_transcript(path)
    for warning in transcript.warnings:
        assert warning.startswith("session.jsonl: ")
    if transcript.messages:
        assert transcript.messages[0]["role"] == "user"
        json.dumps(transcript.messages, ensure_ascii=False).encode("utf-8")  # the request can be encoded


def test_other_inputs_use_the_guard_too(tmp_path: Path):
    from agentcli.tools.structured_output import InvalidSchema, load_schema
    from agentcli.ui.protocol.orphans import take_question

    with pytest.raises(InvalidSchema, match="nested too deeply"):
        load_schema("[" * 100_000 + "]" * 100_000)
    question = tmp_path / "question.json"
    question.write_bytes(b"[" * 100_000)
    assert take_question(question) is None and not question.exists()


def test_mcp_and_plugin_files_use_the_guard(tmp_path: Path):
    from agentcli.mcp.config import McpConfigError, read_config
    from agentcli.plugins.loader import PluginError, _json

    mcp = tmp_path / ".mcp.json"
    mcp.write_bytes(b'{"mcpServers": {"caf\xe9": {}}}')
    with pytest.raises(McpConfigError, match=r"^--mcp-config .*\.mcp\.json:1: is not UTF-8 text"):
        read_config(str(mcp), {})
    with pytest.raises(McpConfigError, match="nested too deeply"):
        read_config('{"mcpServers": ' + "[" * 50_000 + "]" * 50_000 + "}", {})
    manifest = tmp_path / "plugin.json"
    manifest.write_text("{" * 5 + '"a": ' + "[" * 50_000)
    with pytest.raises(PluginError):
        _json(manifest)
