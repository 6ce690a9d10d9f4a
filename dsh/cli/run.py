"""`dsh` with no subcommand: check the terminal, then start (or resume) the full-screen app."""

from __future__ import annotations

import argparse


def run_app(args: argparse.Namespace) -> int:
    raise NotImplementedError
