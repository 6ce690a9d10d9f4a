"""Each agent CLI's options and subcommands, as its `--help` lists them, and an argv parser that reads
options before the subcommand (so `claude --model opus mcp list` is the `mcp` subcommand)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

FLAG, VALUE, OPTIONAL, MANY = "flag", "value", "optional", "many"


@dataclass(frozen=True)
class CliSpec:
    """One CLI's command line. `checked` names the version whose `--help` this was copied from."""

    checked: str
    # Spellings -> (canonical name, arity). Options not listed are read as flags.
    options: dict[str, tuple[str, str]]
    subcommands: frozenset[str]
    # Subcommands that run a conversation the agent's store keeps (and so one dsh can learn and resume).
    conversation_subcommands: frozenset[str] = frozenset()
    # Canonical options whose value is the directory the agent works in, and whether a positional
    # argument (of no subcommand) is that directory (`opencode DIR`).
    dir_options: tuple[str, ...] = ()
    positional_dir: bool = False


@dataclass
class ParsedArgs:
    subcommand: str | None = None
    positionals: list[str] = field(default_factory=list)
    options: dict[str, list[str]] = field(default_factory=dict)

    def value(self, name: str) -> str | None:
        """The last value given to option `name` (canonical), or None."""
        values = self.options.get(name)
        return values[-1] if values else None

    def has(self, name: str) -> bool:
        return name in self.options


