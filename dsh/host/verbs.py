"""The control verbs as the host runs them, on its loop, against its session (`dsh send`, `dsh list` …).

Each takes the request (a JSON object, untrusted) and returns the reply; a failure is a VerbError with
the exit status the client leaves with: NO_TARGET (2) for no such session or pane, REFUSED (3) for a
request the host will not do, TIMED_OUT (124) for a wait that ran out. A verb changes the session as
the key or slash command does (the same Session methods), so the attached view redraws as it would for
a key, and the snapshot is written as it would be.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any, cast

from dsh import protocol
from dsh.home import dsh_home
from dsh.layout.tree import is_orientation
from dsh.session.view_records import EndReason
from dsh.store.ids import is_valid_session_id
from dsh.store.targets import Candidate, TargetError, resolve
from dsh.text import sanitize

if TYPE_CHECKING:
    from dsh.host.server import HostServer
    from dsh.session.pane import Pane
    from dsh.session.session import Session

NO_TARGET = 2
REFUSED = 3
TIMED_OUT = 124
# States `dsh report` takes and `dsh wait --state` waits for (the attention issue's five).
STATES = ("working", "blocked", "done", "idle", "exited")
# A report's message, a notification, a name: at most this long once made one safe line.
MESSAGE_MAX = 300
# A pane that does not read its input is sent no more once this much waits for it.
PENDING_MAX = 4 << 20
# A capture that waits for output (`dsh wait --output`) is held at most this long, and answered no
# sooner than this after the last answer, so that a flooding pane does not make it spin.
HOLD_MAX = 30.0
HOLD_MIN = 0.05
# The longest wait a client may ask for (a day): a bound, not a limit anyone meets.
WAIT_MAX = 86400.0


class VerbError(Exception):
    """A verb's refusal: one line for the user, and the exit status the client leaves with."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


