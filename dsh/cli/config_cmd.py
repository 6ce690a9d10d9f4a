"""`dsh config`: print the effective config, its origins, read one key, or set a personal value."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dsh.cli.sessions import add_option_flag, option_flags

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
    from dsh.config import ConfigError, load_config, set_personal
    from dsh.home import HomeError
    from dsh.text import sanitize

    action = list(args.action)
    if action[:1] == ["get"] and "--show-origin" in action:
        action.remove("--show-origin")
        args.show_origin = True
    try:
        if action and action[0] == "set":
            if len(action) != 3:
                return _usage("set takes KEY VALUE")
            path = set_personal(action[1], action[2])
            shown = load_config(env={}).get(action[1])
            print(f"{sanitize(action[1])} = {sanitize(_toml_value(shown))}  (in {sanitize(str(path))})")
            return 0
        config = load_config(option_flags(args))
    except HomeError as exc:
        print(f"dsh: {sanitize(str(exc))}", file=sys.stderr)
        return 2
    except ConfigError as exc:
        print(f"dsh: config: {sanitize(str(exc))}", file=sys.stderr)
        return 1
    for warning in config.warnings:
        print(f"dsh: warning: {sanitize(warning)}", file=sys.stderr)
    if not action:
        if args.show_origin:
            _print_origins(config)
        else:
            import tomli_w

            for line in tomli_w.dumps(config.data).splitlines():
                print(sanitize(line))
        return 0
    if action[0] == "get":
        if len(action) != 2:
            return _usage("get takes KEY")
        value = config.get(action[1])
        if value is None:
            print(f"dsh: config: {sanitize(action[1])} is not set", file=sys.stderr)
            return 1
        line = sanitize(_toml_value(value))
        if args.show_origin:
            line = f"{sanitize(config.origin(action[1]))}\t{line}"
        print(line)
        return 0
    return _usage(f"unknown action {action[0]!r}")


def _usage(problem: str) -> int:
    from dsh.text import sanitize

    print(f"usage: {USAGE}\ndsh config: error: {sanitize(problem)}", file=sys.stderr)
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


def _print_origins(config: Any) -> None:
    from dsh.config.keys import join_key
    from dsh.text import sanitize

    for parts, value in _leaves(config.data):
        key = join_key(parts)
        # The tab is ours; sanitize() would turn it into a space.
        print(f"{sanitize(config.origin(key))}\t{sanitize(key)} = {sanitize(_toml_value(value))}")
