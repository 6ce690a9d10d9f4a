"""Where dsh keeps things: DSH_HOME, else ~/.dsh; every path under it is built here, and checked here."""

from __future__ import annotations

import os
from pathlib import Path

from dsh.safefile import DIR_MODE, UnsafePathError, check_folder, ensure_dir

# The folders dsh keeps directly under its home; checked at every start (see check_home).
HOME_FOLDERS = ("sessions", "state", "history", "log", "run")


class HomeError(Exception):
    """DSH_HOME cannot be used (it names a file, cannot be created, or another user can write it)."""


def home_location() -> Path:
    """Where the dsh home folder is (DSH_HOME, else ~/.dsh), whether it exists or not."""
    raw = os.environ.get("DSH_HOME")
    home = Path(raw).expanduser() if raw else Path.home() / ".dsh"
    return home.absolute()


def dsh_home() -> Path:
    """The dsh home folder, created with mode 0700 if missing."""
    home = home_location()
    if home.exists() and not home.is_dir():
        raise HomeError(f"DSH_HOME {home} is not a directory")
    if not home.exists():
        try:
            home.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            os.chmod(home, DIR_MODE)  # mkdir's mode is masked by the umask
        except OSError as exc:
            raise HomeError(f"cannot create dsh home {home}: {exc.strerror or exc}") from exc
    return home


def dsh_home_path(*parts: str) -> Path:
    """A path under the dsh home; the home itself is created, the rest is not."""
    return dsh_home().joinpath(*parts)


def ensure_home_dir(*parts: str) -> Path:
    """The folder `parts` under the home, made (0700) with its parents; no link followed (UnsafePathError)."""
    home = dsh_home()
    return ensure_dir(home.joinpath(*parts), home)


def check_home(*others: Path) -> Path:
    """The home, after checking that it, the folders dsh keeps in it, and `others` (a session root kept
    elsewhere) are real folders no other user can write or own, as ssh checks ~/.ssh.

    Raises HomeError with one line naming the path and the command that fixes it.
    """
    home = dsh_home()
    try:
        check_folder(home, follow=True)  # the home itself may be a link the user made
        for folder in [*(home / name for name in HOME_FOLDERS), *others]:
            try:
                # Under the home nothing may be a link; a root kept elsewhere may be one the user made.
                check_folder(folder, follow=not _under(folder, home))
            except FileNotFoundError:
                continue
    except UnsafePathError as exc:
        raise HomeError(f"refusing to use {exc.path}: it {exc.reason}") from exc
    except OSError as exc:
        raise HomeError(f"cannot check dsh home {home}: {exc.strerror or exc}") from exc
    return home


def _under(path: Path, home: Path) -> bool:
    try:
        path.relative_to(home)
    except ValueError:
        return False
    return True
