"""`dsh list/send/capture/split/new-tab/close/focus/rename/do/wait/report/notify/new`: scripting a session.

Dispatched by `dsh.cli.main` before the full parser is built: each verb has a small option table
here (argparse and the parser of every subcommand were most of a `dsh send`'s time). A target is
`-t SESSION`, `-t SESSION:PANE` or `-t PANE` (ids, titles or unique starts of either, dsh.store.targets);
with none, inside a dsh pane it is that pane and its session (DSH_SOCKET, DSH_SESSION_ID,
DSH_PANE_ID), outside one the newest live session of this workspace.
"""

from __future__ import annotations

import os
import stat
import sys
import time

from dsh.client.control import NO_TARGET, REFUSED, SEND_MAX, TIMED_OUT, ControlError, Unreachable, call, dumps

TYPE_CHECKING = False  # the client's start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from typing import Any

USAGE_ERROR = 1

# Per verb: option -> (destination, takes a value). "-t" everywhere but list and new.
_COMMON = {"-t": ("target", True), "--target": ("target", True), "--json": ("json", False)}
SPECS: dict[str, dict[str, tuple[str, bool]]] = {
    "list": {"--all": ("all", False), "-a": ("all", False), "--json": ("json", False)},
    "send": {**_COMMON, "--keys": ("keys", False), "-k": ("keys", False), "--paste": ("paste", False),
             "-p": ("paste", False), "--enter": ("enter", False), "-e": ("enter", False)},
    "capture": {**_COMMON, "--lines": ("lines", True), "-n": ("lines", True), "--all": ("all", False),
                "-a": ("all", False), "--ansi": ("ansi", False), "-e": ("ansi", False), "-J": ("join", False),
                "--join": ("join", False)},
    "split": {**_COMMON, "-h": ("horizontal", False), "-v": ("vertical", False), "-c": ("cwd", True),
              "--size": ("size", True), "-l": ("size", True)},
    "new-tab": {**_COMMON, "-c": ("cwd", True)},
    "close": dict(_COMMON),
    "focus": dict(_COMMON),
    "rename": {**_COMMON, "--session": ("session", False), "-s": ("session", False)},
    "do": dict(_COMMON),
    "wait": {**_COMMON, "--exit": ("exit", False), "--output": ("output", True), "--idle": ("idle", True),
             "--state": ("state", True), "--timeout": ("timeout", True), "--lines": ("lines", True)},
    "report": {**_COMMON, "--state": ("state", True), "--message": ("message", True), "-m": ("message", True),
               "--source": ("source", True), "--event": ("event", True), "--stdin": ("stdin", False),
               "--hook": ("hook", True)},
    "notify": dict(_COMMON),
    "new": {"-d": ("detached", False), "--detached": ("detached", False), "-c": ("cwd", True),
            "--name": ("name", True), "-n": ("name", True), "-x": ("cols", True), "-y": ("rows", True),
            "--json": ("json", False)},
}  # fmt: skip
VERBS = frozenset(SPECS)
# Verbs whose words after the options are a command to run (`dsh split -h make test`).
COMMAND_VERBS = ("split", "new-tab", "new")

