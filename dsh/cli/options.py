"""`-o KEY=VALUE`: the flag every subcommand takes after its name, and the values given on both sides of it."""

from __future__ import annotations

TYPE_CHECKING = False  # on the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    import argparse


def add_option_flag(p: argparse.ArgumentParser) -> None:
    """`-o KEY=VALUE` after the subcommand too; kept apart so the top-level ones are not replaced."""
    p.add_argument(
        "-o",
        "--option",
        dest="sub_options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a config value for this run (highest layer)",
    )


def option_flags(args: argparse.Namespace) -> list[str]:
    """Every `-o` value, those before the subcommand first (later ones win)."""
    return [*(getattr(args, "options", None) or ()), *(getattr(args, "sub_options", None) or ())]