async def run_verb(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    """Run the request's verb; its reply (ok: true, and what the verb says)."""
    session = server.session
    verb = request.get("verb")
    handler = _VERBS.get(verb) if isinstance(verb, str) else None
    if handler is None:
        raise VerbError(f"unknown control verb {sanitize(str(verb), 40)!r} (an older host?)", REFUSED)
    wanted = request.get("session")
    if wanted is not None and wanted != session.log.id:
        raise VerbError(f"this host holds session {session.log.id}, not {sanitize(str(wanted), 64)}", NO_TARGET)
    if session.closing and verb != "list":
        raise VerbError("this session is ending", REFUSED)
    reply = await handler(server, request)
    reply.setdefault("ok", True)
    reply.setdefault("session", session.log.id)
    return reply


# -- arguments ---------------------------------------------------------------------------------
def _str(request: dict[str, Any], name: str, default: str | None = None) -> str | None:
    value = request.get(name, default)
    if value is None:
        return None
    if not isinstance(value, str):
        raise VerbError(f"{name} must be text", REFUSED)
    return value


def _number(request: dict[str, Any], name: str, *, low: float, high: float) -> float | None:
    value = request.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise VerbError(f"{name} must be a number from {low:g} to {high:g}", REFUSED)
    return float(value)


def _argv(request: dict[str, Any]) -> list[str] | None:
    argv = request.get("argv")
    if argv is None or argv == []:
        return None
    if not isinstance(argv, list) or not all(isinstance(a, str) and "\0" not in a for a in argv):
        raise VerbError("argv must be a list of words", REFUSED)
    return list(argv)


def _cwd(session: Session, request: dict[str, Any]) -> str | None:
    cwd = _str(request, "cwd")
    if cwd is None:
        return None
    path = os.path.join(session.cwd, os.path.expanduser(cwd))
    if not os.path.isdir(path):
        raise VerbError(f"no directory {sanitize(cwd, 200)}", REFUSED)
    return os.path.realpath(path)


def _line(text: str | None, max_len: int = MESSAGE_MAX) -> str | None:
    """Untrusted text as one safe line, or None for nothing."""
    if text is None:
        return None
    text = " ".join(text[: max_len * 8].split())
    return sanitize(text, max_len=max_len) if text else None


# -- targets -----------------------------------------------------------------------------------
def _pane(session: Session, request: dict[str, Any], *, ended: bool = False) -> Pane:
    """The pane the request names (`pane`: an id, a title, a unique start of either), else the active
    one. With `ended`, a pane closed after its program ended is found too (by its exact id)."""
    word = _str(request, "pane")
    if not word:
        pane = session.active_pane
        if pane is None:
            raise VerbError("this session has no pane", NO_TARGET)
        return pane
    if ended and word not in session.panes and word in session.ended_panes:
        return session.ended_panes[word]
    candidates = [Candidate(p.id, p.name or p.title, p) for p in session.panes.values()]
    try:
        return cast("Pane", resolve(word, candidates, what="pane").value)  # each candidate carries its Pane
    except TargetError as exc:
        raise VerbError(f"{exc} in session {session.log.id}", NO_TARGET) from exc


# -- list --------------------------------------------------------------------------------------
def describe_pane(session: Session, pane: Pane, *, active: bool) -> dict[str, Any]:
    from dsh.session.saving import pane_cwd

    terminal = pane.terminal
    foreground = terminal.foreground_process() if pane.running else None
    attention = pane.agent_state
    agent = pane.agent
    return {
        "id": pane.id,
        "title": pane.title,
        "name": pane.name,
        "program": pane.program,
        "argv": list(pane.argv),
        "cwd": pane_cwd(pane),
        "pid": terminal.pid if pane.running else None,
        "foreground": {"pid": foreground[0], "argv": foreground[1]} if foreground is not None else None,
        "rows": terminal.rows,
        "cols": terminal.cols,
        "state": str(pane.state),
        "running": pane.running,
        "exit_status": terminal.exit_status if not pane.running else None,
        "active": active,
        "attention": pane.attention,
        "agent": {"kind": agent.kind, "session_id": agent.session_id} if agent is not None else None,
        "agent_state": _attention_dict(attention),
    }


def _attention_dict(attention: Any) -> dict[str, Any] | None:
    if attention is None:
        return None
    from dsh.attention.model import SOURCE_NAMES

    return {
        "state": attention.state,
        "since": attention.since,
        "message": attention.message,
        "source": SOURCE_NAMES.get(attention.source),
    }


def describe_session(server: HostServer) -> dict[str, Any]:
    session = server.session
    tabs = []
    for index, tab in enumerate(session.tabs.tabs):
        panes = [
            describe_pane(session, session.panes[pid], active=pid == tab.active_pane)
            for pid in tab.pane_ids()
            if pid in session.panes
        ]
        active = session.panes.get(tab.active_pane)
        tabs.append(
            {
                "id": tab.id,
                "index": index,
                "title": tab.title or (active.title if active is not None else ""),
                "active": index == session.tabs.active_index,
                "zoomed": tab.zoomed,
                "panes": panes,
            }
        )
    return {
        "id": session.log.id,
        "title": session.display_title,
        "cwd": session.cwd,
        "pid": os.getpid(),
        "attached": server.current is not None,
        "socket": session.socket,
        "tabs": tabs,
    }


async def _list(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    return {"info": describe_session(server)}


# -- send, capture -----------------------------------------------------------------------------
async def _send(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    from dsh.term.key_bytes import paste_bytes, typed_bytes
    from dsh.term.tmux_keys import keys_bytes

    session = server.session
    pane = _pane(session, request)
    keys = request.get("keys")
    text = _str(request, "text") or ""
    if keys is not None and (not isinstance(keys, list) or not all(isinstance(k, str) for k in keys)):
        raise VerbError("keys must be a list of key names", REFUSED)
    size = sum(len(k) for k in keys) if keys else len(text)
    if size > protocol.SEND_MAX:
        raise VerbError(f"too much to send at once ({size} characters; at most {protocol.SEND_MAX})", REFUSED)
    if pane.startable:
        session.start_tombstone(pane)  # as a line typed into it would
    if not pane.running:
        raise VerbError(f"pane {pane.id} is not running: its program ended", REFUSED)
    terminal = pane.terminal
    waiting = len(getattr(terminal, "_out", b""))
    if waiting > PENDING_MAX:
        raise VerbError(f"pane {pane.id} is not reading its input ({waiting} bytes wait for it)", REFUSED)
    if keys:
        data = keys_bytes(keys, app_cursor=terminal.app_cursor, app_keypad=terminal.app_keypad)
    elif request.get("paste"):
        data = paste_bytes(text, bracketed=terminal.bracketed_paste)
    else:
        data = typed_bytes(text)
    if request.get("enter"):
        data += b"\r"
    if terminal.scroll_offset:
        terminal.scroll_to_bottom()
    terminal.write(data)
    session.used = True
    session.scheduler.mark_dirty()
    return {"pane": pane.id, "bytes": len(data)}


def _capture_rows(pane: Pane, request: dict[str, Any]) -> list[Any]:
    screen = pane.terminal.screen
    rows = list(screen.screen_rows())
    if request.get("all"):
        return [*screen.history, *rows]
    lines = _number(request, "lines", low=0, high=10_000_000)
    if lines:
        history = screen.history
        n = min(int(lines), len(history))
        return [*(history[i] for i in range(len(history) - n, len(history))), *rows]
    return rows


async def _capture(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    from dsh.term.capture import capture_text

    session = server.session
    pane = _pane(session, request, ended=True)
    since = request.get("since")
    hold = _number(request, "hold", low=0, high=HOLD_MAX)
    if isinstance(since, int) and hold:
        # `dsh wait --output`: answer once the pane has printed something new (or it ends, or the hold runs out).
        loop = asyncio.get_running_loop()
        deadline = loop.time() + hold
        while pane.terminal.fed == since and pane.id in session.panes and not session.closing:
            left = deadline - loop.time()
            if left <= 0 or not await _changed(session, left):
                break
        await asyncio.sleep(HOLD_MIN)
    terminal = pane.terminal
    text = capture_text(
        _capture_rows(pane, request), terminal.cols, join=bool(request.get("join")), ansi=bool(request.get("ansi"))
    )
    return {
        "pane": pane.id,
        "text": text,
        "fed": terminal.fed,
        "rows": terminal.rows,
        "cols": terminal.cols,
        "cursor": [terminal.screen.cursor.x, terminal.screen.cursor.y],
        "running": pane.running and pane.id in session.panes,
        "exit_status": terminal.exit_status,
    }


async def _changed(session: Session, timeout: float) -> bool:
    """Wait until a pane prints, ends or closes, or a report comes; False when `timeout` ran out first."""
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    session.waiters.append(future)
    try:
        await asyncio.wait_for(future, timeout)
    except TimeoutError:
        return False
    finally:
        if future in session.waiters:
            session.waiters.remove(future)
    return True


# -- layout ------------------------------------------------------------------------------------
def _fit_headless(session: Session) -> None:
    """With no client attached, give each pane of the active tab the size its place in the layout has
    (a view does this as it draws), so a capture or a program sees the size it will be shown at."""
    from dsh.session.observer import NoObserver

    if not isinstance(session.observer, NoObserver) or not session.tabs.tabs:
        return
    for pane_id, rect in session.tabs.rects(session.area).rects.items():
        pane = session.panes.get(pane_id)
        if pane is not None and rect.width > 0 and rect.height > 1:
            if (pane.terminal.rows, pane.terminal.cols) != (rect.height - 1, rect.width):
                pane.terminal.resize(rect.height - 1, rect.width)


async def _split(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    session = server.session
    pane = _pane(session, request)
    orientation = request.get("orientation", "column")
    if not is_orientation(orientation):
        raise VerbError("orientation must be row (-h) or column (-v)", REFUSED)
    size = _number(request, "size", low=1, high=99)
    argv, cwd = _argv(request), _cwd(session, request)
    new = session.split(orientation, argv, cwd=cwd or None, at=pane.id, percent=size)
    if new is None:
        raise VerbError("no space for a new pane there: close or zoom one, or attach a bigger window", REFUSED)
    _fit_headless(session)
    return {"pane": new.id}


async def _new_tab(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    session = server.session
    argv, cwd = _argv(request), _cwd(session, request)
    new = session.open_tab(argv, cwd=cwd or session.follow_cwd())
    _fit_headless(session)
    return {"pane": new.id, "tab": session.tabs.active_tab.id}


async def _close(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    session = server.session
    pane = _pane(session, request)
    last = len(session.panes) == 1
    reply: dict[str, Any] = {"pane": pane.id, "session_ended": last}
    if last:
        # Closing the last pane ends the session and with it this host: after the reply is out.
        reply["_after"] = lambda: session.close_pane(pane.id)
    else:
        session.close_pane(pane.id)
        _fit_headless(session)
    return reply


async def _focus(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    session = server.session
    pane = _pane(session, request)
    session.focus_pane(pane.id)
    _fit_headless(session)
    return {"pane": pane.id}


async def _rename(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    session = server.session
    raw = _str(request, "name") or ""
    name = _line(raw, 120) or ""
    if request.get("what") == "session":
        session.set_title(name)
        return {"title": session.display_title}
    pane = _pane(session, request)
    session.name_pane(pane, name or None)
    return {"pane": pane.id, "title": pane.title}


# -- do ----------------------------------------------------------------------------------------
class HeadlessClient:
    """The client a slash command run by `dsh do` sees: messages are collected for the reply, and what
    needs a screen (a question, the picker, copy mode) is refused."""

    def __init__(self, server: HostServer) -> None:
        from dsh.session.commands import build_registry

        self.server = server
        self.session = server.session
        registry = server.control_registry
        if registry is None:
            registry = server.control_registry = build_registry()
        self.registry = registry
        self.messages: list[dict[str, Any]] = []

    def announce(self, text: str, *, error: bool = False) -> None:
        self.messages.append({"text": sanitize(text, max_len=2000), "error": error})

    def _needs_screen(self, what: str) -> None:
        from dsh.commands.registry import CommandError

        raise CommandError(f"{what} needs a screen: run it in an attached dsh")

    def ask(self, label: str, action: Any, default: str = "") -> None:
        self._needs_screen("a question on the prompt")

    def confirm(self, question: str, on_yes: Any, *, declined: str = "not done") -> None:
        self._needs_screen(f"{question!r}")

    def show_help(self, topic: str | None = None) -> None:
        text = self.registry.help_text(topic if topic != "keys" else None)
        for line in text.splitlines():
            self.messages.append({"text": line, "error": False})

    def open_picker(self) -> None:
        self._needs_screen("the picker")

    def enter_copy_mode(self) -> None:
        self._needs_screen("copy mode")

    def paste_clipboard(self) -> None:
        self._needs_screen("pasting the clipboard")

    def enter_prompt(self) -> None:
        self._needs_screen("the prompt")

    def enter_pane(self) -> None:
        self._needs_screen("the keyboard")

    def reload_config(self) -> None:
        for warning in self.session.reload_everywhere():
            self.announce(warning, error=True)

    def detach(self) -> None:
        current = self.server.current
        view = current.view if current is not None else None
        if view is None:
            from dsh.commands.registry import CommandError

            raise CommandError("no client is attached")
        view.end(EndReason.DETACHED)


async def _do(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    from dsh.commands.registry import CommandError

    line = _str(request, "line") or ""
    if not line.strip():
        raise VerbError("give a slash command, e.g. dsh do '/split -h'", REFUSED)
    if len(line) > 65536:
        raise VerbError("that command line is too long", REFUSED)
    client = HeadlessClient(server)
    try:
        await client.registry.run_line(client, line.strip())
    except CommandError as exc:
        raise VerbError(str(exc), REFUSED) from exc
    _fit_headless(server.session)
    return {"messages": client.messages}


# -- wait, report, notify ----------------------------------------------------------------------
def _state_of(session: Session, pane: Pane) -> str | None:
    if pane.id not in session.panes or (not pane.running and pane.terminal.exit_status is not None):
        return "exited"
    from dsh.session.attention import state_of

    return state_of(pane)


async def _wait(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    session = server.session
    pane = _pane(session, request, ended=True)
    kind = request.get("for")
    timeout = _number(request, "timeout", low=0, high=WAIT_MAX)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + (timeout if timeout is not None else WAIT_MAX)
    if kind == "exit":
        while pane.exit_status is None and pane.terminal.exit_status is None:
            if pane.id not in session.panes:
                raise VerbError(f"pane {pane.id} was closed before its program ended", NO_TARGET)
            await _wait_step(session, deadline, f"pane {pane.id} is still running")
        status = pane.terminal.exit_status if pane.terminal.exit_status is not None else pane.exit_status
        return {"pane": pane.id, "exit_status": status}
    if kind == "idle":
        quiet = _number(request, "seconds", low=0, high=WAIT_MAX) or 0.0
        fed, since = pane.terminal.fed, loop.time()
        while True:
            if pane.terminal.fed != fed:
                fed, since = pane.terminal.fed, loop.time()
            now = loop.time()
            left = since + quiet - now
            if left <= 0 or pane.id not in session.panes:
                return {"pane": pane.id, "idle": quiet}
            if now >= deadline:
                break
            await _changed(session, min(left, deadline - now))
        raise VerbError(f"pane {pane.id} kept printing", TIMED_OUT)
    if kind == "state":
        wanted = request.get("state")
        if wanted not in STATES:
            raise VerbError(f"state must be one of {', '.join(STATES)}", REFUSED)
        while _state_of(session, pane) != wanted:
            if pane.id not in session.panes and wanted != "exited":
                raise VerbError(f"pane {pane.id} has closed", NO_TARGET)
            await _wait_step(session, deadline, f"pane {pane.id} is {_state_of(session, pane) or 'unknown'}")
        return {"pane": pane.id, "state": wanted}
    raise VerbError("wait for what? --exit, --output, --idle or --state", REFUSED)


async def _wait_step(session: Session, deadline: float, still: str) -> None:
    left = deadline - asyncio.get_running_loop().time()
    if left <= 0:
        raise VerbError(f"timed out: {still}", TIMED_OUT)
    if session.closing:
        raise VerbError("the session ended", NO_TARGET)
    await _changed(session, left)


async def _report(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    """A hook's word: `state` (and `message`) as given, or `hook` KIND with the agent's own payload
    (Claude Code's and Codex's hook JSON, Codex's notify argument, dsh's opencode plugin's line), read
    by dsh.attention.hooks. Whatever it says goes through the attention model (dsh.session.attention),
    which ranks it against the terminal's and the process's word."""
    from dsh.attention.model import HOOK, Report, one_line

    session = server.session
    pane = _pane(session, request)
    hook = _str(request, "hook")
    if hook is not None:
        from dsh.attention.hooks import event_for, parse_payload

        payload = parse_payload(_str(request, "payload") or "")
        event = event_for(hook, payload) if payload is not None else None
        if event is None:
            return {"pane": pane.id, "state": None}
        at = request.get("at")
        at = float(at) if isinstance(at, (int, float)) and not isinstance(at, bool) else None
        order = request.get("order")
        order = order if isinstance(order, int) and not isinstance(order, bool) else 0
        session.attention.hook(pane.id, event, at=at, order=order)
        session.wake_waiters()
        return {"pane": pane.id, "state": event.state}
    state = request.get("state")
    if state not in STATES:
        raise VerbError(f"state must be one of {', '.join(STATES)}", REFUSED)
    message = one_line(_str(request, "message"))
    session.attention.report(pane.id, Report(state, HOOK, message))
    session.wake_waiters()
    return {"pane": pane.id, "state": state}


async def _notify(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    session = server.session
    text = _line(_str(request, "text"))
    if not text:
        raise VerbError("nothing to say: dsh notify TEXT", REFUSED)
    if request.get("pane"):
        pane = _pane(session, request)
        session.attention.notice(pane.id, text)
        return {"pane": pane.id}
    from dsh.persist.snapshot import Notification
    from dsh.store.timefmt import now_iso

    session.notifications.append(Notification(at=now_iso(), pane_id=None, text=text, read_at=None))
    del session.notifications[:-200]
    session.scheduler.mark_dirty()
    session.announce(text)
    return {"pane": None}


async def _reload(server: HostServer, request: dict[str, Any]) -> dict[str, Any]:
    """Another session's /reload (dsh.session.reload_hosts): read the config again, as /reload here
    would, and say so to every attached client. Only for a host of the same DSH_HOME (the same file)."""
    by = _str(request, "from")
    if not is_valid_session_id(by):
        raise VerbError("from must be the session id whose /reload asks", REFUSED)
    if _str(request, "home") != str(dsh_home()):
        raise VerbError("this host reads the config of another DSH_HOME", REFUSED)
    warnings = server.session.reload_config(by=by)
    return {"warnings": len(warnings)}


_VERBS = {
    "list": _list,
    "send": _send,
    "capture": _capture,
    "split": _split,
    "new_tab": _new_tab,
    "close": _close,
    "focus": _focus,
    "rename": _rename,
    "do": _do,
    "wait": _wait,
    "report": _report,
    "notify": _notify,
    "reload": _reload,
}
VERBS = tuple(_VERBS)

__all__ = ["NO_TARGET", "REFUSED", "STATES", "TIMED_OUT", "VERBS", "VerbError", "describe_session", "run_verb"]