HELP = {
    "list": "dsh list [--all] [--json]\n  live sessions, their tabs and panes (this workspace; --all: every one)",
    "send": "dsh send [-t TARGET] [--keys] [--paste] [--enter] TEXT...  (TEXT '-': read it from stdin)\n"
    "  type TEXT into a pane; --keys: tmux key names (Enter C-c M-x Up F5), other words as text",
    "capture": "dsh capture [-t TARGET] [--lines N | --all] [--ansi] [-J] [--json]\n"
    "  print a pane's screen (with N lines of history, or all of it); -J joins wrapped lines",
    "split": "dsh split [-t TARGET] [-h|-v] [-c DIR] [--size N%] [-- CMD...]\n"
    "  split a pane (-h side by side, -v stacked); prints the new pane as SESSION:PANE",
    "new-tab": "dsh new-tab [-t SESSION] [-c DIR] [-- CMD...]\n  open a tab; prints the new pane as SESSION:PANE",
    "close": "dsh close [-t TARGET]\n  close a pane (its program ends)",
    "focus": "dsh focus [-t TARGET]\n  make a pane the active one (its tab too)",
    "rename": "dsh rename [-t TARGET] [--session] NAME\n  name a pane (or, with --session, the session)",
    "do": "dsh do [-t SESSION] '/COMMAND ARGS'\n  run a slash command in the session; prints its messages",
    "wait": "dsh wait [-t TARGET] (--exit | --output REGEX | --idle SECONDS | --state STATE) [--timeout SECONDS]\n"
    "  wait for a pane's program to end (prints its status, exits with it), a match on its screen,\n"
    "  a quiet spell, or a reported state; 124 when the timeout ran out",
    "report": "dsh report [-t TARGET] (--state working|blocked|done|idle [--message TEXT] | --hook KIND [PAYLOAD])\n"
    "  say what the agent in a pane is doing (for hooks: never fails, never waits)",
    "notify": "dsh notify [-t TARGET] TEXT...\n  a notification in the session (for hooks and scripts: never fails)",
    "new": "dsh new -d [-c DIR] [--name NAME] [-x COLS -y ROWS] [-- CMD...]\n  start a detached session; prints its id",
}
# Verbs that must never stall or fail what called them (an agent's hook): no host is no error.
QUIET = frozenset({"report", "notify"})
REPORT_TIMEOUT = 2.0
# A hook's payload on stdin: at most this much, within this many seconds.
PAYLOAD_MAX = 1 << 20
STDIN_WAIT = 1.0


# What each option does, for --help listings and shell completion (add_parsers).
_OPTION_HELP = {
    "target": "SESSION, SESSION:PANE or PANE (default: this pane, else the newest session here)",
    "json": "print the answer as JSON",
    "all": "every live session (list), or all of the history (capture)",
    "keys": "the words are tmux key names (Enter C-c M-x Up F5); others are sent as text",
    "paste": "send as a paste (bracketed when the program asked for it)",
    "enter": "press Enter after the text",
    "lines": "this many lines of history too",
    "ansi": "keep colours and styles as SGR sequences",
    "join": "join lines the terminal wrapped (tmux's -J)",
    "horizontal": "side by side",
    "vertical": "stacked (the default)",
    "cwd": "start in this directory",
    "size": "the new pane's share, in percent",
    "session": "rename the session, not the pane",
    "exit": "until the pane's program ends: print its status and exit with it",
    "output": "until this regular expression matches the pane's screen",
    "idle": "until the pane prints nothing for this many seconds",
    "state": "the state: working, blocked, done or idle",
    "timeout": "give up after this many seconds (exit status 124)",
    "message": "one line about it (the ask, the last answer)",
    "source": "who says so (e.g. hook)",
    "event": "the event that said it (e.g. Stop)",
    "stdin": "read the hook's JSON payload from stdin",
    "hook": "the agent (claude, codex, opencode) whose own hook payload this is (stdin, or Codex's argument)",
    "detached": "start it with no client attached (the only way)",
    "name": "its title",
    "cols": "its width, in columns",
    "rows": "its height, in rows",
}


def add_parsers(sub: Any) -> None:
    """An argparse parser per verb, for `dsh --help` and the shell completions generated from it;
    `main` parses these verbs itself, before any parser is built."""
    for verb, spec in SPECS.items():
        usage, summary = HELP[verb].split("\n", 1)
        p = sub.add_parser(verb, help=summary.strip(), usage=usage, add_help=verb != "split")
        flags: dict[str, list[str]] = {}
        for flag, (dest, _takes) in spec.items():
            flags.setdefault(dest, []).append(flag)
        for dest, names in flags.items():
            takes = spec[names[0]][1]
            kwargs: dict[str, Any] = {"dest": f"control_{dest}", "help": _OPTION_HELP.get(dest, "")}
            if takes:
                kwargs["metavar"] = "TARGET" if dest == "target" else dest.upper()
            else:
                kwargs["action"] = "store_true"
            p.add_argument(*sorted(names, key=len, reverse=True), **kwargs)
        if verb not in ("list", "close", "focus", "capture", "wait"):
            p.add_argument("words", nargs="*", metavar="CMD" if verb in COMMAND_VERBS else "TEXT")


class UsageError(Exception):
    """The words given do not fit the verb."""


