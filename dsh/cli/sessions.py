"""`dsh sessions`: the headless session listing."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sessions", help="list sessions (this workspace; --all for every workspace)")
    p.add_argument("--all", action="store_true", help="list every workspace")
    p.add_argument("--json", action="store_true", help="print a JSON array")
    p.add_argument("--archived", action="store_true", help="include archived sessions")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    raise NotImplementedError
