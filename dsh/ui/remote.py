"""One client's view over a host connection: its keys as input, a VT100 output framed onto the socket."""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, NoReturn

from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output.color_depth import ColorDepth
from prompt_toolkit.output.vt100 import Vt100_Output

from dsh.session.view_records import Announcement, EndReason, Switch, ViewResult
from dsh.term.colour_replies import QUERIES, ColourReplies
from dsh.term.features import NO_FEATURES, Features, terminal_features
from dsh.term.replies import learn_colours
from dsh.text import sanitize
from dsh.ui.app import DshApp
from dsh.ui.link_input import LinkInput
from dsh.ui.view_application import shared_default_bindings
from dsh.ui.view_options import ViewOptions

# Keys wait at most this long for the prompt's history to load.
HISTORY_WAIT = 2.0

if TYPE_CHECKING:
    from dsh.host.connection import Connection
    from dsh.host.spec import HostSpec, ReadyPipe
    from dsh.session.session import Session


def serve(spec: HostSpec, ready: ReadyPipe) -> NoReturn:
    """The host process's entry: run the session host with this module drawing its clients."""
    from dsh.host.main import run_host

    run_host(spec, ready, run_view=run_remote_view)


# What a host imports only once it serves (inside functions), imported ahead by the spawner. The agents'
# code is among them: a host started by the client leaves it until after its first frame, a forked one
# has it already.
_HOST_MODULES = (
    "dsh.agents.registry",
    "dsh.agents.resumable",
    "dsh.session.agents",
    "dsh.config",
    "dsh.share",
    "dsh.host.main",
    "dsh.host.server",
    "dsh.persist.snapshot",
    "dsh.prompt.complete",
    "dsh.resume.candidates",
    "dsh.resume.preflight",
    "dsh.session.session",
    "dsh.store.log",
    "dsh.store.store",
    "dsh.ui.bindings.merged",
    "dsh.ui.copy_keys",
    "dsh.ui.keyhelp",
    "prompt_toolkit.key_binding.bindings.search",
)


def warm_up() -> None:
    """Do ahead what every host does first (the spawner calls this once, before it forks hosts): import
    the modules a host imports lazily, and build prompt_toolkit's default key bindings."""

    for name in _HOST_MODULES:
        importlib.import_module(name)
    shared_default_bindings()


async def run_remote_view(session: Session, link: Connection) -> EndReason:
    """Draw `session` for the client at the other end of `link` until it detaches, leaves or is gone."""
    keys = LinkInput()
    output = LinkOutput(
        _LinkStdout(link),  # type: ignore[arg-type]  # the part of a TextIO that Vt100_Output uses
        lambda: Size(rows=link.rows, columns=link.cols),
        term=link.env.get("TERM") or "xterm-256color",
        enable_cpr=False,
    )
    output.features = terminal_features(client_terminal_env(link.env))
    try:
        with create_app_session(input=keys, output=output):
            view = DshApp(
                session,
                ViewOptions(
                    announcements=[Announcement(text) for text in [*link.announcements, *_note(link.hello)]],
                    open_picker=link.open_picker,
                    color_depth=color_depth_for(link.env),
                    on_switch=lambda switch: (
                        link.request_remote(switch.remote)
                        if switch.remote
                        else link.request_switch(switch.session_id, switch.cwd, switch.first_argv)
                    ),
                    outward=lambda title, body: _outward(session, link, title, body),
                ),
            )
            came_from = (link.hello.get("intent") or {}).get("from_session")
            view.previous_session = came_from if isinstance(came_from, str) and came_from != session.log.id else None
            view.read_only = link.read_only
            # Keys typed at once (Up as soon as the frame shows) wait for the prompt's history.
            keys.hold_until(view.history_ready(), HISTORY_WAIT)
            replies = ColourReplies()
            link.attach_view(_Handle(view, keys, replies, session))
            # The terminal's own colours, for the panes' OSC 10/11/4 queries: asked, never waited for.
            link.write_output(QUERIES.encode())
            replies.asked()
            result = await view.run_async()
    finally:
        keys.close()
    return result.reason


