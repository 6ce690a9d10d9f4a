"""`dsh config`: print the effective config, its origins, read one key, or set a personal value."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from dsh.cli.options import add_option_flag, option_flags

USAGE = "dsh config [--show-origin] | dsh config get KEY | dsh config set KEY VALUE"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "config",
        help="print the effective config, or `get KEY`, or `set KEY VALUE`",
        description="Print the effective config as TOML; `get KEY` prints one value; "
        "`set KEY VALUE` writes it to $DSH_HOME/config.toml.",
        usage=USAGE,
    )
    p.add_argument("--show-origin", action="store_true", help="name the layer of each value")
    # REMAINDER: a VALUE may start with "-" (`set term.scrollback -1`); `get` options are picked out in run().
    p.add_argument("action", nargs=argparse.REMAINDER, metavar="set KEY VALUE")
    add_option_flag(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except BrokenPipeError:
        # `dsh config | head`: the reader left; that is not an error (and no traceback).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _run(args: argparse.Namespace) -> int:
    from dsh.cli.output import fail, say
    from dsh.config import ConfigError, load_config, set_personal
    from dsh.home import HomeError, check_home

    action = list(args.action)
    if action[:1] == ["get"] and "--show-origin" in action:
        action.remove("--show-origin")
        args.show_origin = True
    try:
        check_home()  # another user could have written the config this reads or changes
        if action and action[0] == "set":
            if len(action) != 3:
                return _usage("set takes KEY VALUE")
            path = set_personal(action[1], action[2])
            shown = load_config(env={}).get(action[1])
            say(f"{action[1]} = {_toml_value(shown)}  (in {path})", to=sys.stdout)
            return 0
        config = load_config(option_flags(args))
    except HomeError as exc:
        return fail(str(exc), 2)
    except ConfigError as exc:
        return fail(f"config: {exc}")
    for warning in config.warnings:
        say(f"dsh: warning: {warning}")
    if not action:
        if args.show_origin:
            _print_origins(config)
        else:
            import tomli_w

            resolved = _resolved(config)
            table = ""
            for line in tomli_w.dumps(config.data).splitlines():
                if line.startswith("["):
                    table = line.strip("[]") + "."
                key = table + line.split(" = ", 1)[0]
                if " = " in line and key in resolved:
                    line += f"  # {resolved[key]}"  # what the value means here, resolved
                say(line, to=sys.stdout)
        return 0
    if action[0] == "get":
        if len(action) != 2:
            return _usage("get takes KEY")
        value = config.get(action[1])
        if value is None:
            return fail(f"config: {action[1]} is not set")
        if args.show_origin:
            say(config.origin(action[1]), _toml_value(value), to=sys.stdout, sep="\t")
        else:
            say(_toml_value(value), to=sys.stdout)
        return 0
    return _usage(f"unknown action {action[0]!r}")


def _usage(problem: str) -> int:
    from dsh.cli.output import say

    say(f"usage: {USAGE}")
    say(f"dsh config: error: {problem}")
    return 2


def _toml_value(value: Any) -> str:
    import tomli_w

    if isinstance(value, dict):
        return tomli_w.dumps(value).strip() if value else "{}"
    return tomli_w.dumps({"v": value})[len("v = ") :].rstrip("\n")


def _leaves(node: dict[str, Any], at: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out: list[tuple[tuple[str, ...], Any]] = []
    for key, value in node.items():
        if isinstance(value, dict):
            out.extend(_leaves(value, (*at, key)))
        else:
            out.append(((*at, key), value))
    return out


def _resolved(config: Any) -> dict[str, str]:
    """Values that name something elsewhere, as dsh resolves them: the session root's path."""
    from dsh.config import session_root

    return {"store.root": str(session_root(config))}


def _print_origins(config: Any) -> None:
    from dsh.cli.output import say
    from dsh.config.key_value import join_key

    resolved = _resolved(config)
    for parts, value in _leaves(config.data):
        key = join_key(parts)
        shown = f"{key} = {_toml_value(value)}"
        if key in resolved:
            shown += f"  # {resolved[key]}"
        # The tab is ours (a separator); in the parts, sanitize() would turn it into a space.
        say(config.origin(key), shown, to=sys.stdout, sep="\t")
