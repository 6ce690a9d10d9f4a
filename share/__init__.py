"""Data shipped with dsh: the base config, shell integration scripts and shell completions."""

from pathlib import Path


def folder() -> Path:
    """Where the files are. dsh is installed as files (its panes' shells are handed scripts from here by
    path), so this is a plain folder; found from this module rather than through importlib.resources,
    whose import (with zipfile, for zipped packages) cost a host 15 M instructions before its first frame."""
    return Path(__file__).parent
