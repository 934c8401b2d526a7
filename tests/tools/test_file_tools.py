"""Read, Write, Edit and TodoWrite: what they do, and every way they refuse."""

from __future__ import annotations

import os
from pathlib import Path

from agentcli.tools.base import parse_input
from tests.tools.conftest import tool_named

# -- Read ---------------------------------------------------------------------------------------------------------


async def test_read_numbers_lines_and_records_what_was_read(run_tool, env, project: Path):
    path = project / "src" / "app.py"
    outcome = await run_tool("Read", {"file_path": str(path)})
    assert outcome.text == "1\tdef add(a, b):\n2\t    return a + b"
    snapshot = env.state.read_files[str(path)]
    assert snapshot.content == path.read_text() and snapshot.size == path.stat().st_size


async def test_read_offset_limit_and_the_clear_answers(run_tool, project: Path):
    (project / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    part = await run_tool("Read", {"file_path": str(project / "long.txt"), "offset": 3, "limit": 2})
    assert part.text.startswith("3\tline 3\n4\tline 4\n") and "Showing lines 3-4 of 10" in part.text
    (project / "empty.txt").write_text("")
    assert "empty" in (await run_tool("Read", {"file_path": str(project / "empty.txt")})).text
    assert "directory" in (await run_tool("Read", {"file_path": str(project / "src")})).failure
    assert "does not exist" in (await run_tool("Read", {"file_path": str(project / "nope.txt")})).failure
    (project / "blob.bin").write_bytes(b"\x00\x01\x02")
    assert "binary" in (await run_tool("Read", {"file_path": str(project / "blob.bin")})).failure


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 40


async def test_read_returns_an_image_as_an_image_block(run_tool, project: Path, monkeypatch):
    """A PNG (known by its first bytes, whatever its name) goes to the model as a base64 image; an oversized one is
    refused with a way out."""
    import base64

    from agentcli.files import images

    (project / "shot.dat").write_bytes(PNG)
    outcome = await run_tool("Read", {"file_path": str(project / "shot.dat")})
    assert outcome.failure is None
    [block] = outcome.output.content
    assert block["type"] == "image" and block["source"]["media_type"] == "image/png"
    assert base64.b64decode(block["source"]["data"]) == PNG
    assert outcome.structured["type"] == "image"
    monkeypatch.setattr(images, "MAX_IMAGE_BYTES", 10)
    assert "smaller copy" in (await run_tool("Read", {"file_path": str(project / "shot.dat")})).failure


# -- Write --------------------------------------------------------------------------------------------------------


async def test_write_creates_a_file_and_its_folders(run_tool, project: Path):
    target = project / "new" / "deep" / "file.txt"
    outcome = await run_tool("Write", {"file_path": str(target), "content": "hello\r\nworld\n"})
    assert outcome.ok and "created" in outcome.text
    assert target.read_bytes() == b"hello\r\nworld\n"  # written exactly, line endings included
    assert outcome.structured["type"] == "create"


async def test_write_refuses_an_existing_file_that_was_not_read(run_tool, project: Path):
    target = project / "README.md"
    outcome = await run_tool("Write", {"file_path": str(target), "content": "x"})
    assert outcome.failure == "File has not been read yet. Read it first before writing to it."
    assert target.read_text().startswith("# Demo project")


async def test_write_after_read_replaces_and_reports_a_patch(run_tool, project: Path):
    target = project / "README.md"
    await run_tool("Read", {"file_path": str(target)})
    outcome = await run_tool("Write", {"file_path": str(target), "content": "# New\n"})
    assert outcome.ok and outcome.structured["type"] == "update"
    assert "+# New" in outcome.structured["patch"] and "-# Demo project" in outcome.structured["patch"]
    # what Write wrote counts as read: a second write needs no new Read
    assert (await run_tool("Write", {"file_path": str(target), "content": "# Newer\n"})).ok


async def test_write_refuses_a_file_changed_since_it_was_read(run_tool, project: Path):
    target = project / "README.md"
    await run_tool("Read", {"file_path": str(target)})
    target.write_text("changed by the user\n")
    outcome = await run_tool("Write", {"file_path": str(target), "content": "x"})
    assert "modified since it was read" in outcome.failure
    assert target.read_text() == "changed by the user\n"


async def test_write_to_a_directory_is_refused(run_tool, project: Path):
    assert "directory" in (await run_tool("Write", {"file_path": str(project / "src"), "content": "x"})).failure


# -- Edit ---------------------------------------------------------------------------------------------------------


async def test_edit_replaces_a_unique_string_and_shows_the_snippet(run_tool, project: Path):
    path = project / "src" / "app.py"
    await run_tool("Read", {"file_path": str(path)})
    outcome = await run_tool("Edit", {"file_path": str(path), "old_string": "a + b", "new_string": "a - b"})
    assert outcome.ok
    assert path.read_text() == "def add(a, b):\n    return a - b\n"
    assert "2\t    return a - b" in outcome.text
    assert outcome.structured["oldString"] == "a + b" and "+    return a - b" in outcome.structured["patch"]


async def test_edit_requires_a_read_first(run_tool, project: Path):
    path = project / "src" / "app.py"
    outcome = await run_tool("Edit", {"file_path": str(path), "old_string": "a + b", "new_string": "b + a"})
    assert outcome.failure == "File has not been read yet. Read it first before writing to it."


async def test_edit_of_a_file_changed_on_disk_is_judged_against_its_new_text(run_tool, project: Path):
    path = project / "src" / "app.py"
    await run_tool("Read", {"file_path": str(path)})
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))  # touched, same content
    touched = await run_tool("Edit", {"file_path": str(path), "old_string": "a + b", "new_string": "b + a"})
    assert touched.ok and "changed on disk" not in touched.text
    path.write_text("def add(a, b):\n    return b + a  # reformatted\n")  # a formatter rewrote it
    outcome = await run_tool("Edit", {"file_path": str(path), "old_string": "# reformatted", "new_string": "# sum"})
    assert outcome.ok and path.read_text() == "def add(a, b):\n    return b + a  # sum\n"
    assert outcome.text.startswith(f"Note: {path} was changed on disk after you read it")
    assert "-    return b + a\n+    return b + a  # reformatted" in outcome.text
    path.write_text("def add(a, b):\n    return a + b\n")
    gone = await run_tool("Edit", {"file_path": str(path), "old_string": "# sum", "new_string": "# total"})
    assert gone.failure.startswith("Note:") and "String to replace not found" in gone.failure
    assert "+    return a + b" in gone.failure


