"""Streaming Markdown: block splitting, open fences, and a widget that renders what it was sent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from textual.app import App, ComposeResult  # noqa: TID251
from textual.containers import VerticalScroll  # noqa: TID251

from agentcli.ui.tui.markdown_split import open_fence, split_blocks
from agentcli.ui.tui.widgets import markdown_view
from agentcli.ui.tui.widgets.markdown_view import MarkdownView
from tests.waiting import until

DOC = """# Title

Some **bold** and `code` text.

- one
- two
  - nested

```python
def f(x):
    return x + 1
```

| a | bb |
|---|----|
| 1 | 22 |

> quoted

end
"""


def test_split_keeps_every_character():
    done, tail = split_blocks(DOC)
    assert "".join(done) + tail == DOC
    assert len(done) >= 5 and tail.startswith("end")


def test_open_fence_is_the_tail_until_it_closes():
    assert open_fence("```py\nx = 1\n") == ("```", "py")
    assert open_fence("```py\nx = 1\n```\n") is None
    assert open_fence("plain text") is None
    done, tail = split_blocks("Intro.\n\n```py\nx = 1\n")
    assert done == ["Intro.\n\n"] and tail == "```py\nx = 1\n"


class Harness(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield MarkdownView(streaming=True)


def lines_of(view: MarkdownView) -> list[str]:
    return [view.render_line(y).text.rstrip() for y in range(view.size.height)]


@asynccontextmanager
async def showing(doc: str, size: tuple[int, int]) -> AsyncIterator[tuple[Any, MarkdownView]]:
    """A pilot and a view that was given the whole of ``doc`` at once, once it has rendered it."""
    app = Harness()
    async with app.run_test(size=size) as pilot:
        view = app.query_one(MarkdownView)
        view.append(doc)
        view.finish()
        await until(lambda: view.rendered, "the message to render")
        yield pilot, view


async def test_streamed_text_renders_like_the_whole_text():
    app = Harness()
    async with app.run_test(size=(60, 40)) as pilot:
        view = app.query_one(MarkdownView)
        for i in range(0, len(DOC), 3):
            view.append(DOC[i : i + 3])
            if i % 30 == 0:
                await pilot.pause()
        view.finish()
        await pilot.pause()
        assert view.source == DOC
        streamed = lines_of(view)
    whole = Harness()
    async with whole.run_test(size=(60, 40)) as pilot:
        view = whole.query_one(MarkdownView)
        view.append(DOC)
        view.finish()
        await pilot.pause()
        assert lines_of(view) == streamed
    text = "\n".join(streamed)
    assert "Title" in text and "# Title" not in text
    assert "• one" in text and "◦ nested" in text
    assert "def f(x):" in text and "```" not in text
    assert "a │ bb" in text and "▌ quoted" in text


async def test_a_message_cut_into_blocks_renders_as_one_pass_over_the_whole_text_would():
    """Blocks are rendered one by one (and cut without a full parse); the lines must not show the seams."""
    unused_definition = "\n[ref]: https://example.com\n\nA [link](https://example.com) after a definition.\n"
    doc = DOC + (unused_definition + "\n1. one\n\n2. two\n") * 3
    async with showing(doc, (60, 40)) as (pilot, view):
        await pilot.pause()
        whole = [strip.text.rstrip() for strip in view.renderer.render(doc, view.content_size.width, final=True)]
        lines: list[str] = []
        while len(lines) < len(view._done_lines):  # top down: each painted block is rendered before it is read
            lines.append(view.render_line(len(lines)).text.rstrip())
        assert lines == whole


async def test_updates_are_batched():
    app = Harness()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(MarkdownView)
        for _ in range(500):
            view.append("word ")
        while not view.rendered:
            await pilot.pause(0.01)
        assert view.flushes <= 3
        assert "word word" in lines_of(view)[0]


def _contrast(fg: tuple[int, int, int], bg: tuple[int, int, int]) -> float:
    def luminance(rgb: tuple[int, int, int]) -> float:
        lin = [(c / 255) / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    high, low = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (high + 0.05) / (low + 0.05)


async def test_table_borders_and_rules_are_visible_in_every_built_in_theme():
    """Table borders and horizontal rules stand out from the background, on light themes too."""
    from agentcli.ui.tui.themes import available_themes

    themes, _ = available_themes()

    class Doc(App[None]):
        def compose(self) -> ComposeResult:
            yield MarkdownView("| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n")

    for name, theme in themes.items():
        app = Doc()
        app.register_theme(theme)
        app.theme = name
        async with app.run_test(size=(40, 10)) as pilot:
            await pilot.pause()
            view = app.query_one(MarkdownView)
            lines = [view.render_line(y) for y in range(6)]
            lines_segments = [seg for strip in lines for seg in strip if set(seg.text.strip()) & set("─┼│")]
            assert len(lines_segments) >= 2, name
            for seg in lines_segments:
                assert seg.style is not None and seg.style.color is not None and seg.style.bgcolor is not None
                fg, bg = seg.style.color.get_truecolor(), seg.style.bgcolor.get_truecolor()
                assert _contrast(tuple(fg), tuple(bg)) >= 2.0, (name, seg.text, fg, bg)


async def test_a_burst_shows_its_end_first_and_the_rest_when_painted_or_idle(monkeypatch):
    """Many blocks arriving at once: the last ones are rendered straight away, the ones above are rendered when a line
    of theirs is painted or once the stream pauses, and the result is line for line what rendering everything at once
    gives."""
    doc = "".join(f"## Part {n}\n\nText of part {n} with `code`.\n\n```py\nx = {n}\n```\n\n" for n in range(30))

    async def rendered(eager: int, *, wait_for_backfill: bool) -> tuple[list[str], int]:
        monkeypatch.setattr(MarkdownView, "_eager_lines", lambda _view: eager)
        # Without waiting, the idle back-fill never comes (however slow the machine): only painting renders blocks.
        monkeypatch.setattr(markdown_view, "BACKFILL_DELAY_S", 0.1 if wait_for_backfill else 3600.0)
        app = Harness()
        async with app.run_test(size=(60, 40)) as pilot:
            view = app.query_one(MarkdownView)
            view.append(doc + "The end.")
            view.finish()
            await pilot.pause()
            deferred_after_paint = view._deferred
            assert "The end." in view.render_line(len(view._done_lines) - 1).text
            if wait_for_backfill:
                await until(lambda: not view._deferred, "the blocks above to be rendered once the stream paused")
            lines: list[str] = []
            while len(lines) < len(view._done_lines):  # top down: each painted block is rendered before it is read
                lines.append(view.render_line(len(lines)).text.rstrip())
            return lines, deferred_after_paint

    everything, none_deferred = await rendered(10_000, wait_for_backfill=False)
    backfilled, _ = await rendered(4, wait_for_backfill=True)
    on_demand, deferred = await rendered(4, wait_for_backfill=False)  # render_line renders what it is asked for
    assert none_deferred == 0 and deferred > 20
    assert backfilled == everything and on_demand == everything
    assert "Part 0" in everything[0] and "The end." in everything[-1]


def test_text_arriving_faster_than_anyone_reads_is_shown_a_few_times_a_second():
    """A model writes about a kilobyte a second: shown 30 times a second. A burst (a pasted log, a replay) is shown
    four times a second, so painting does not take the time the stream needs."""
    assert markdown_view.flush_interval(40, 1 / 30) == markdown_view.FLUSH_INTERVAL_S
    assert markdown_view.flush_interval(40, 0.0) == markdown_view.FLUSH_INTERVAL_S
    assert markdown_view.flush_interval(20_000, 1 / 30) == markdown_view.BURST_FLUSH_INTERVAL_S
    assert markdown_view.flush_interval(20_000, 5.0) == markdown_view.FLUSH_INTERVAL_S  # after a pause


def test_a_languages_highlighter_is_built_once_in_the_background_and_unknown_names_are_harmless(monkeypatch):
    from agentcli.ui.tui import markdown_blocks

    started: list[str] = []
    real_thread = markdown_blocks.threading.Thread

    def recording_thread(*args, **kwargs):
        thread = real_thread(*args, **kwargs)
        started.append(thread.name)
        return thread

    monkeypatch.setattr(markdown_blocks.threading, "Thread", recording_thread)
    monkeypatch.setattr(markdown_blocks, "_WARMED", set())
    markdown_blocks.warm_highlighter("no-such-language-x")
    markdown_blocks.warm_highlighter("No-Such-Language-X extra-info")
    markdown_blocks.warm_highlighter("   ")
    assert started == ["warm-no-such-language-x"]


async def test_a_long_fence_is_highlighted_in_a_thread_and_a_short_one_at_once(monkeypatch):
    """Highlighting costs ≈ 0.2 ms a line: a 200-line fence shows plain for a moment and is highlighted off the
    event loop (so typing never waits for it); a short fence is highlighted as it closes."""
    import threading

    threads: list[str] = []
    real = markdown_view.highlight_all

    def recording(fences):
        threads.append(threading.current_thread().name)
        return real(fences)

    monkeypatch.setattr(markdown_view, "highlight_all", recording)
    long_code = "\n".join(f"value_{n} = compute({n})  # step {n}" for n in range(200))
    doc = f"Short:\n\n```python\nx = 1\n```\n\nLong:\n\n```python\n{long_code}\n```\n\nEnd."

    def styles_of(view: MarkdownView, marker: str) -> set[str]:
        for y in range(len(view._done_lines)):
            strip = view.render_line(y)
            if marker in strip.text:
                return {str(segment.style) for segment in strip if segment.text.strip()}
        raise AssertionError(f"{marker!r} is not on screen")

    async with showing(doc, (80, 300)) as (pilot, view):
        assert len(styles_of(view, "x = 1")) > 1  # the short fence: highlighted straight away
        await until(lambda: view.fully_rendered, "the long fence to be highlighted")
        await pilot.pause()
        assert len(styles_of(view, "value_199 = compute(199)")) > 1
        assert threads and threading.main_thread().name not in threads
        assert "End." in "\n".join(view.render_line(y).text for y in range(len(view._done_lines)))


async def test_a_theme_change_while_a_long_fence_is_highlighted_still_ends_highlighted():
    long_code = "\n".join(f"value_{n} = compute({n})" for n in range(120))
    async with showing(f"Code:\n\n```python\n{long_code}\n```\n", (80, 200)) as (pilot, view):
        pilot.app.theme = "textual-light"  # before the thread is done: its result belongs to the old colours
        await until(lambda: view.fully_rendered, "the fence to be highlighted in the new theme")
        await pilot.pause()
        row = next(y for y in range(len(view._done_lines)) if "value_119" in view.render_line(y).text)
        fresh = view.renderer.code_lines(f"{long_code}\n", "python", view.content_size.width, highlight=False)
        highlighted = view.render_line(row)
        assert len({str(s.style) for s in highlighted if s.text.strip()}) > 1
        assert highlighted.text == fresh[119].text
