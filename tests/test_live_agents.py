"""A listing's question to every host at once: the answers that come within the bound, by session, and
a host that listens but never answers left out (never waited for past the bound)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

from dsh import protocol
from dsh.attention.states import session_line
from dsh.cli.live_agents import LiveAgents
from dsh.hostquery import listening_sockets
from dsh.rundir import run_dir


def _answering(path: Path, answer: dict[str, object]) -> threading.Thread:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(protocol.welcome(**answer))
        server.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def test_the_answers_within_the_bound_by_session_and_a_silent_host_left_out() -> None:
    folder = run_dir()
    folder.mkdir(parents=True, exist_ok=True)
    sid, mute = "20261202T000000Z-aaaaaa", "20261202T000000Z-bbbbbb"
    agents = [
        {"pane": "p1", "kind": "claude", "state": "blocked", "since": 5.0, "message": "allow Bash: ls\x1b[31m"},
        {"pane": "p2", "kind": "codex", "state": "working", "since": 6.0},
        {"pane": "p3", "kind": "claude", "state": "nonsense"},
    ]
    thread = _answering(folder / f"{sid}.sock", {"session": sid, "cwd": "/w", "agents": agents})
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(str(folder / f"{mute}.sock"))
    silent.listen(1)  # takes the connection, never answers
    try:
        paths = listening_sockets()
        assert {p.name for p in paths} == {f"{sid}.sock", f"{mute}.sock"}
        live = LiveAgents(paths)
        assert live.line(sid) == "1 needs you · 1 working"
        assert live.line(mute) is None and live.states(mute) is None
        states = live.states(sid)
        assert states is not None and [s["state"] for s in states] == ["blocked", "working"]
        assert "\x1b" not in str(states[0]["message"])  # another process's text, made safe
        live.close()
    finally:
        silent.close()
        thread.join(5)


def test_a_session_s_line_counts_every_state_most_urgent_first() -> None:
    assert session_line(["idle", "blocked", "working", "blocked", "exited", "done"]) == (
        "2 need you · 1 done · 1 working · 1 idle · 1 exited"
    )
    assert session_line(["blocked"]) == "1 needs you"
    assert session_line([]) == ""


def test_a_stopped_host_is_seen_stopped_when_connected_and_kept_as_a_row_not_asked() -> None:
    """A host stopped by SIGSTOP listens (the kernel takes the connection) but cannot answer: a listing
    tells it by its state in /proc, never sends it a hello (so it has nothing queued when continued),
    and keeps its row, with its pid and workspace, for the listing to say."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from dsh.hostquery import running_hosts
    from dsh.peer import process_stopped

    folder = run_dir()
    folder.mkdir(parents=True, exist_ok=True)
    sid, stopped_sid = "20261202T000000Z-cccccc", "20261202T000000Z-dddddd"
    thread = _answering(folder / f"{sid}.sock", {"session": sid, "cwd": "/w", "agents": []})
    # A listener in a process of its own (SIGSTOP stops a whole process): it says what it was sent.
    script = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(sys.argv[1]); s.listen(8)\n"
        "print('listening', flush=True)\n"
        "s.settimeout(2)\n"
        "got = b''\n"
        "try:\n"
        "    while True:\n"
        "        c, _ = s.accept(); c.settimeout(1); got += c.recv(65536)\n"
        "except OSError:\n"
        "    pass\n"
        "print('sent', len(got), flush=True)\n"
    )
    work = folder.parent / "work"
    work.mkdir(exist_ok=True)
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(folder / f"{stopped_sid}.sock")],
        cwd=work,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "listening\n"
        os.kill(child.pid, signal.SIGSTOP)
        deadline = time.monotonic() + 30
        while not process_stopped(child.pid):  # the signal is taken when the child is next scheduled
            assert time.monotonic() < deadline, "the listener never stopped"
            time.sleep(0.01)
        stopped: list[dict[str, object]] = []
        hosts = running_hosts(stopped)
        assert [h["session"] for h in hosts] == [sid]
        assert stopped == [
            {"session": stopped_sid, "pid": child.pid, "socket": str(folder / f"{stopped_sid}.sock"), "cwd": str(work)}
        ]
        live = LiveAgents(listening_sockets())
        assert live.stopped() == {stopped_sid: child.pid}
        data: dict[str, object] = {}
        live.add_states(stopped_sid, data)
        assert data == {"agent_states": None, "host_stopped": True}
        live.close()
        os.kill(child.pid, signal.SIGCONT)
        out, _ = child.communicate(timeout=30)
        assert out == "sent 0\n"  # connected twice, asked nothing
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGCONT)
            child.kill()
        thread.join(5)
