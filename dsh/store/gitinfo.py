"""The git branch a workspace is on, read from `.git/HEAD` (no git process: this runs at every start)."""

from __future__ import annotations

import os

_MAX_HEAD = 4096
_MAX_DEPTH = 64


def _git_dir(folder: str) -> str | None:
    """The git directory of `folder`'s checkout: `.git` itself, or where a `.git` file (a worktree) points."""
    dot_git = os.path.join(folder, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as handle:
            text = handle.read(_MAX_HEAD).strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = text[len("gitdir:") :].strip()
    return os.path.normpath(os.path.join(folder, target))


def git_branch(cwd: str) -> str | None:
    """The branch checked out where `cwd` lies, `None` outside a checkout; a detached HEAD is its short hash."""
    folder = os.path.abspath(cwd)
    for _ in range(_MAX_DEPTH):
        git_dir = _git_dir(folder)
        if git_dir is not None:
            try:
                with open(os.path.join(git_dir, "HEAD"), encoding="utf-8", errors="replace") as handle:
                    head = handle.read(_MAX_HEAD).strip()
            except OSError:
                return None
            if head.startswith("ref: refs/heads/"):
                return head[len("ref: refs/heads/") :] or None
            return head[:12] or None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None
