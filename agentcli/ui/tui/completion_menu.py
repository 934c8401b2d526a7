"""The completion menu over the prompt: slash commands after ``/`` and project paths after ``@``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on

from agentcli.ui.tui.widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from agentcli.ui.tui.app import AgentApp


class CompletionMenu:
    """AgentApp's completion job: fill, move through and accept the menu's options."""

    @on(PromptInput.Changed, "#prompt")
    def _update_completions(self: AgentApp) -> None:
        prompt = self.prompt_input
        text = prompt.text
        self._completion_text = text
        options: list[tuple[str, str]] = []
        kind = ""
        if text.startswith("/"):
            from agentcli.ui.tui.completion import complete_command

            options = complete_command(text, self.engine, self.theme_names())
            kind = "command"
        else:
            word, _ = prompt.word_before_cursor()
            if word.startswith("@"):
                if self._paths is None:
                    from agentcli.ui.tui.completion import PathIndex

                    self._paths = PathIndex(self.cwd)
                options = [(f"@{path}", "") for path in self._paths.complete(word)]
                kind = "path"
        if not options or (len(options) == 1 and options[0][0].strip() == text.strip()):
            self._hide_completions()
            return
        from textual.content import Content
        from textual.widgets import OptionList
        from textual.widgets.option_list import Option

        menu = self.completions
        if menu is None:
            menu = self.completions = OptionList(id="completions")
            self.mount(menu, before="#prompt-box")
        menu.clear_options()
        # Content, not markup: a description such as "[FILE]" is shown as it is.
        menu.add_options(Option(Content(f"{value}  {help_text}".rstrip()), id=value) for value, help_text in options)
        menu.highlighted = 0
        menu.add_class("-visible")
        self._completion_kind = kind
        prompt.completing = True

    def _hide_completions(self: AgentApp) -> None:
        self._completion_kind = ""
        self.prompt_input.completing = False
        if self.completions is not None:
            self.completions.remove_class("-visible")

    @on(PromptInput.CompletionKey, "#prompt")
    def _completion_key(self: AgentApp, event: PromptInput.CompletionKey) -> None:
        prompt = self.prompt_input
        # Keys typed quickly (a paste, tmux) reach the prompt before the menu has caught up with the text: the
        # menu is made for the text as it is now, and a key meant for a menu that has since closed acts as usual.
        if event.key != "escape" and prompt.text != self._completion_text:
            self._update_completions()
        if not prompt.completing:
            if event.key == "enter":
                prompt.post_message(PromptInput.Submitted(prompt, prompt.text))
            return
        menu = self.completions
        if menu is None or event.key == "escape":
            self._hide_completions()
        elif event.key in ("up", "down") and menu.option_count:
            step = -1 if event.key == "up" else 1
            menu.highlighted = ((menu.highlighted or 0) + step) % menu.option_count
        elif event.key in ("tab", "enter"):
            index = menu.highlighted
            if index is None or not menu.option_count:
                self._hide_completions()
                return
            value = str(menu.get_option_at_index(index).id)
            typed = self.prompt_input.text.strip()
            if event.key == "enter" and self._completion_kind == "command" and self._names_a_command(typed):
                value = typed  # "/exit" is what was meant even while "/export" is highlighted above it
            self._accept_completion(value, submit=event.key == "enter")

    def _names_a_command(self: AgentApp, typed: str) -> bool:
        menu = self.completions
        return menu is not None and any(
            str(menu.get_option_at_index(i).id).strip() == typed for i in range(menu.option_count)
        )

    def _accept_completion(self: AgentApp, value: str, *, submit: bool) -> None:
        prompt = self.prompt_input
        kind = self._completion_kind
        self._hide_completions()
        if kind == "command":
            prompt.set_prompt(value)
            if submit and not value.endswith(" "):
                prompt.post_message(PromptInput.Submitted(prompt, value))
            return
        _word, start = prompt.word_before_cursor()
        prompt.replace(value + ("" if value.endswith("/") else " "), start, prompt.cursor_location)
