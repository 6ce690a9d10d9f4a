"""`dsh completion`: bash, zsh and fish completions generated from the argument parser itself (every
subcommand and option, so a new one is never missing), installed where each shell looks for a user's.

What a word may be is read off the parser: an option's or an argument's `metavar` `ID` (or
`SESSION`, `TARGET`) is a session, listed live by `dsh completion --candidates sessions` (the ids and
title slugs `dsh sessions --all --json` shows, with titles as descriptions); `KEY=VALUE` and `KEY` are
config keys; `choices` are offered as they are; `config`'s words are its verbs, then a key.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from dsh.cli import build_parser

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterable
    from typing import TextIO

SHELLS = ("bash", "zsh", "fish")
SESSION_METAVARS = {"ID", "SESSION", "TARGET"}


class Option:
    """One option of a command: its flags, help, whether it takes a value and what that value is."""

    def __init__(self, flags: list[str], help: str, takes_value: bool, kind: str, repeat: bool) -> None:
        self.flags = flags
        self.help = help
        self.takes_value = takes_value
        self.kind = kind  # "", "sessions", "config-keys", "config-assign", "words:a b c"
        self.repeat = repeat


class Command:
    """A subcommand (or the top level, name ""): its options and what each positional word is."""

    def __init__(self, name: str, help: str) -> None:
        self.name = name
        self.help = help
        self.options: list[Option] = []
        self.positionals: list[str] = []  # the kind of each positional word, in order
        self.rest: str = ""  # the kind of every positional word past those


def _kind(metavar: object, choices: Iterable[object] | None) -> str:
    if choices:
        return "words:" + " ".join(str(c) for c in choices)
    if metavar in SESSION_METAVARS:
        return "sessions"
    if metavar == "KEY=VALUE":
        return "config-assign"
    if metavar == "KEY":
        return "config-keys"
    return ""


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def commands(parser: argparse.ArgumentParser) -> list[Command]:
    """The top level (first) and every subcommand, read off `parser`."""
    import argparse

    found: list[Command] = []

    def read(name: str, help: str, p: argparse.ArgumentParser) -> None:
        command = Command(name, help)
        found.append(command)
        subs: list[tuple[str, str, argparse.ArgumentParser]] = []
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                helps = {c.dest: c.help for c in action._choices_actions}
                subs += [(n, _one_line(helps.get(n)), sp) for n, sp in action.choices.items()]
                continue
            if action.help == argparse.SUPPRESS:
                continue
            kind = _kind(action.metavar, action.choices)
            if action.option_strings:
                takes = action.nargs != 0
                repeat = isinstance(action, argparse._AppendAction)
                command.options.append(Option(list(action.option_strings), _one_line(action.help), takes, kind, repeat))
            elif name == "config":
                command.positionals, command.rest = ["words:get set", "config-keys"], ""
            elif action.nargs in ("*", "...", "+"):
                command.rest = kind
            else:
                command.positionals.append(kind)
        for sub_name, sub_help, sub_parser in subs:
            read(sub_name, sub_help, sub_parser)

    read("", "", parser)
    return found


# -- bash -----------------------------------------------------------------------------------------


def _bash_words(kind: str) -> str:
    """A bash expression filling COMPREPLY for a word of `kind` (the word is in $cur)."""
    if kind == "sessions":
        return 'COMPREPLY=($(compgen -W "$(_dsh_sessions)" -- "$cur"))'
    if kind == "config-keys":
        return 'COMPREPLY=($(compgen -W "$(_dsh_config_keys)" -- "$cur"))'
    if kind == "config-assign":
        return 'COMPREPLY=($(compgen -S = -W "$(_dsh_config_keys)" -- "$cur")); compopt -o nospace 2>/dev/null'
    if kind.startswith("words:"):
        return f'COMPREPLY=($(compgen -W "{kind[6:]}" -- "$cur"))'
    return "COMPREPLY=()"


def bash_script(cmds: list[Command]) -> str:
    subs = cmds[1:]
    lines = [
        "# bash completion for dsh, generated from its parser by `dsh completion bash`   -*- shell-script -*-",
        "",
        "_dsh_sessions() { dsh completion --candidates sessions 2>/dev/null | cut -f1; }",
        "_dsh_config_keys() { dsh config --show-origin 2>/dev/null | cut -f2 | sed 's/ = .*//'; }",
        "",
        "_dsh() {",
        "    local cur prev words cword",
        "    if declare -F _init_completion >/dev/null 2>&1; then",
        "        _init_completion -n =: || return",
        "    else",
        "        cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}",
        '        words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD',
        "    fi",
        '    local i command="" positional=0',
        "    for ((i = 1; i < cword; i++)); do",
        '        case "$command:${words[i]}" in',
    ]
    for command in cmds:
        valued = [f for o in command.options if o.takes_value for f in o.flags]
        if valued:
            pattern = "|".join(f'"{command.name}:{flag}"' for flag in valued)
            lines.append(f"            {pattern}) ((i++)) ;;")
    lines += [
        "            *:-*) ;;",
        "            :*) command=${words[i]}; positional=0 ;;",
        "            *) ((positional++)) ;;",
        "        esac",
        "    done",
        "    if [[ $cur == --*=* ]]; then prev=${cur%%=*}; cur=${cur#*=}; fi",
        '    case "$command:$prev" in',
    ]
    for command in cmds:
        for option in command.options:
            if option.takes_value:
                pattern = "|".join(f'"{command.name}:{flag}"' for flag in option.flags)
                lines.append(f"        {pattern}) {_bash_words(option.kind)}; return ;;")
    lines += ["    esac", "    if [[ $cur == -* ]]; then", '        case "$command" in']
    for command in cmds:
        flags = " ".join(f for o in command.options for f in o.flags)
        lines.append(f'            "{command.name}") COMPREPLY=($(compgen -W "{flags}" -- "$cur")) ;;')
    lines += ["        esac", "        return", "    fi", '    case "$command" in']
    lines.append(f'        "") COMPREPLY=($(compgen -W "{" ".join(c.name for c in subs)}" -- "$cur")) ;;')
    for command in subs:
        if not command.positionals and not command.rest:
            continue
        lines.append(f'        "{command.name}")')
        lines.append('            case "$positional" in')
        for index, kind in enumerate(command.positionals):
            lines.append(f"                {index}) {_bash_words(kind)} ;;")
        if command.rest:
            lines.append(f"                *) {_bash_words(command.rest)} ;;")
        lines.append("            esac ;;")
    lines += ["    esac", "}", "", "complete -F _dsh dsh", ""]
    return "\n".join(lines)


# -- zsh ------------------------------------------------------------------------------------------


def _zsh_quote(text: str) -> str:
    return text.replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def _zsh_action(kind: str) -> str:
    if kind == "sessions":
        return "_dsh_sessions"
    if kind in ("config-keys", "config-assign"):
        return "_dsh_config_keys"
    if kind.startswith("words:"):
        return f"({kind[6:]})"
    return " "


def _zsh_label(kind: str) -> str:
    return {"sessions": "session", "config-keys": "key", "config-assign": "KEY=VALUE"}.get(kind, "word")


def _zsh_specs(command: Command) -> list[str]:
    specs = []
    for option in command.options:
        help = _zsh_quote(option.help)
        flags = option.flags
        names = flags[0] if len(flags) == 1 else "{" + ",".join(flags) + "}"
        star = "*" if option.repeat else ""
        if not option.takes_value:
            specs.append(f"'{star}'{names}'[{help}]'" if len(flags) > 1 else f"'{star}{names}[{help}]'")
            continue
        value = f":{_zsh_label(option.kind)}:{_zsh_action(option.kind)}"
        if len(flags) == 1 and flags[0].startswith("--"):
            names += "="  # --resume=ID and --resume ID alike
        if len(flags) > 1:
            specs.append(f"'{star}'{names}'[{help}]{value}'")
        else:
            specs.append(f"'{star}{names}[{help}]{value}'")
    for index, kind in enumerate(command.positionals, start=1):
        specs.append(f"'{index}:{_zsh_label(kind)}:{_zsh_action(kind)}'")
    if command.rest:
        specs.append(f"'*:{_zsh_label(command.rest)}:{_zsh_action(command.rest)}'")
    return specs


def zsh_script(cmds: list[Command]) -> str:
    top, subs = cmds[0], cmds[1:]
    lines = [
        "#compdef dsh",
        "# zsh completion for dsh, generated from its parser by `dsh completion zsh`",
        "",
        "_dsh_sessions() {",
        "    local -a rows",
        "    rows=(${(f)\"$(dsh completion --candidates sessions 2>/dev/null | sed 's/:/\\\\:/g; s/\\t/:/')\"})",
        "    _describe -t sessions 'session' rows",
        "}",
        "",
        "_dsh_config_keys() {",
        "    local -a keys",
        "    keys=(${(f)\"$(dsh config --show-origin 2>/dev/null | cut -f2 | sed 's/ = .*//')\"})",
        "    _describe -t keys 'config key' keys",
        "}",
        "",
        "_dsh() {",
        "    local curcontext=$curcontext state line",
        "    typeset -A opt_args",
        "    _arguments -C \\",
    ]
    lines += [f"        {spec} \\" for spec in _zsh_specs(top)]
    lines += ["        '1: :->command' \\", "        '*:: :->args'", "    case $state in", "        command)"]
    lines.append("            local -a commands")
    lines.append("            commands=(")
    lines += [f"                '{c.name}:{_zsh_quote(c.help)}'" for c in subs]
    lines += ["            )", "            _describe -t commands 'dsh command' commands ;;", "        args)"]
    lines.append("            case $line[1] in")
    for command in subs:
        specs = _zsh_specs(command)
        lines.append(f"                {command.name})")
        lines.append("                    _arguments \\")
        lines += [f"                        {spec} \\" for spec in specs[:-1]]
        lines.append(f"                        {specs[-1]} ;;" if specs else "                        ;;")
    lines += ["            esac ;;", "    esac", "}", "", '_dsh "$@"', ""]
    return "\n".join(lines)


# -- fish -----------------------------------------------------------------------------------------


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_args(kind: str) -> str:
    if kind == "sessions":
        return " -x -a '(__dsh_sessions)'"
    if kind == "config-keys":
        return " -x -a '(__dsh_config_keys)'"
    if kind == "config-assign":
        return " -x -a '(__dsh_config_keys)='"
    if kind.startswith("words:"):
        return f" -x -a {_fish_quote(kind[6:])}"
    return " -r"


def fish_script(cmds: list[Command]) -> str:
    subs = cmds[1:]
    names = " ".join(c.name for c in subs)
    lines = [
        "# fish completion for dsh, generated from its parser by `dsh completion fish`",
        "",
        "function __dsh_sessions",
        "    dsh completion --candidates sessions 2>/dev/null",
        "end",
        "",
        "function __dsh_config_keys",
        "    dsh config --show-origin 2>/dev/null | cut -f2 | sed 's/ = .*//'",
        "end",
        "",
        "function __dsh_positional --argument-names wanted",
        "    # Whether the word being completed is the wanted-th (0-based) positional word after the command.",
        "    set -l words (commandline -opc)",
        "    set -l count -1",
        "    for word in $words[2..-1]",
        "        if not string match -q -- '-*' $word",
        "            set count (math $count + 1)",
        "        end",
        "    end",
        "    test $count -eq $wanted",
        "end",
        "",
        "complete -c dsh -f",
    ]
    none = f'"not __fish_seen_subcommand_from {names}"'
    for command in subs:
        lines.append(f"complete -c dsh -n {none} -a {command.name} -d {_fish_quote(command.help)}")
    for command in cmds:
        condition = none if not command.name else f'"__fish_seen_subcommand_from {command.name}"'
        for option in command.options:
            parts = ""
            for flag in option.flags:
                parts += f" -l {flag[2:]}" if flag.startswith("--") else f" -s {flag[1:]}"
            value = _fish_args(option.kind) if option.takes_value else ""
            lines.append(f"complete -c dsh -n {condition}{parts}{value} -d {_fish_quote(option.help)}")
        for index, kind in enumerate(command.positionals):
            if kind:
                cond = f'"__fish_seen_subcommand_from {command.name}; and __dsh_positional {index}"'
                lines.append(f"complete -c dsh -n {cond}{_fish_args(kind)}")
    lines.append("")
    return "\n".join(lines)


def script(shell: str) -> str:
    cmds = commands(build_parser())
    return {"bash": bash_script, "zsh": zsh_script, "fish": fish_script}[shell](cmds)


# -- installing -----------------------------------------------------------------------------------


def install_path(shell: str, env: dict[str, str] | None = None) -> Path:
    """Where each shell looks for a user's own completions."""
    env = dict(os.environ if env is None else env)
    home = Path(env.get("HOME") or Path.home())
    data = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    if shell == "bash":  # bash-completion 2 loads these on demand
        return data / "bash-completion" / "completions" / "dsh"
    if shell == "zsh":  # a folder for fpath (see the README)
        return data / "zsh" / "site-functions" / "_dsh"
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    return config / "fish" / "completions" / "dsh.fish"


