"""Starting a pane's program: the shell, its environment and terminal, an agent's hooks, a tombstone."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from dsh.agents.programs import runs_agent
from dsh.home import ensure_home_dir
from dsh.layout.ids import next_id
from dsh.persist.states import PaneState
from dsh.session import agent_titles, pane_programs, structure
from dsh.session.pane import Pane
from dsh.session.pane_env import drop_outer_multiplexer
from dsh.session.shells import shell_launch as _shell_launch
from dsh.term.terminal import Terminal

if TYPE_CHECKING:
    from dsh.persist.snapshot import AgentInfo
    from dsh.session.session import Session


def shell_launch(session: Session) -> tuple[list[str], dict[str, str]]:
    """The user's shell as a login shell, with dsh's integration unless config turns it off."""
    shell = session.env.get("SHELL") or "/bin/sh"
    integration = session.config.flag("term.shell_integration")
    return _shell_launch(shell, session.env, integration=integration)


def new_pane_id(session: Session) -> str:
    # Never reuse an id in a session: a closed pane's id (and its saved tail) stays its own.
    pane_id = next_id("p", session._pane_ids_used | set(session.panes))
    session._pane_ids_used.add(pane_id)
    return pane_id


def spawn_env(session: Session, pane_id: str, cwd: str) -> dict[str, str]:
    """A pane's environment: the session's, its TERM, which session and pane it is, and PWD = its cwd."""
    env = dict(session.env)
    env.pop("DSH_HANDOFF_FROM", None)
    drop_outer_multiplexer(env)  # TMUX, TMUX_PANE, ZELLIJ*, STY ... of a multiplexer outside dsh
    env.update(shell_launch(session)[1])
    env["PWD"] = cwd
    env["TERM"] = session.term_name
    env["COLORTERM"] = "truecolor"  # the pane's screen keeps 24-bit colour; a view maps it down
    env["DSH_SESSION_ID"] = session.log.id
    env["DSH_PANE_ID"] = pane_id
    if session.socket:
        env["DSH_SOCKET"] = session.socket
    else:
        env.pop("DSH_SOCKET", None)  # an outer session's, from the host's own environment
    return env


def make_terminal(
    session: Session, pane_id: str, argv: list[str], cwd: str, env: dict[str, str], rows: int, cols: int
) -> Terminal:
    return Terminal(
        argv,
        cwd=cwd,
        env=env,
        rows=rows,
        cols=cols,
        scrollback=session.scrollback,
        tail_bytes=session.tail_bytes,
        term=session.term_name,
        on_change=lambda: pane_programs.on_pane_output(session, pane_id),
        on_exit=lambda status: pane_programs.on_pane_exit(session, pane_id, status),
        on_title=lambda title: pane_programs.on_title(session, pane_id, title),
        on_bell=lambda: session.attention.bell(pane_id),
        on_notice=lambda text: session.attention.terminal_notice(pane_id, text),
        on_alt_screen=lambda on: session.observer.on_alt_screen(pane_id, on),
        on_clipboard=lambda selections, data: session.observer.on_clipboard(pane_id, selections, data),
    )


def create_pane(session: Session, argv: list[str] | None, cwd: str | None = None) -> Pane:
    pane_id = new_pane_id(session)
    argv = list(argv) if argv else session.default_shell_argv()
    cwd = cwd or session.cwd
    env = spawn_env(session, pane_id, cwd)
    agent: AgentInfo | None = None
    adapter = None
    if runs_agent(argv):
        # Imported here: a shell's pane needs no adapter, and the adapters were 15-20 ms of a cold start.
        from dsh.agents.registry import adapter_for_argv

        adapter = adapter_for_argv(argv)
    if adapter is not None:
        try:
            argv, session_id = adapter.prepare_launch(argv, env=env)
        except Exception as exc:  # an adapter must never keep a pane from starting
            session_id = None
            session.announce(f"{adapter.kind}: {exc}", error=True)
        agent = adapter.agent_info(argv, session_id)
        argv, env = agent_hooks(session, pane_id, adapter.kind, argv, cwd, env)
    rows, cols = session.estimate_size()
    terminal = make_terminal(session, pane_id, argv, cwd, env, rows, cols)
    pane = Pane(id=pane_id, argv=argv, cwd=cwd, env=env, terminal=terminal, agent=agent)
    session.panes[pane_id] = pane
    return pane


def agent_hooks(
    session: Session, pane_id: str, kind: str, argv: list[str], cwd: str, env: dict[str, str]
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment of an agent dsh starts, with its hooks reporting to this pane."""
    if not session.config.flag("attention.hooks"):
        return argv, env
    from dsh.agents.hook_launch import with_hooks

    try:
        # Made as every folder under the home is (0700, no link followed), parents included.
        folder = ensure_home_dir("state", session.log.id, "hooks", pane_id)
    except Exception as exc:  # the agent starts without dsh's hooks; the terminal still tells
        session.announce(f"{kind}: its hooks were not set up ({exc})", error=True)
        return argv, env
    return with_hooks(kind, argv, cwd=cwd, env=env, folder=folder)