async def test_edit_ambiguous_missing_and_identical_strings(run_tool, project: Path):
    path = project / "dup.py"
    path.write_text("x = 1\nx = 1\n")
    await run_tool("Read", {"file_path": str(path)})
    ambiguous = await run_tool("Edit", {"file_path": str(path), "old_string": "x = 1", "new_string": "x = 2"})
    assert ambiguous.failure.startswith("Found 2 matches of the string to replace, but replace_all is false.")
    missing = await run_tool("Edit", {"file_path": str(path), "old_string": "y = 1", "new_string": "y = 2"})
    assert missing.failure == "String to replace not found in file.\nString: y = 1"
    same = await run_tool("Edit", {"file_path": str(path), "old_string": "x = 1", "new_string": "x = 1"})
    assert "No changes to make" in same.failure
    everything = await run_tool(
        "Edit", {"file_path": str(path), "old_string": "x = 1", "new_string": "x = 2", "replace_all": True}
    )
    assert everything.ok and path.read_text() == "x = 2\nx = 2\n"


async def test_edit_creates_a_new_file_with_an_empty_old_string(run_tool, project: Path):
    path = project / "pkg" / "new.py"
    outcome = await run_tool("Edit", {"file_path": str(path), "old_string": "", "new_string": "VALUE = 1\n"})
    assert outcome.ok and path.read_text() == "VALUE = 1\n"
    assert (
        "does not exist"
        in (
            await run_tool("Edit", {"file_path": str(project / "none.py"), "old_string": "a", "new_string": "b"})
        ).failure
    )
    await run_tool("Read", {"file_path": str(project / "README.md")})
    exists = await run_tool("Edit", {"file_path": str(project / "README.md"), "old_string": "", "new_string": "x"})
    assert "already exists" in exists.failure


