"""How a pane starts the user's shell: as a login shell, with dsh's integration (OSC 133 and OSC 7)
for bash, zsh and fish, each reading the user's own startup files first."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

# Programs that are a shell: at their prompt their line editor leaves the terminal's line mode, which
# says nothing about whether a program in the pane reads keys (what the keyboard rule asks).
SHELL_NAMES = frozenset("sh bash zsh fish dash ksh mksh oksh pdksh tcsh csh ash yash nu elvish xonsh".split())


def runs_shell(argv: list[str]) -> bool:
    """True when a pane's own program is a shell (`-bash` as a login shell names itself too)."""
    return bool(argv) and os.path.basename(argv[0]).lstrip("-") in SHELL_NAMES


def integration_dir() -> Path | None:
    """Where the integration scripts are installed (with the package), or None if they are not."""
    try:
        from dsh.share import folder as share_folder
    except ModuleNotFoundError:
        return None
    folder = share_folder() / "shell"
    return folder if folder.is_dir() else None


def shell_launch(shell: str, env: Mapping[str, str], *, integration: bool = True) -> tuple[list[str], dict[str, str]]:
    """The argv that starts `shell` as a login shell, and what to add to its environment.

    bash gets `--init-file` (a script that reads /etc/profile and the user's profile, as `bash -l`
    would, then adds the hooks); zsh gets ZDOTDIR pointing at scripts that hand over to the user's own
    files; fish gets an `--init-command`. Any other shell starts plainly (dsh then follows it by its
    foreground process alone).
    """
    name = os.path.basename(shell)
    folder = integration_dir() if integration else None
    if folder is None:
        return [shell, "-l"], {}
    if name == "bash" and (folder / "dsh.bash").is_file():
        return [shell, "--init-file", str(folder / "dsh.bash"), "-i"], {"DSH_SHELL_LOGIN": "1"}
    if name == "zsh" and (folder / "zsh" / ".zshrc").is_file():
        extra = {"ZDOTDIR": str(folder / "zsh")}
        if env.get("ZDOTDIR"):
            extra["DSH_USER_ZDOTDIR"] = env["ZDOTDIR"]
        return [shell, "-l"], extra
    if name == "fish" and (folder / "dsh.fish").is_file():
        return [shell, "-l", "--init-command", f"source {_fish_quote(str(folder / 'dsh.fish'))}"], {}
    return [shell, "-l"], {}


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