AFTER_INSTALL = {
    "bash": "bash loads it by itself with the bash-completion package (new shells)",
    "zsh": "zsh: add  fpath=(~/.local/share/zsh/site-functions $fpath)  before compinit in ~/.zshrc",
    "fish": "fish loads it by itself (new shells)",
}


# What --install writes (and the package ships in share/completions/): a loader that asks the dsh on
# PATH for its script when the shell first completes `dsh`, so an upgrade's new options come with it.
LOADERS = {
    "bash": "# bash completion for dsh: the script comes from the dsh on PATH (`dsh completion bash`)\n"
    'eval "$(dsh completion bash 2>/dev/null)"\n',
    "zsh": "#compdef dsh\n# zsh completion for dsh: the script comes from the dsh on PATH (`dsh completion zsh`)\n"
    'eval "$(dsh completion zsh 2>/dev/null)"\n',
    "fish": "# fish completion for dsh: the script comes from the dsh on PATH (`dsh completion fish`)\n"
    "dsh completion fish 2>/dev/null | source\n",
}


def install(shells: list[str], out: TextIO = sys.stdout) -> int:
    from dsh.cli.output import fail, say

    for shell in shells:
        path = install_path(shell)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(path.name + ".tmp")
            temporary.write_text(LOADERS[shell])
            os.replace(temporary, path)
        except OSError as exc:
            return fail(f"cannot write {path}: {exc.strerror}")
        say(f"{shell}: {path} — {AFTER_INSTALL[shell]}", to=out)
    return 0