async def test_edit_keeps_windows_line_endings(run_tool, project: Path):
    path = project / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await run_tool("Read", {"file_path": str(path)})
    outcome = await run_tool("Edit", {"file_path": str(path), "old_string": "one\ntwo", "new_string": "1\n2"})
    assert outcome.ok
    assert path.read_bytes() == b"1\r\n2\r\nthree\r\n"


# -- TodoWrite ----------------------------------------------------------------------------------------------------


async def test_todo_write_replaces_the_session_list(run_tool, env):
    first = [{"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"}]
    outcome = await run_tool("TodoWrite", {"todos": first})
    assert outcome.ok and env.state.todos == first
    assert outcome.structured == {"oldTodos": [], "newTodos": first}
    second = [
        {**first[0], "status": "completed"},
        {"content": "Fix the bug", "status": "pending", "activeForm": "Fixing the bug"},
    ]
    outcome = await run_tool("TodoWrite", {"todos": second})
    assert outcome.structured["oldTodos"] == first and env.state.todos == second


def test_todo_write_validates_each_item():
    message = parse_input(tool_named("TodoWrite"), {"todos": [{"content": "x", "status": "doing"}]})
    assert isinstance(message, str)
    assert message.startswith("TodoWrite failed due to the following issues:")
    assert "The required parameter `todos[0].activeForm` is missing" in message
    assert "todos[0].status" in message


# -- validation messages for the model ----------------------------------------------------------------------------


def test_validation_messages_name_missing_unexpected_and_mismatched_parameters():
    message = parse_input(tool_named("Edit"), {"file_path": 3, "old_string": "a", "colour": "red"})
    assert message == (
        "Edit failed due to the following issues:\n"
        "The required parameter `new_string` is missing\n"
        "An unexpected parameter `colour` was provided\n"
        "The parameter `file_path` type is expected as `string` but provided as `number`"
    )
    single = parse_input(tool_named("Bash"), {})
    assert single == "Bash failed due to the following issue:\nThe required parameter `command` is missing"
    flags = parse_input(tool_named("Grep"), {"pattern": "x", "-i": "yes"})
    assert flags == (
        "Grep failed due to the following issue:\n"
        "The parameter `-i` type is expected as `boolean` but provided as `string`"
    )


def test_schemas_use_claude_code_field_names():
    grep = tool_named("Grep").api_schema()["input_schema"]["properties"]
    assert {
        "pattern",
        "path",
        "glob",
        "type",
        "output_mode",
        "-i",
        "-n",
        "-A",
        "-B",
        "-C",
        "multiline",
        "head_limit",
    } == set(grep)
    bash = tool_named("Bash").api_schema()["input_schema"]
    assert bash["properties"]["timeout"] == {
        "type": "integer",
        "description": bash["properties"]["timeout"]["description"],
    }
    assert bash["required"] == ["command"]
    todo = tool_named("TodoWrite").api_schema()["input_schema"]
    assert "$defs" not in todo and todo["properties"]["todos"]["items"]["required"] == [
        "content",
        "status",
        "activeForm",
    ]


async def test_edit_and_write_responses_carry_what_hook_scripts_parse(run_tool, project: Path):
    path = project / "src" / "app.py"
    await run_tool("Read", {"file_path": str(path)})
    edited = await run_tool("Edit", {"file_path": str(path), "old_string": "a + b", "new_string": "a - b"})
    assert edited.structured["originalFile"] == "def add(a, b):\n    return a + b\n"
    assert edited.structured["structuredPatch"] == [
        {
            "oldStart": 1,
            "oldLines": 2,
            "newStart": 1,
            "newLines": 2,
            "lines": [" def add(a, b):", "-    return a + b", "+    return a - b"],
        }
    ]
    created = await run_tool("Write", {"file_path": str(project / "new.txt"), "content": "one\n"})
    assert created.structured["originalFile"] is None
    assert created.structured["structuredPatch"][0]["lines"] == ["+one"]
