"""Workspaces: the folder name a cwd's sessions are kept under, and the label shown for a cwd."""

from __future__ import annotations

import functools
import os
import re

_UNSAFE = re.compile(r"[^A-Za-z0-9._]+")
_SLUG_MAX = 40
NO_WORKSPACE = "(no workspace)"
# Distinct (cwd, home) pairs remembered; a listing meets a few thousand workspaces, not millions.
_LABELS_KEPT = 65_536


def workspace_partition(cwd: str) -> str:
    """`<readable slug>-<hash>`: the slug helps a human, the hash of the exact cwd keeps paths apart.

    `/a_b` and `/a-b` share nothing but their look: their hashes differ, so their folders do too.
    """
    slug = _UNSAFE.sub("-", cwd).strip("-.")
    if len(slug) > _SLUG_MAX:
        # The end of a path names the project; keep that end.
        slug = slug[-_SLUG_MAX:].lstrip("-.")
    import hashlib  # here, not at the top: `dsh attach` uses same_workspace, and OpenSSL costs it 5 ms

    digest = hashlib.sha256(cwd.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{slug or 'root'}-{digest}"


def same_workspace(cwd: str, other: str) -> bool:
    """Whether sessions started in `cwd` and in `other` are kept under one workspace (one partition).
    The partition is made from the exact cwd, so comparing the two answers without hashing either."""
    return cwd == other


def home_dir() -> str:
    """The home folder labels shorten to `~`, without its trailing slash ("" when there is none)."""
    # $HOME first: expanduser() asks the password database when HOME is unset.
    return (os.environ.get("HOME") or os.path.expanduser("~")).rstrip("/")


@functools.lru_cache(maxsize=_LABELS_KEPT)
def _label(cwd: str, home: str) -> str:
    if home and (cwd == home or cwd.startswith(home + "/")):
        return "~" + cwd[len(home) :]
    return cwd


def workspace_label(cwd: str | None, home: str | None = None) -> str:
    """The cwd with the home folder shown as `~`; `(no workspace)` when there is none.

    A listing passes `home` (from `home_dir()`) once for all its rows: reading the environment per row
    is the slow part of labelling 100k sessions. Labels are cached per (cwd, home), so a change of
    $HOME is still seen by the next call that does not pass it.
    """
    if not cwd:
        return NO_WORKSPACE
    return _label(cwd, home_dir() if home is None else home)