def parse(verb: str, words: list[str]) -> tuple[dict[str, Any], list[str], dict[str, str]]:
    """(options, the other words, unknown `--name value` options: for report only) of a verb's words."""
    spec = SPECS[verb]
    options: dict[str, Any] = {}
    rest: list[str] = []
    extra: dict[str, str] = {}
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            rest += words[i:]
            break
        if word == "--help" or (word == "-h" and verb != "split"):
            raise SystemExit(_help(verb))
        if not word.startswith("-") or word == "-":
            rest.append(word)
            if verb in COMMAND_VERBS:
                rest += words[i:]  # the command's own options are its own
                break
            continue
        name, eq, value = word.partition("=")
        found = spec.get(name)
        if found is None:
            if verb == "report" and name.startswith("--") and len(name) > 2:
                if not eq and i < len(words) and not words[i].startswith("-"):
                    value, i = words[i], i + 1
                extra[name[2:]] = value
                continue
            raise UsageError(f"dsh {verb}: unknown option {name}\nusage: {HELP[verb].splitlines()[0]}")
        dest, takes = found
        if takes:
            if not eq:
                if i >= len(words):
                    raise UsageError(f"dsh {verb}: {name} needs a value")
                value, i = words[i], i + 1
            options[dest] = value
        elif eq:
            raise UsageError(f"dsh {verb}: {name} takes no value")
        else:
            options[dest] = True
    return options, rest, extra


def _help(verb: str) -> int:
    sys.stdout.write(f"usage: {HELP[verb]}\n")
    return 0


def main(words: list[str]) -> int:
    verb, args = words[0], words[1:]
    try:
        options, rest, extra = parse(verb, args)
        return _VERBS[verb](options, rest, extra)
    except UsageError as exc:
        from dsh.cli.output import fail

        # dsh's own text: its usage on a line of its own (say() would show the newline as \n).
        first, *usage = str(exc).split("\n")
        return fail(first, USAGE_ERROR, tuple(usage))
    except ControlError as exc:
        if verb in QUIET:
            # A hook's report: nothing reachable, or refused, is never the agent's problem (Claude Code
            # takes a hook's exit status 2 as "block this tool call").
            return 0
        return _fail(str(exc), exc.status)
    except KeyboardInterrupt:
        return 130


def _fail(message: str, status: int) -> int:
    from dsh.cli.output import say  # only on the way out: the verbs' start-up stays lean

    say(f"dsh: {message}")
    return status


def _out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


# -- targets -----------------------------------------------------------------------------------
class Where:
    """A host to ask (its socket), the session it holds (if known) and the pane word (None: the
    active pane)."""

    __slots__ = ("pane", "session", "socket")

    def __init__(self, socket: str, session: str | None, pane: str | None) -> None:
        self.socket = socket
        self.session = session
        self.pane = pane

    def request(self, verb: str, **fields: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"verb": verb, **fields}
        if self.session:
            out["session"] = self.session
        if self.pane:
            out["pane"] = self.pane
        return out


def _inside() -> Where | None:
    """This pane and its session, when run inside a dsh pane."""
    sock, session = os.environ.get("DSH_SOCKET"), os.environ.get("DSH_SESSION_ID")
    if sock and session:
        return Where(sock, session, os.environ.get("DSH_PANE_ID") or None)
    return None