def session_candidates() -> list[tuple[str, str]]:
    """(word, description) for every session: its id (described by its title), and its title's slug
    (described by its id) where it has one."""
    from dsh.config import load_config
    from dsh.store.store import Store
    from dsh.store.targets import slug
    from dsh.text import sanitize

    store = Store(load_config())
    try:
        rows = store.summaries()
    finally:
        store.close()
    words: list[tuple[str, str]] = []
    for row in rows:
        title = sanitize(row.title or "", max_len=60).replace("\t", " ")
        words.append((row.id, title))
        name = slug(row.title or "")
        if name and name != "untitled":
            words.append((name, row.id))
    return words


def add_parser(sub: argparse._SubParsersAction) -> None:
    import argparse

    p = sub.add_parser(
        "completion",
        help="print the bash, zsh or fish completion script, or install it for this user",
        description="Print the completion script for SHELL (generated from dsh's own options), or with "
        "--install write it where bash, zsh and fish look for a user's completions.",
    )
    p.add_argument("shell", nargs="?", choices=SHELLS, help="the shell (default with --install: all three)")
    p.add_argument("--install", action="store_true", help="put a loader of the script in your completion folders")
    p.add_argument("--candidates", choices=["sessions"], help=argparse.SUPPRESS)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from dsh.cli.output import fail, say

    if args.candidates == "sessions":
        for word, description in session_candidates():
            say(word, description, to=sys.stdout, sep="\t")
        return 0
    if args.install:
        return install([args.shell] if args.shell else list(SHELLS))
    if not args.shell:
        return fail("name a shell: dsh completion bash|zsh|fish (or --install)", 2)
    sys.stdout.write(script(args.shell))
    return 0
