"""Workspaces: the folder name a cwd's sessions are kept under, and the label shown for a cwd."""

from __future__ import annotations

import hashlib
import os
import re

_UNSAFE = re.compile(r"[^A-Za-z0-9._]+")
_SLUG_MAX = 40
NO_WORKSPACE = "(no workspace)"


def workspace_partition(cwd: str) -> str:
    """`<readable slug>-<hash>`: the slug helps a human, the hash of the exact cwd keeps paths apart.

    `/a_b` and `/a-b` share nothing but their look: their hashes differ, so their folders do too.
    """
    slug = _UNSAFE.sub("-", cwd).strip("-.")
    if len(slug) > _SLUG_MAX:
        # The end of a path names the project; keep that end.
        slug = slug[-_SLUG_MAX:].lstrip("-.")
    digest = hashlib.sha256(cwd.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{slug or 'root'}-{digest}"


def workspace_label(cwd: str | None) -> str:
    """The cwd with the home folder shown as `~`; `(no workspace)` when there is none."""
    if not cwd:
        return NO_WORKSPACE
    # $HOME first: expanduser() per row is the slow part of labelling 10k sessions.
    home = (os.environ.get("HOME") or os.path.expanduser("~")).rstrip("/")
    if home and (cwd == home or cwd.startswith(home + "/")):
        return "~" + cwd[len(home):]
    return cwd