class LinkOutput(Vt100_Output):
    """A client's output: prompt_toolkit's VT100 one, knowing what that client's terminal draws beyond
    it (ui/screen_diff.py writes a pane's underline styles and overline by it)."""

    features: Features = NO_FEATURES


def client_terminal_env(env: dict[str, str]) -> dict[str, str]:
    """A client's variables for finding its terminal's terminfo entry: what it sent, and where this
    user's entries are (HOME, TERMINFO, TERMINFO_DIRS; the same user's, from the host's environment)."""
    found = {name: os.environ[name] for name in ("HOME", "TERMINFO", "TERMINFO_DIRS") if name in os.environ}
    return {**found, **env}


def color_depth_for(env: dict[str, str]) -> ColorDepth:
    """The colour depth of a client's terminal, from the variables it brought (as prompt_toolkit would
    read them from its own environment): NO_COLOR, PROMPT_TOOLKIT_COLOR_DEPTH, COLORTERM, TERM."""
    if "NO_COLOR" in env:
        return ColorDepth.DEPTH_1_BIT
    forced = env.get("PROMPT_TOOLKIT_COLOR_DEPTH", "")
    if forced in ColorDepth.__members__:
        return ColorDepth[forced]
    if env.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return ColorDepth.DEPTH_24_BIT
    term = env.get("TERM", "")
    if term in ("dumb", "unknown") or term.startswith("dumb"):
        return ColorDepth.DEPTH_1_BIT
    if term == "linux":
        return ColorDepth.DEPTH_4_BIT
    return ColorDepth.DEPTH_8_BIT


class _Handle:
    """The connection's handle on the view (host.connection.ViewHandle)."""

    def __init__(self, view: DshApp, keys: LinkInput, replies: ColourReplies, session: Session) -> None:
        self._view = view
        self._keys = keys
        self._replies = replies
        self._session = session

    @property
    def reason(self) -> EndReason:
        return self._view.result.reason

    def feed(self, data: bytes) -> None:
        data, found = self._replies.take(data)
        if found:
            learn_colours(self._replies.colours, [pane.terminal.screen for pane in self._session.panes.values()])
        if self._replies.holding():
            # the start of an answer, or keys after all: the next read tells, or this soon does
            self._session.loop.call_later(0.1, self._release)
        if data:
            self._keys.feed(data)

    def _release(self) -> None:
        held = self._replies.flush()
        if held:
            self._keys.feed(held)

    def resized(self) -> None:
        app = self._view.application
        if app.is_running:
            app._on_resize()

    def redraw(self) -> None:
        app = self._view.application
        if app.is_running:
            app.renderer.reset(leave_alternate_screen=True)
            app.invalidate()

    def end(self, reason: EndReason) -> None:
        self._view.result = ViewResult(reason)
        self._view.exit()

    def switch_failed(self, error: str) -> None:
        self._view.switch_failed(error)


def _outward(session: Session, link: Connection, title: str, body: str) -> None:
    """A desktop notification in the form the client's terminal takes (dsh.attention.outward)."""
    from dsh.attention.outward import notification

    mode = session.config.text("attention.notify")
    data = notification(title, body, link.env, mode)
    if data:
        link.write_output(data)


class _LinkStdout:
    """What Vt100_Output writes to: each flush of a rendered frame becomes one OUTPUT frame."""

    encoding = "utf-8"
    errors = "replace"

    def __init__(self, link: Connection) -> None:
        self._link = link
        self._buffer: list[str] = []

    def write(self, data: str) -> int:
        self._buffer.append(data)
        return len(data)

    def flush(self) -> None:
        if self._buffer:
            data = "".join(self._buffer).encode("utf-8", "replace")
            self._buffer.clear()
            self._link.write_output(data)

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        raise OSError("a client connection has no file descriptor")


__all__ = ["Switch", "color_depth_for", "run_remote_view", "serve"]


def _note(hello: dict[str, object]) -> list[str]:
    """The line a client asks its host to show as it attaches (why it came back from another machine),
    bounded and made safe: it came over the socket."""

    intent = hello.get("intent")
    note = intent.get("note") if isinstance(intent, dict) else None
    return [sanitize(note, max_len=200)] if isinstance(note, str) and note else []
