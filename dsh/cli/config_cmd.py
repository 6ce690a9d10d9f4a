"""`dsh config`: print the effective config, its origins, or set a personal value."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("config", help="print the effective config, or `set KEY VALUE`")
    p.add_argument("--show-origin", action="store_true", help="name the layer of each value")
    p.add_argument("action", nargs="*", metavar="set KEY VALUE")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    raise NotImplementedError