def _table(rows: Iterable[tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """`("-m --model", VALUE)` rows -> every spelling mapped to (the last, long spelling, arity)."""
    out: dict[str, tuple[str, str]] = {}
    for spellings, arity in rows:
        names = spellings.split()
        for name in names:
            out[name] = (names[-1], arity)
    return out


# `claude --help` of Claude Code 2.1.197 (commander: `<x>` a value, `[x]` an optional one, `<x...>` many).
CLAUDE = CliSpec(
    checked="claude 2.1.197",
    options=_table(
        [
            ("--add-dir", MANY),
            ("--agent", VALUE),
            ("--agents", VALUE),
            ("--allowedTools --allowed-tools", MANY),
            ("--append-system-prompt", VALUE),
            ("--betas", MANY),
            ("-d --debug", OPTIONAL),
            ("--debug-file", VALUE),
            ("--disallowedTools --disallowed-tools", MANY),
            ("--effort", VALUE),
            ("--fallback-model", VALUE),
            ("--file", MANY),
            ("--from-pr", OPTIONAL),
            ("--input-format", VALUE),
            ("--json-schema", VALUE),
            ("--max-budget-usd", VALUE),
            ("--mcp-config", MANY),
            ("--model", VALUE),
            ("-n --name", VALUE),
            ("--output-format", VALUE),
            ("--permission-mode", VALUE),
            ("--plugin-dir", VALUE),
            ("--plugin-url", VALUE),
            ("--prompt-suggestions", OPTIONAL),
            ("--remote-control", OPTIONAL),
            ("--remote-control-session-name-prefix", VALUE),
            ("-r --resume", OPTIONAL),
            ("--session-id", VALUE),
            ("--setting-sources", VALUE),
            ("--settings", VALUE),
            ("--system-prompt", VALUE),
            ("--tools", MANY),
            ("-w --worktree", OPTIONAL),
            ("-c --continue", FLAG),
            ("-p --print", FLAG),
            ("--fork-session", FLAG),
        ]
    ),
    subcommands=frozenset(
        {
            "agents",
            "auth",
            "auto-mode",
            "doctor",
            "gateway",
            "install",
            "mcp",
            "plugin",
            "plugins",
            "project",
            "setup-token",
            "ultrareview",
            "update",
            "upgrade",
        }
    ),
)

_CODEX_OPTIONS = [
    ("-c --config", VALUE),
    ("--enable", VALUE),
    ("--disable", VALUE),
    ("--remote", VALUE),
    ("--remote-auth-token-env", VALUE),
    ("-i --image", MANY),
    ("-m --model", VALUE),
    ("--local-provider", VALUE),
    ("-p --profile", VALUE),
    ("-s --sandbox", VALUE),
    ("-C --cd", VALUE),
    ("--add-dir", VALUE),
    ("-a --ask-for-approval", VALUE),
    ("--thread-source", VALUE),
    ("--cyber-access-program", VALUE),
    ("--output-schema", VALUE),
    ("--color", VALUE),
    ("-o --output-last-message", VALUE),
]
# `codex --help`, `codex exec --help` and `codex resume --help` of codex-cli 0.171.0 (clap).
CODEX = CliSpec(
    checked="codex-cli 0.171.0",
    options=_table(_CODEX_OPTIONS),
    subcommands=frozenset(
        {
            "agents",
            "exec",
            "e",
            "review",
            "login",
            "logout",
            "mcp",
            "plugin",
            "app-server",
            "remote-control",
            "completion",
            "update",
            "doctor",
            "sandbox",
            "debug",
            "apply",
            "a",
            "resume",
            "queue",
            "archive",
            "delete",
            "migrate-rollouts",
            "migrate-nfs-db",
            "unarchive",
            "fork",
            "cloud",
            "exec-server",
            "features",
            "help",
        }
    ),
    conversation_subcommands=frozenset({"exec", "e", "resume", "fork"}),
    dir_options=("--cd",),
)

# `opencode --help` and `opencode run --help` of opencode 1.18.33 (yargs).
OPENCODE = CliSpec(
    checked="opencode 1.18.33",
    options=_table(
        [
            ("--log-level", VALUE),
            ("--port", VALUE),
            ("--hostname", VALUE),
            ("--mdns-domain", VALUE),
            ("--cors", MANY),
            ("-m --model", VALUE),
            ("-s --session", VALUE),
            ("--prompt", VALUE),
            ("--agent", VALUE),
            ("--replay-limit", VALUE),
            ("--command", VALUE),
            ("-f --file", MANY),
            ("--title", VALUE),
            ("--attach", VALUE),
            ("-p --password", VALUE),
            ("-u --username", VALUE),
            ("--dir", VALUE),
            ("--variant", VALUE),
            ("--format", VALUE),
            ("-c --continue", FLAG),
        ]
    ),
    subcommands=frozenset(
        {
            "completion",
            "acp",
            "mcp",
            "attach",
            "run",
            "debug",
            "providers",
            "auth",
            "agent",
            "upgrade",
            "uninstall",
            "serve",
            "web",
            "models",
            "stats",
            "export",
            "import",
            "github",
            "pr",
            "session",
            "plugin",
            "plug",
            "db",
        }
    ),
    conversation_subcommands=frozenset({"run"}),
    dir_options=("--dir",),
    positional_dir=True,
)

# cursor-agent is not on npm and was not checked here: only the options dsh itself looks at.
CURSOR = CliSpec(
    checked="not checked (documented options only)",
    options=_table([("--resume", OPTIONAL), ("-m --model", VALUE), ("-p --print", FLAG)]),
    subcommands=frozenset({"ls", "resume", "status", "login", "logout", "update", "mcp", "help"}),
    conversation_subcommands=frozenset({"resume"}),
)


def parse_args(spec: CliSpec, args: Sequence[str]) -> ParsedArgs:
    """Options, the subcommand and positional arguments of `args` (what follows the program name).

    Options are read up to the first positional argument, which is the subcommand when the CLI has
    one of that name; the subcommand's own options are read the same way (they share the table).
    """
    parsed = ParsedArgs()
    i = 0
    only_positionals = False
    while i < len(args):
        arg = args[i]
        i += 1
        if only_positionals or arg == "-" or not arg.startswith("-"):
            first = parsed.subcommand is None and not parsed.positionals and not only_positionals
            if first and arg in spec.subcommands:
                parsed.subcommand = arg
            else:
                parsed.positionals.append(arg)
            continue
        if arg == "--":
            only_positionals = True
            continue
        if arg.startswith("--") and "=" in arg:
            spelled, value = arg.split("=", 1)
            name = spec.options.get(spelled, (spelled, FLAG))[0]
            parsed.options.setdefault(name, []).append(value)
            continue
        name, arity = spec.options.get(arg, (arg, FLAG))
        if arg not in spec.options and not arg.startswith("--") and len(arg) > 2:
            short = spec.options.get(arg[:2])
            if short is not None and short[1] != FLAG:  # `-mopus`: a short option with its value attached
                parsed.options.setdefault(short[0], []).append(arg[2:])
                continue
        values = parsed.options.setdefault(name, [])
        if arity == VALUE:
            if i < len(args):
                values.append(args[i])
                i += 1
        elif arity == OPTIONAL:
            if i < len(args) and not args[i].startswith("-"):
                values.append(args[i])
                i += 1
        elif arity == MANY:
            while i < len(args) and not args[i].startswith("-"):
                values.append(args[i])
                i += 1
    return parsed


def starts_conversation(spec: CliSpec, parsed: ParsedArgs) -> bool:
    """Whether this command line runs a conversation (no subcommand, or one that holds one)."""
    return parsed.subcommand is None or parsed.subcommand in spec.conversation_subcommands
