"""The one exception the layout model raises: its message is meant to be shown to the user."""

from __future__ import annotations


class LayoutError(Exception):
    """A layout operation or a stored layout was invalid; the message says what and why, in one line."""