def _hosts(stopped: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    from dsh.client.live import running_hosts

    return running_hosts(stopped)


def _newest_here() -> Where:
    """The newest live session of this workspace (or of the nearest workspace above it)."""
    try:
        here = os.path.realpath(os.getcwd())
    except OSError as exc:
        raise ControlError(f"cannot tell the current directory ({exc.strerror}); give -t", NO_TARGET) from exc
    best: tuple[int, str] | None = None
    chosen: dict[str, Any] | None = None
    for host in _hosts():
        cwd = os.path.realpath(host["cwd"])
        if here == cwd or here.startswith(cwd.rstrip("/") + "/"):
            key = (len(cwd), host["session"])
            if best is None or key > best:
                best, chosen = key, host
    if chosen is None:
        raise Unreachable("no live dsh session in this workspace (dsh list --all shows every one; -t picks one)")
    return Where(chosen["socket"], chosen["session"], None)


def _session(word: str) -> Where:
    """The live session `word` names (an id, a title, a unique start of either)."""
    inside = _inside()
    if inside is not None and word == inside.session:
        return Where(inside.socket, word, None)
    if _ID_CHARS.issuperset(word) and 0 < len(word) <= 64 and word[0] not in "-_":
        path = socket_of(word)
        if os.path.exists(path):
            return Where(path, word, None)
    from dsh.store.targets import Candidate, TargetError, resolve

    hosts: dict[str, dict[str, Any]] = {}
    for h in _hosts():
        hosts.setdefault(h["session"], h)  # the first listed of an id, as resolve keeps
    try:
        session = resolve(word, [Candidate(h["session"], h.get("title") or "") for h in hosts.values()]).id
    except TargetError as exc:
        raise ControlError(f"{exc} among the live sessions (dsh list --all)", NO_TARGET) from exc
    return Where(hosts[session]["socket"], session, None)


_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def socket_of(session_id: str) -> str:
    """dsh.rundir.socket_path's answer for a valid id, without importing it (pathlib, the home's
    checks and the store's are most of a `dsh send -t ID`): the folder's checks are made on connecting
    (dsh.client.control._connect). A test holds the two to the same answer."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isabs(xdg) and _runtime_dir_usable(xdg):
        return os.path.join(xdg, "dsh", f"{session_id}.sock")
    raw = os.environ.get("DSH_HOME")
    home = os.path.expanduser(raw) if raw else os.path.join(os.path.expanduser("~"), ".dsh")
    if not os.path.isabs(home):
        home = os.path.join(os.getcwd(), home)
    # As pathlib spells it: no "." parts or doubled slashes, ".." kept.
    home = "/" + "/".join(part for part in home.split("/") if part not in ("", "."))
    return os.path.join(home, "run", f"{session_id}.sock")


def _runtime_dir_usable(xdg: str) -> bool:
    """dsh.rundir.runtime_dir_problem(xdg) is None."""
    try:
        info = os.stat(xdg)
    except OSError:
        return True

    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022


def _is_pane_id(word: str) -> bool:
    return len(word) > 1 and word[0] == "p" and word[1:].isdigit()


def locate(target: str | None, *, pane_verb: bool = True) -> Where:
    """Where a verb goes: `target` (SESSION, SESSION:PANE, PANE), else this pane, else the newest
    live session here."""
    inside = _inside()
    if not target:
        if inside is not None:
            return inside if pane_verb else Where(inside.socket, inside.session, None)
        return _newest_here()
    if ":" in target:
        session_word, _, pane_word = target.partition(":")
        where = _session(session_word) if session_word else (inside or _newest_here())
        return Where(where.socket, where.session, pane_word or None)
    if _is_pane_id(target):
        base = inside or _newest_here()
        return Where(base.socket, base.session, target)
    try:
        return _session(target)
    except ControlError as exc:
        if exc.status != NO_TARGET or "could be any of" in str(exc):
            raise
        try:
            base = inside or _newest_here()
        except ControlError:
            raise exc from None
        # Not a session: a pane of this one, by its title (the host says if it has none such).
        return Where(base.socket, base.session, target)


# -- the verbs ---------------------------------------------------------------------------------
def _print_json(value: object) -> None:
    import json  # here: `dsh report` and `dsh send` print none, and json is most of their imports

    _out(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def _reply_out(options: dict[str, Any], reply: dict[str, Any], text: str = "") -> int:
    if options.get("json"):
        reply.pop("ok", None)
        _print_json(reply)
    elif text:
        _out(text)
    return 0


def _list(options: dict[str, Any], rest: list[str], extra: dict[str, str]) -> int:
    if rest:
        raise UsageError("dsh list takes no words (did you mean dsh list --all?)")
    inside = _inside()
    sockets: list[str]
    stopped: list[dict[str, Any]] = []  # hosts stopped (SIGSTOP): listed as such, never waited for
    if options.get("all") or inside is None:
        hosts = _hosts(stopped)
        if not options.get("all"):
            here = os.path.realpath(os.getcwd())

            def in_here(cwd: str) -> bool:
                c = os.path.realpath(cwd)
                return here == c or here.startswith(c + "/")

            hosts = [h for h in hosts if in_here(h["cwd"])]
            stopped = [row for row in stopped if row["cwd"] and in_here(row["cwd"])]
        sockets = [h["socket"] for h in hosts]
    else:
        sockets = [inside.socket]
    sessions = []
    for sock in sockets:
        try:
            sessions.append({**call(sock, {"verb": "list"})["info"], "stopped": False})
        except ControlError:
            continue  # it ended meanwhile
    for row in stopped:
        sessions.append(
            {
                "id": row["session"],
                "title": "",
                "cwd": row["cwd"],
                "pid": row["pid"],
                "attached": None,  # it cannot say
                "socket": row["socket"],
                "tabs": [],
                "stopped": True,
            }
        )
    sessions.sort(key=lambda s: s["id"], reverse=True)
    if options.get("json"):
        _print_json(sessions)
        return 0
    _out("".join(_list_lines(sessions)) or "no live sessions here (dsh list --all shows every one)\n")
    return 0


def _list_lines(sessions: list[dict[str, Any]]) -> list[str]:
    from dsh.text import sanitize

    lines = []
    for s in sessions:
        if s.get("stopped"):  # its host cannot say what it holds: what it is, and the ways out
            sid, pid = sanitize(str(s["id"]), 64), s["pid"]  # its socket's name
            ways = f"kill -CONT {pid} lets it go on, dsh stop {sid} ends it"
            lines.append(f"{sid}  {sanitize(s['cwd'], 200)}  stopped (host pid {pid}): {ways}\n")
            continue
        attached = "attached" if s.get("attached") else "detached"
        lines.append(f"{s['id']}  {sanitize(s.get('title') or '', 60)}  {sanitize(s['cwd'], 200)}  {attached}\n")
        for tab in s["tabs"]:
            mark = "*" if tab["active"] else " "
            lines.append(f"  {mark}tab {tab['index']} {sanitize(tab.get('title') or '', 60)}\n")
            for pane in tab["panes"]:
                mark = "*" if pane["active"] else " "
                ended = not pane["running"] and pane["exit_status"] is not None
                state = f"exited {pane['exit_status']}" if ended else pane["state"]
                report = pane.get("report") or {}
                said = f"  [{report['state']}]" if report.get("state") else ""
                lines.append(
                    f"    {mark}{pane['id']:<5} {sanitize(pane['program'], 20):<12} {pane['cols']}x{pane['rows']:<4} "
                    f"{state:<9} pid {pane['pid'] or '-':<7} {sanitize(pane['cwd'], 200)}{said}\n"
                )
    return lines


def _text_words(rest: list[str]) -> str:
    if rest == ["-"]:
        data = sys.stdin.buffer.read(SEND_MAX + 1)
        if len(data) > SEND_MAX:
            raise ControlError(f"too much to send at once (more than {SEND_MAX} bytes)", REFUSED)
        return data.decode("utf-8", "surrogateescape")
    return " ".join(rest)


def _send(options: dict[str, Any], rest: list[str], extra: dict[str, str]) -> int:
    if not rest and not options.get("enter"):
        raise UsageError("dsh send: nothing to send\nusage: " + HELP["send"].splitlines()[0])
    where = locate(options.get("target"))
    fields: dict[str, Any] = {}
    if options.get("keys"):
        if sum(len(w) for w in rest) > SEND_MAX:
            raise ControlError(f"too much to send at once (more than {SEND_MAX} characters)", REFUSED)
        fields["keys"] = rest
    else:
        text = _text_words(rest)
        if len(text) > SEND_MAX:
            raise ControlError(f"too much to send at once ({len(text)} characters; at most {SEND_MAX})", REFUSED)
        fields["text"] = text
        if options.get("paste"):
            fields["paste"] = True
    if options.get("enter"):
        fields["enter"] = True
    reply = call(where.socket, where.request("send", **fields))
    return _reply_out(options, reply)


def _int(options: dict[str, Any], name: str, *, low: int = 0) -> int | None:
    raw = options.get(name)
    if raw is None:
        return None
    try:
        value = int(str(raw).rstrip("%"))
    except ValueError:
        raise UsageError(f"{name} must be a whole number, not {raw!r}") from None
    if value < low:
        raise UsageError(f"{name} must be at least {low}")
    return value


def _seconds(options: dict[str, Any], name: str) -> float | None:
    raw = options.get(name)
    if raw is None:
        return None
    try:
        value = float(str(raw).rstrip("s"))
    except ValueError:
        raise UsageError(f"--{name} must be a number of seconds, not {raw!r}") from None
    if not 0 <= value <= 86400:
        raise UsageError(f"--{name} must be from 0 to 86400 seconds")
    return value


def _capture(options: dict[str, Any], rest: list[str], extra: dict[str, str]) -> int:
    if rest:
        raise UsageError("dsh capture takes no words")
    where = locate(options.get("target"))
    fields: dict[str, Any] = {"join": bool(options.get("join")), "ansi": bool(options.get("ansi"))}
    if options.get("all"):
        fields["all"] = True
    lines = _int(options, "lines")
    if lines:
        fields["lines"] = lines
    reply = call(where.socket, where.request("capture", **fields), timeout=30.0)
    return _reply_out(options, reply, reply.get("text", ""))


def _target_line(reply: dict[str, Any]) -> str:
    return f"{reply['session']}:{reply['pane']}\n"


def _split(options: dict[str, Any], rest: list[str], extra: dict[str, str]) -> int:
    if options.get("horizontal") and options.get("vertical"):
        raise UsageError("dsh split: -h or -v, not both")
    where = locate(options.get("target"))
    fields: dict[str, Any] = {"orientation": "row" if options.get("horizontal") else "column"}
    size = _int(options, "size", low=1)
    if size is not None:
        if size > 99:
            raise UsageError("--size must be a percentage from 1 to 99")
        fields["size"] = size
    return _opening(options, rest, where, "split", fields)


def _opening(options: dict[str, Any], rest: list[str], where: Where, verb: str, fields: dict[str, Any]) -> int:
    if options.get("cwd") is not None:
        fields["cwd"] = os.path.abspath(os.path.expanduser(options["cwd"]))
    if rest:
        fields["argv"] = rest
    reply = call(where.socket, where.request(verb, **fields))
    return _reply_out(options, reply, _target_line(reply))


def _new_tab(options: dict[str, Any], rest: list[str], extra: dict[str, str]) -> int:
    return _opening(options, rest, locate(options.get("target"), pane_verb=False), "new_tab", {})


def _simple(verb: str) -> Any:
    def run(options: dict[str, Any], rest: list[str], extra: dict[str, str]) -> int:
        if rest:
            raise UsageError(f"dsh {verb} takes no words (a pane is named with -t)")
        where = locate(options.get("target"))
        return _reply_out(options, call(where.socket, where.request(verb)))

    return run


def _rename(options: dict[str, Any], rest: list[str], extra: dict[str, str]) -> int:
    if not rest:
        raise UsageError("dsh rename: give the new name ('' gives the automatic one back)")
    session = bool(options.get("session"))
    where = locate(options.get("target"), pane_verb=not session)
    fields = {"name": " ".join(rest), "what": "session" if session else "pane"}
    return _reply_out(options, call(where.socket, where.request("rename", **fields)))


def _do(options: dict[str, Any], rest: list[str], extra: dict[str, str]) -> int:
    if not rest:
        raise UsageError("dsh do: give a slash command, e.g. dsh do '/split -h'")
    where = locate(options.get("target"), pane_verb=False)
    reply = call(where.socket, where.request("do", line=" ".join(rest)), timeout=60.0)
    if options.get("json"):
        return _reply_out(options, reply)
    for message in reply.get("messages") or []:
        (sys.stderr if message.get("error") else sys.stdout).write(str(message.get("text", "")) + "\n")
    return 0


def _wait(options: dict[str, Any], rest: list[str], extra: dict[str, str]) -> int:
    if rest:
        raise UsageError("dsh wait takes no words")
    kinds = [k for k in ("exit", "output", "idle", "state") if options.get(k) is not None]
    if len(kinds) != 1:
        raise UsageError("dsh wait: one of --exit, --output REGEX, --idle SECONDS, --state STATE")
    timeout = _seconds(options, "timeout")
    where = locate(options.get("target"))
    kind = kinds[0]
    if kind == "output":
        from dsh.cli.control_wait import wait_output

        return wait_output(where, options, timeout)
    fields: dict[str, Any] = {"for": kind}
    if timeout is not None:
        fields["timeout"] = timeout
    if kind == "idle":
        fields["seconds"] = _seconds(options, "idle")
    if kind == "state":
        fields["state"] = options["state"]
    reply = call(where.socket, where.request("wait", **fields), timeout=None if timeout is None else timeout + 10.0)
    if kind == "exit":
        status = reply.get("exit_status")
        status = status if isinstance(status, int) else 1
        _reply_out(options, reply, f"{status}\n")
        return status if 0 <= status <= 255 else 1
    return _reply_out(options, reply)


def _report(options: dict[str, Any], rest: list[str], extra: dict[str, str]) -> int:
    started, order = _hook_started()
    state, hook = options.get("state"), options.get("hook")
    if not state and not hook:
        raise UsageError("dsh report: --state working|blocked|done|idle (or --hook KIND with its payload)")
    if not options.get("target") and _inside() is None:
        return 0  # a hook outside any dsh pane: nothing to report on
    fields: dict[str, Any] = {}
    if hook:
        # The agent's own payload: Codex's notify appends it as an argument, the others write it to stdin.
        payload = rest[-1] if rest and rest[-1].lstrip().startswith("{") else _stdin_text()
        if payload is None:
            return 0
        # When this hook started (and its pid, which orders two started within one clock tick): the host
        # drops a report older than one it already took (dsh's Claude hooks run in the background, and
        # two may arrive out of order).
        fields.update(hook=hook, payload=payload, at=started, order=order)
    else:
        fields["state"] = state
        message = options.get("message")
        if message is None and rest:
            message = " ".join(rest)
        if message is not None:
            fields["message"] = message
        if options.get("stdin"):
            payload = _stdin_text()
            if payload is not None:
                fields["payload"] = payload
    for name in ("source", "event"):
        if options.get(name) is not None:
            fields[name] = options[name]
    if extra:
        fields["extra"] = extra
    where = locate(options.get("target"))
    reply = call(where.socket, where.request("report", **fields), timeout=REPORT_TIMEOUT)
    return _reply_out(options, reply)


def _hook_started() -> tuple[float, int]:
    """When the hook that runs this started, and its pid: the agent's shell for the hook command (this
    process's parent), which the agent starts in the order of its events (this process may start
    later than a sibling's on a busy machine). From /proc: start in clock ticks since boot, from the
    boot time the kernel gives every process alike (`btime`): two hooks' times are then exact to a
    tick, where now-minus-uptime differed by up to 10 ms from one process to the next and put a
    permission ask before the prompt that came first (the pane stayed "working")."""

    try:
        with open("/proc/self/stat", "rb") as handle:
            parent = int(handle.read().rsplit(b")", 1)[1].split()[1])
        with open(f"/proc/{parent}/stat", "rb") as handle:
            ticks = int(handle.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/stat", "rb") as handle:
            boot = next(int(line.split()[1]) for line in handle if line.startswith(b"btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK"), parent
    except (OSError, ValueError, IndexError, StopIteration):
        return time.time(), os.getpid()


def _stdin_text(wait: float = STDIN_WAIT) -> str | None:
    """What a hook was given on stdin (at most PAYLOAD_MAX; a terminal, or nothing within `wait`
    seconds, is none: a hook must never hang its agent)."""
    import select

    try:
        fd = sys.stdin.fileno()
        if os.isatty(fd):
            return None
    except (AttributeError, ValueError, OSError):
        return None
    deadline = time.monotonic() + wait
    data = bytearray()
    while len(data) <= PAYLOAD_MAX:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
        except OSError:
            return None
        if not chunk:
            return data.decode("utf-8", "replace")
        data += chunk
    return None


def _notify(options: dict[str, Any], rest: list[str], extra: dict[str, str]) -> int:
    if not rest:
        raise UsageError("dsh notify: give the text")
    where = locate(options.get("target"))
    fields = {"text": " ".join(rest)}
    if not options.get("target") and where.pane is None:
        fields.pop("pane", None)
    reply = call(where.socket, where.request("notify", **fields), timeout=REPORT_TIMEOUT)
    return _reply_out(options, reply)


def _new(options: dict[str, Any], rest: list[str], extra: dict[str, str]) -> int:
    from dsh.cli.control_new import new_session

    return new_session(options, rest)


_VERBS = {
    "list": _list,
    "send": _send,
    "capture": _capture,
    "split": _split,
    "new-tab": _new_tab,
    "close": _simple("close"),
    "focus": _simple("focus"),
    "rename": _rename,
    "do": _do,
    "wait": _wait,
    "report": _report,
    "notify": _notify,
    "new": _new,
}

__all__ = ["HELP", "SPECS", "TIMED_OUT", "VERBS", "dumps", "locate", "main", "parse"]
