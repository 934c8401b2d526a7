"""The inline REPL (``agentcli --plain``): prompt-toolkit for input, rich for output, the terminal's own scrollback."""
