"""Where dsh keeps things: DSH_HOME, else ~/.dsh; every path under it is built here."""

from __future__ import annotations

import os
from pathlib import Path


class HomeError(Exception):
    """DSH_HOME cannot be used (it names a file, or cannot be created)."""


def dsh_home() -> Path:
    """The dsh home folder, created with mode 0700 if missing."""
    raw = os.environ.get("DSH_HOME")
    home = Path(raw).expanduser() if raw else Path.home() / ".dsh"
    home = home.absolute()
    if home.exists() and not home.is_dir():
        raise HomeError(f"DSH_HOME {home} is not a directory")
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise HomeError(f"cannot create dsh home {home}: {exc.strerror or exc}") from exc
    return home


def dsh_home_path(*parts: str) -> Path:
    """A path under the dsh home; the home itself is created, the rest is not."""
    return dsh_home().joinpath(*parts)
