"""Snapshots of structure and scrollback tails, and the restore states."""