def start_pane(session: Session, pane: Pane) -> None:
    pane.started_at = time.time()
    session.attention.started(pane)
    pane.terminal.start()
    session.log_event("pane_opened", pane_id=pane.id, argv=pane.argv)
    if pane.agent is not None and pane.agent.session_id:
        agent_titles.note_agent(session, pane.id, pane.agent.kind, pane.agent.session_id)


def start_tombstone(session: Session, pane: Pane) -> None:
    """Start a restored pane (or one whose program ended) in the same slot, keeping id and tail."""
    if not pane.startable:
        return
    if not pane.is_tombstone:
        pane.state = PaneState.EXITED  # ended in this session: a fresh shell, like a restored one
    # The saved argv is untrusted disk input: the adapter rebuilds the resume command, which runs the
    # program that ran, in the directory the agent worked in (dsh.agents.resumable).
    from dsh.agents.resumable import plan_pane_start

    plan = plan_pane_start(
        pane_id=pane.id,
        state=pane.state,
        agent=pane.agent,
        saved_cwd=pane.cwd,
        session_cwd=session.cwd,
        shell_argv=session.default_shell_argv(),
    )
    if plan.message:
        session.announce(plan.message, error=plan.error)
    if plan.argv is None:
        return
    argv, cwd = plan.argv, plan.cwd
    previous = pane.state
    rows, cols = pane.terminal.rows, pane.terminal.cols
    env = spawn_env(session, pane.id, cwd)
    if plan.agent is not None:
        argv, env = agent_hooks(session, pane.id, plan.agent.kind, argv, cwd, env)
    terminal = make_terminal(session, pane.id, argv, cwd, env, rows, cols)
    # The new program starts on a clean screen; what the pane showed is history above it, at the
    # pane's width (the modes its program set stay behind with it).
    terminal.continue_below(pane.terminal)
    pane.terminal = terminal
    pane.saved_command = None  # the offer to run it again is used, or passed over
    pane.argv = argv
    pane.cwd = cwd
    pane.env = env
    pane.started_from = previous
    pane.state = PaneState.LIVE
    pane.saved_title = None  # the new program names itself
    pane.agent = plan.agent
    start_pane(session, pane)
    structure.restructured(session, pane)


def rerun_command(session: Session, pane: Pane) -> bool:
    """Run a restored pane's saved command again: a fresh shell in its saved directory, the command
    typed into it (so it is in the shell's history, and the shell stays when it ends). Only on a
    key press, or in a workspace that opted in with auto_resume; False when there is none."""
    command = pane.rerun_line
    if command is None:
        return False
    start_tombstone(session, pane)
    if not pane.running:
        return False
    pane.terminal.write(command.encode("utf-8", "surrogateescape") + b"\r")
    session.used = True
    return True
